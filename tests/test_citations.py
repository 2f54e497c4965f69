"""Citations a maintainer can follow: every section sign points into docs/semantics.md.

Code, tests, scenario headers and docs cite the behaviours they implement or check by the section
numbers of docs/semantics.md, written after the page's name or, once a file has named the page,
alone. Over the text files of src/, tests/, examples/, bench/, oracle/, fuzz/, browser_tests/,
docs/, README.md, the Makefile and .ci/:

* (a) no file cites a document that is not in the repository: no section of a ``spec``, in any
  case, and no ``spec`` as a document (``SPEC_SECTION``, ``SPEC_WORD``; ``BROKEN`` below shows
  what they catch). Identifiers that contain the word (``timed_spec``, ``SPEC_VECTORS``,
  ``test_spec_scenario``, a ``spec=`` keyword, ``{spec.name}`` in an f-string) and words that
  merely contain it ("specify", "respect") are not citations. In Python and Java files only
  comments and string literals are read; in every other file, all of the text;
* (b) every section number cited is a heading of docs/semantics.md (the PNG specification's
  section that ``tests/report/test_page.py`` cites is the one exception, spelled out in full),
  and a section sign is never followed by a word (a page name is not a section);
* (c) a file that cites a section by its number alone names docs/semantics.md before its first
  such citation, so that a reader knows which document the numbers are of.

The checker is tested too: a copy of the tree with each mistake put back must fail.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_docs_scenario_format import SECTION, semantics_sections

REPO = Path(__file__).resolve().parent.parent
ROOTS = ("src", "tests", "examples", "bench", "oracle", "fuzz", "browser_tests", "docs",
         "README.md", "Makefile", ".ci")
SKIPPED_DIRS = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
                "target", "node_modules"}
SEMANTICS = "docs/semantics.md"
SIGN = "\N{SECTION SIGN}"

# (a) the word, in any case, possessive or plural, then at most three non-word characters and
# a section sign
SPEC_SECTION = re.compile(r"(?i)\bspecs?(?:'s)?\W{0,3}" + SIGN)
# (a) the word used for a document — but not inside an identifier or a path, after a code quote
# or an f-string brace, nor followed by an attribute, a subscript, a call, a closing brace or
# quote, or an "=" (a keyword argument, an assignment)
SPEC_WORD = re.compile(r"(?i)(?<![\w./{`*-])spec(?:s|'s)?(?![\w`}\[(]|\.\w|\s*=(?!=))")
SPECIFICATION = re.compile(r"(?i)(?<!PNG )\bspecifications?\b")
# (b) a section sign followed by a word, such as a page name: not a section number
SIGN_THEN_WORD = re.compile(SIGN + r"[A-Za-z]")
# what precedes the one section of another document that may be cited, in
# tests/report/test_page.py: the PNG specification (ISO/IEC 15948), section 11.2.2
PNG_SECTION = "ISO/IEC 15948), "


def text_files(root: Path) -> Iterator[tuple[str, str]]:
    """(path relative to ``root``, text) of every UTF-8 text file under ``ROOTS``."""
    for top in ROOTS:
        start = root / top
        paths = [start] if start.is_file() else sorted(start.rglob("*"))
        for path in paths:
            relative = path.relative_to(root)
            if not path.is_file() or SKIPPED_DIRS.intersection(relative.parts) or any(
                    part.endswith(".egg-info") for part in relative.parts):
                continue
            try:
                text = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # an image
            if "\0" not in text:
                yield relative.as_posix(), text


def prose(name: str, text: str) -> Iterator[tuple[int, str]]:
    """(line, text) of the parts of a file that are written for people, not run."""
    if name.endswith(".py"):
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type in (tokenize.COMMENT, tokenize.STRING):
                    yield token.start[0], token.string
            return
        except (tokenize.TokenError, SyntaxError):
            pass  # not Python after all: read all of it
    elif name.endswith(".java"):
        for m in re.finditer(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', text, re.DOTALL):
            yield text.count("\n", 0, m.start()) + 1, m.group()
        return
    yield 1, text


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1


def spec_problems(name: str, text: str) -> list[str]:
    """(a): a section of a document that is not in the repository, or the document itself."""
    found = []
    for line, part in prose(name, text):
        starts = {m.start(): m for pattern in (SPEC_SECTION, SPEC_WORD, SPECIFICATION)
                  for m in pattern.finditer(part)}
        for _, m in sorted(starts.items()):
            context = part[max(0, m.start() - 30):m.end() + 30].replace("\n", " ")
            found.append(f"{name}:{line + part.count(chr(10), 0, m.start())}: "
                         f"cites a document that is not in the repository: …{context}…")
    return found


def section_problems(name: str, text: str, sections: set[str]) -> list[str]:
    """(b) and (c): the numbers exist, and the file says which document they are of."""
    found = []
    first_bare = None
    for m in SECTION.finditer(text):
        if text[:m.start()].endswith(PNG_SECTION):
            continue
        cited = m.group(1).rstrip(".")
        if cited not in sections:
            found.append(f"{name}:{line_of(text, m.start())}: {SIGN}{cited} is not a heading of "
                         f"{SEMANTICS}")
        if first_bare is None and not text[:m.start()].endswith("semantics.md "):
            first_bare = m.start()
    if name != SEMANTICS:  # the page itself writes a sign and "N" for any section
        for m in SIGN_THEN_WORD.finditer(text):
            found.append(f"{name}:{line_of(text, m.start())}: {m.group()}… is not a section "
                         f"number; name the page instead")
        if first_bare is not None and SEMANTICS not in text[:first_bare]:
            found.append(f"{name}:{line_of(text, first_bare)}: a bare {SIGN} citation, but "
                         f"{SEMANTICS} is not named before it")
    return found


def problems(root: Path) -> list[str]:
    sections = semantics_sections()
    found = []
    for name, text in text_files(root):
        found += spec_problems(name, text)
        found += section_problems(name, text, sections)
    return found


def test_every_citation_points_into_docs_semantics() -> None:
    found = problems(REPO)
    assert not found, "\n".join(found)


def test_the_files_read_include_every_kind_of_citing_file() -> None:
    names = {name for name, _ in text_files(REPO)}
    assert {"src/fairshare/core/shares/solver.py", "tests/scenarios/02-bisection-upper-bound.yaml",
            "examples/am-spared/scenario.yaml", "docs/semantics.md", "README.md",
            "tests/report/test_page.py"} <= names
    assert not any(name.endswith(".png") for name in names)


# Each mistake, as it would be written (the section sign and the word are escaped here so that
# this file does not contain them itself): the file it goes into, and a piece of what the checker
# must say about it.
SP = "sp\N{LATIN SMALL LETTER E}c"
BROKEN = [
    ("src/fairshare/core/x.py", f'"""Fair shares ({SP} {SIGN}2.3)."""\n', "not in the repository"),
    ("src/fairshare/core/x.py", f"x = 1  # {SP.capitalize()} {SIGN}5.4: victims\n",
     "not in the repository"),
    ("tests/x.py", f"# as the {SP} reads, the upper bound\n", "not in the repository"),
    ("tests/scenarios/x.yaml", f"# The {SP}'s worked example\nversion: 1\n",
     "not in the repository"),
    ("oracle/driver/X.java", f"class X {{ /* the {SP} vector */ }}\n", "not in the repository"),
    ("README.md", f"See {SEMANTICS} {SIGN}9.9.\n", f"{SIGN}9.9 is not a heading"),
    ("bench/x.py", f"# the update pass ({SIGN}2.1)\n", "is not named before it"),
    ("examples/x/scenario.yaml", f"# asks at ANY ({SEMANTICS} {SIGN}scenario-format)\n",
     "is not a section number"),
]
BROKEN_IDS = ["section-in-docstring", "section-in-comment", "document-in-comment",
              "document-in-yaml", "document-in-java", "unknown-section", "page-not-named",
              "page-as-section"]


def test_the_checker_accepts_what_the_tree_writes() -> None:
    fine = (f'"""Shares ({SEMANTICS} {SIGN}2.3–{SIGN}2.7); later {SIGN}3.6.2 and {SIGN}4.3 step (2)'
            f'."""\n'
            f"def f({SP}: Scenario, timed_{SP}: int) -> None:\n"
            f"    {SP.upper()}_VECTORS = g({SP}={SP})  # respect what they specify; inspect it\n"
            f'    print(f"{{{SP}.source}}: ``{SP}`` done", {SP}["x"])\n'
            f'"""From the PNG specification ({PNG_SECTION}{SIGN}11.2.2)."""\n')
    assert spec_problems("src/f.py", fine) == []
    assert section_problems("src/f.py", fine, semantics_sections()) == []


@pytest.mark.parametrize(("path", "text", "expected"), BROKEN, ids=BROKEN_IDS)
def test_the_checker_finds_each_mistake(tmp_path: Path, path: str, text: str,
                                        expected: str) -> None:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text, encoding="utf-8")
    found = problems(tmp_path)
    assert found and all(f.startswith(f"{path}:") for f in found), found
    assert any(expected in f for f in found), found
