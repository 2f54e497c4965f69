"""Hadoop ``Configuration`` semantics: property files, final, ``${var}``, Java number parsing."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from fairshare.config.errors import ConfigError
from fairshare.config.hadoopconf import (
    ConfEntry,
    SubstitutionTooDeep,
    conf_int,
    read_entries,
    read_site_xml,
    substitute,
)
from fairshare.resources.javalang import parse_float


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "yarn-site.xml"
    path.write_text(f"<configuration>\n{body}\n</configuration>\n")
    return path


def prop(name: str, value: str, extra: str = "") -> str:
    return f"  <property><name>{name}</name><value>{value}</value>{extra}</property>"


def entries(**values: str) -> dict[str, ConfEntry]:
    return {name.replace("_", "."): ConfEntry(v, None, None) for name, v in values.items()}


def test_each_value_comes_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([prop("a", "1"), prop("b", "2")]))
    assert read_site_xml(path) == {"a": ("1", 2), "b": ("2", 3)}


def test_a_later_definition_wins(tmp_path: Path) -> None:
    path = write(tmp_path, "\n".join([prop("a", "1"), prop("a", "2")]))
    assert read_site_xml(path) == {"a": ("2", 3)}


def test_a_final_definition_cannot_be_replaced(tmp_path: Path) -> None:
    body = "\n".join([prop("a", "1", "<final>true</final>"), prop("a", "2")])
    found, warnings = read_entries(write(tmp_path, body), "site")
    assert found["a"] == ConfEntry("1", "site", 2)
    assert [(w.line, w.message) for w in warnings] == [
        (3, "a is final; this later definition is ignored")
    ]


def test_repeating_the_final_value_is_not_worth_a_warning(tmp_path: Path) -> None:
    body = "\n".join([prop("a", "1", "<final>true</final>"), prop("a", "1")])
    assert read_entries(write(tmp_path, body), "site")[1] == []


def test_final_without_a_value_freezes_the_earlier_value(tmp_path: Path) -> None:
    body = "\n".join(
        [prop("a", "1"), "<property><name>a</name><final>true</final></property>", prop("a", "3")]
    )
    assert read_site_xml(write(tmp_path, body)) == {"a": ("1", 2)}


def test_final_must_be_exactly_true(tmp_path: Path) -> None:
    body = "\n".join([prop("a", "1", "<final>TRUE</final>"), prop("a", "2")])
    assert read_site_xml(write(tmp_path, body)) == {"a": ("2", 3)}


def test_the_short_attribute_form(tmp_path: Path) -> None:
    body = '<property name="a" value="1" final="true"/>\n' + prop("a", "2")
    assert read_site_xml(write(tmp_path, body)) == {"a": ("1", 2)}


def test_the_name_is_trimmed_but_the_value_is_not(tmp_path: Path) -> None:
    path = write(tmp_path, prop("  a\t", " x "))
    assert read_site_xml(path) == {"a": (" x ", 2)}


def test_an_empty_value_sets_nothing(tmp_path: Path) -> None:
    body = "\n".join([prop("a", "1"), prop("a", "")])
    assert read_site_xml(write(tmp_path, body)) == {"a": ("1", 2)}


def test_a_property_without_a_name_is_skipped(tmp_path: Path) -> None:
    assert read_site_xml(write(tmp_path, "<property><value>1</value></property>")) == {}


def test_another_root_element_is_read_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "site.xml"
    path.write_text("<conf>\n" + prop("a", "1") + "\n</conf>")
    found, warnings = read_entries(path, "site.xml")
    assert found == {"a": ConfEntry("1", "site.xml", 2)}
    assert [(w.message, w.consequence) for w in warnings] == [
        ("top-level element is <conf>, not <configuration>",
         "Hadoop's Configuration reads its <property> elements anyway")
    ]


def test_malformed_xml_is_located(tmp_path: Path) -> None:
    path = tmp_path / "yarn-site.xml"
    path.write_text("<configuration>\n<property>\n</configuration>\n")
    with pytest.raises(ConfigError) as info:
        read_entries(path, "site.xml")
    assert (info.value.file, info.value.line) == ("site.xml", 3)


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read file"):
        read_site_xml(tmp_path / "nope.xml")


def test_an_endless_device_is_refused_without_being_read() -> None:
    with pytest.raises(ConfigError, match="not a regular file") as info:
        read_entries("/dev/zero", "site.xml")
    assert info.value.file == "site.xml"


def test_an_include_is_not_followed_but_warned_about(tmp_path: Path) -> None:
    (tmp_path / "extra.xml").write_text(f"<configuration>{prop('b', '2')}</configuration>")
    path = tmp_path / "yarn-site.xml"
    path.write_text(
        '<configuration xmlns:xi="http://www.w3.org/2001/XInclude">\n'
        '  <xi:include href="extra.xml"/>\n'
        f"{prop('a', '1')}\n"
        "</configuration>\n"
    )
    found, warnings = read_entries(path, "site.xml")
    assert found == {"a": ConfEntry("1", "site.xml", 3)}
    assert [(w.file, w.line, f"{w.message}: {w.consequence}") for w in warnings] == [
        (
            "site.xml",
            2,
            "<xi:include href='extra.xml'> is not followed: fairshare does not read included "
            "files (Hadoop does), so the properties in it are missing here and take their "
            "defaults",
        )
    ]


SUBSTITUTIONS = {
    "a reference expands": ("${b}/x", {"b": "y"}, "y/x"),
    "expansion repeats": ("${b}", {"b": "${c}!", "c": "z"}, "z!"),
    "an unbound variable stays literal": ("${nope}/x", {}, "${nope}/x"),
    "an unbound variable stops the expansion": ("${nope}-${b}", {"b": "y"}, "${nope}-${b}"),
    "a self-reference returns the original text": ("<${a}>", {"a": "x${a}"}, "<${a}>"),
    "spaces are not part of a name": ("${a b}", {"a b": "x"}, "${a b}"),
    "the first well-formed reference is expanded": ("${a${b}}", {"b": "c", "ac": "!"}, "!"),
    # Environment variables are treated as unset, so Hadoop's defaults apply.
    "an unset variable takes its :- default": ("${env.NOPE:-/tmp}/x", {}, "/tmp/x"),
    "an unset variable takes its - default": ("${env.NOPE-x}", {}, "x"),
    "an empty default is a value": ("a${env.NOPE:-}b", {}, "ab"),
    "a colon alone does not start a default": ("${env.A:B-c}", {}, "c"),
    "the first dash ends the name": ("${env.A-b:-c}", {}, "b:-c"),
    "a default can be expanded afterwards": ("${env.X:-${b}}", {"b": "y"}, "y"),
    "a default never comes from a property": ("${env.X:-d}", {"env.X:-d": "p"}, "d"),
    "without a default a property named env.X is used": ("${env.HOME}", {"env.HOME": "/h"}, "/h"),
    "without a default or property it stays literal": ("${env.HOME}/x", {}, "${env.HOME}/x"),
    "env. alone is an ordinary name": ("${env.}", {"env.": "p"}, "p"),
}


@pytest.mark.parametrize(("expr", "values", "expected"), SUBSTITUTIONS.values(),
                         ids=SUBSTITUTIONS.keys())  # fmt: skip
def test_substitution(expr: str, values: dict[str, str], expected: str) -> None:
    found = {name: ConfEntry(value, None, None) for name, value in values.items()}
    assert substitute(expr, found) == expected


def chain(length: int) -> dict[str, ConfEntry]:
    """v0 -> ${v1} -> ... -> v<length> = "end": reading v0 takes ``length`` substitutions."""
    found = {f"v{i}": ConfEntry(f"${{v{i + 1}}}", None, None) for i in range(length)}
    found[f"v{length}"] = ConfEntry("end", None, None)
    return found


def test_nineteen_substitutions_are_fine() -> None:
    assert substitute("${v2}", chain(20)) == "end"  # v2, v3, ..., v20: 19 expansions


def test_twenty_substitutions_are_too_many_even_when_done() -> None:
    # v1 ... v20 is 20 expansions; Hadoop's loop throws after the 20th without a last look.
    with pytest.raises(SubstitutionTooDeep, match="depth too large: 20"):
        substitute("${v1}", chain(20))


def test_read_site_xml_reports_a_too_deep_expansion(tmp_path: Path) -> None:
    body = "\n".join(prop(name, entry.value) for name, entry in chain(25).items())
    with pytest.raises(ConfigError) as info:
        read_site_xml(write(tmp_path, body))
    assert (info.value.line, info.value.message.split(":")[0]) == (2, "v0")


INTS = {
    "decimal": ("500", 32, 500),
    "hex": ("0x1F4", 32, 500),
    "upper-case hex prefix": ("0X1f4", 32, 500),
    "negative hex": ("-0x10", 32, -16),
    "a sign after the hex prefix": ("0x-10", 32, -16),
    "long maximum in hex": ("0x7FFFFFFFFFFFFFFF", 64, 2**63 - 1),
    "int minimum": ("-2147483648", 32, -(2**31)),
}


@pytest.mark.parametrize(("text", "bits", "expected"), INTS.values(), ids=INTS.keys())
def test_conf_int(text: str, bits: int, expected: int) -> None:
    assert conf_int(text, bits) == expected


@pytest.mark.parametrize("text", ["", "0x", "1e3", "12.0", "0xFFFFFFFF", "2147483648", "--1"])
def test_conf_int_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        conf_int(text, 32)


FLOATS = {
    "0.8 is stored as a float32": ("0.8", 13421773 / 2**24),
    "a float suffix": ("0.8f", 13421773 / 2**24),
    "a double suffix": ("0.5d", 0.5),
    "a leading dot": (".25", 0.25),
    "a trailing dot": ("2.", 2.0),
    "an exponent": ("1e-1", 13421773 / 2**27),
    "a hex float": ("0x1.8p1", 3.0),
    "a sign": ("-1.5", -1.5),
    "beyond the float range": ("1e39", math.inf),
    "infinity": ("-Infinity", -math.inf),
}


@pytest.mark.parametrize(("text", "expected"), FLOATS.values(), ids=FLOATS.keys())
def test_get_float_parses_as_java(text: str, expected: float) -> None:
    assert parse_float(text) == expected


def test_java_float_nan() -> None:
    assert math.isnan(parse_float("NaN"))


@pytest.mark.parametrize("text", ["", "abc", "1,5", "inf", "nan", "1_0", "0x1.8", "Infinityf", "."])
def test_java_float_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_float(text)
