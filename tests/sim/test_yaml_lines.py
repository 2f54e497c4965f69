"""Texts with ``\\u`` escapes of surrogates: libyaml refuses them, so it reads each pair as the
character it stands for (a pair that was plain text is left as it is in a second reading), and
PyYAML's own parser reads them where libyaml is missing. What either builds must be what
libyaml's would for the same text with the character written out, and errors must be located
as theirs are.

Line 1 is the first line of each text; expected lines are counted by hand.
"""

from __future__ import annotations

import pytest

from fairshare.config.errors import ConfigError
from fairshare.sim.parse import yaml_lines
from fairshare.sim.parse.yaml_lines import YamlDoc, load_yaml

EMOJI = "\U0001F600"
ESCAPED = "\\ud83d\\ude00"  # how JSON writers escape EMOJI

# anchors, an alias, a merge key, a duplicate key, flow and block collections, typed scalars
DOCUMENT = """\
version: 1
name: "{e}"
base: &base {{queue: "root.{e}", weight: 2.5}}
apps:
  - {{<<: *base, id: a1, at-ms: 0x10}}
  - id: "{e}"
    tags: [x, "{e}", true, ~, 007]
"{e}": &k 5
copy: *k
copy: *base
"""


def doc_lines(doc: YamlDoc) -> list[tuple[object, ...]]:
    return sorted(((loc, doc.lines[loc], doc.texts.get(loc)) for loc in doc.lines), key=repr)


def error(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_yaml(text, "s.yaml")
    return str(info.value)


@pytest.fixture(params=["libyaml", "PyYAML's own parser"])
def parser(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test under both parsers: PyYAML's own is the one used where libyaml is missing."""
    if request.param != "libyaml":
        monkeypatch.setattr(yaml_lines, "_CParser", None)


@pytest.mark.usefixtures("parser")
def test_escaped_pairs_load_as_the_characters_written_out_would() -> None:
    escaped = load_yaml(DOCUMENT.format(e=ESCAPED), "s.yaml")
    written = load_yaml(DOCUMENT.format(e=EMOJI), "s.yaml")
    assert escaped.value == written.value
    assert escaped.value[EMOJI] == 5
    assert escaped.value["apps"][0] == {"queue": f"root.{EMOJI}", "weight": 2.5, "id": "a1",
                                        "at-ms": 16}
    assert doc_lines(escaped) == doc_lines(written)
    assert escaped.problems == written.problems
    assert [p.message for p in escaped.problems] == ["duplicate key 'copy' (first at line 9)"]


@pytest.mark.usefixtures("parser")
def test_a_lone_surrogate_in_a_list_names_its_item() -> None:
    assert error('x:\n  - a\n  - "b\\udc00"\n') == (
        "s.yaml:3: x[1]: contains a lone surrogate \\udc00, which cannot be written as UTF-8 "
        "(a \\u escape of half of a UTF-16 pair)")


@pytest.mark.usefixtures("parser")
@pytest.mark.parametrize("escape", ["", f'b: "{ESCAPED}"\n'], ids=["no escape", "an escape"])
def test_a_surrogate_character_in_the_text_is_a_lone_surrogate_at_its_line(escape: str) -> None:
    """A string that did not come from a UTF-8 file can hold a surrogate itself, not escaped:
    whichever parser reads the text, it is refused at its line."""
    assert error(escape + "a: 1\nc: x\ud800\n") == (
        f"s.yaml:{3 if escape else 2}: contains a lone surrogate \\ud800, which cannot be "
        "written as UTF-8 (a \\u escape of half of a UTF-16 pair)")


@pytest.mark.usefixtures("parser")
def test_a_control_character_beside_an_escape_is_located() -> None:
    assert error(f'a: "{ESCAPED}"\nb: \x01\n') == (
        "s.yaml:2: invalid YAML: character #x0001 is not allowed")


@pytest.mark.usefixtures("parser")
def test_a_second_document_beside_an_escape_is_refused() -> None:
    assert error(f'a: "{ESCAPED}"\n---\nb: 1\n') == (
        "s.yaml:2: invalid YAML: a second document (a scenario is one YAML document)")


@pytest.fixture
def libyaml_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """PyYAML's own parser would take ten times as long on a big file: it must not be used."""
    import yaml

    def refuse(*args: object) -> None:
        raise AssertionError("PyYAML's own parser was used")

    monkeypatch.setattr(yaml, "SafeLoader", refuse)


@pytest.mark.usefixtures("libyaml_only")
def test_libyaml_reads_escaped_pairs_in_double_quotes() -> None:
    """The common case (JSON written with escaped emoji) stays on the fast parser, which also
    reads tab-indented JSON (PyYAML's own refuses tabs there)."""
    text = '{\n\t"name": "a' + ESCAPED + 'b",\n\t"' + ESCAPED + '": [1, "' + ESCAPED + '"]\n}\n'
    doc = load_yaml(text, "s.json")
    assert doc.value == {"name": f"a{EMOJI}b", EMOJI: [1, EMOJI]}
    assert (doc.lines[("name",)], doc.lines[(EMOJI, 1)]) == (2, 3)


@pytest.mark.usefixtures("libyaml_only")
def test_a_pair_written_as_plain_text_stays_text_beside_an_escaped_one() -> None:
    """Plain, single-quoted and block scalars do not read escapes; keys neither. A plain key
    that reads like a double-quoted one once joined is not its duplicate."""
    doc = load_yaml(f"plain: x{ESCAPED}\nsingle: 'y{ESCAPED}'\ndouble: \"z{ESCAPED}\"\n"
                    f"block: |\n  w{ESCAPED}\nk{ESCAPED}: 1\n\"k{ESCAPED}\": 2\n", "s.yaml")
    assert doc.value == {"plain": f"x{ESCAPED}", "single": f"y{ESCAPED}", "double": f"z{EMOJI}",
                         "block": f"w{ESCAPED}\n", f"k{ESCAPED}": 1, f"k{EMOJI}": 2}
    assert doc.problems == ()
    assert (doc.lines[(f"k{ESCAPED}",)], doc.lines[(f"k{EMOJI}",)]) == (6, 7)


def test_a_lone_escape_is_located_with_its_place_by_libyaml_too() -> None:
    assert error(f'a: "{ESCAPED}"\nlist:\n  - ok\n  - "\\udc00"\n') == (
        "s.yaml:4: list[1]: contains a lone surrogate \\udc00, which cannot be written as UTF-8 "
        "(a \\u escape of half of a UTF-16 pair)")
