"""The document model's two writers against what Jersey and JAXB write (the captured answers
of a real RM, tests/watch/recorded/)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.server.rest.jersey import (
    JFloat,
    JMap,
    Obj,
    Value,
    java_double_text,
    java_float_text,
    json_reusing,
    obj,
    to_json,
    to_xml,
    unwrapped,
)


@pytest.mark.parametrize(("value", "text"), [
    (0.0, "0.0"),
    (-0.0, "-0.0"),
    (6.25, "6.25"),  # captured queueUsagePercentage
    (100.0, "100.0"),  # a finished app's progress (captured)
    (131.246, "131.246"),  # captured: 14336 / 10923 as a float, × 100
    (46.87357, "46.87357"),  # captured
    (2.0 / 3, "0.6666667"),  # a float has 7–8 significant digits
    (0.001, "0.001"),  # the plain range starts at 10^-3 …
    (0.0001, "1.0E-4"),  # … below it, computerized scientific notation
    (9999999.0, "9999999.0"),  # … and ends below 10^7
    (1e7, "1.0E7"),
    (1.5e-5, "1.5E-5"),
])
def test_floats_print_as_java_prints_them(value: float, text: str) -> None:
    assert java_float_text(value) == text


def test_doubles_keep_their_digits() -> None:
    assert java_double_text(2.0 / 3) == "0.6666666666666666"
    assert java_double_text(123456789.0) == "1.23456789E8"


def test_natural_json_leaves_out_nulls_and_empty_lists_and_keeps_one_item_lists() -> None:
    doc = obj(("apps", obj(("app", [obj(("id", "a"), ("trackingUrl", None),
                                        ("resourceRequests", []), ("priority", 0),
                                        ("progress", JFloat(0.0)),
                                        ("unmanagedApplication", False))]))))
    assert to_json(doc) == (b'{"apps":{"app":[{"id":"a","priority":0,"progress":0.0,'
                            b'"unmanagedApplication":false}]}}')


def test_longs_are_unquoted() -> None:
    assert to_json(obj(("maximumAllocation", 2**63 - 1))) == \
        b'{"maximumAllocation":9223372036854775807}'


def test_a_long_map_repeats_its_entry_key_with_string_values() -> None:
    # captured: "resourceSecondsMap":{"entry":{"key":"memory-mb","value":"24"},"entry":…}
    doc = obj(("resourceSecondsMap", JMap((("memory-mb", "24"), ("vcores", "0")))),
              ("preemptedResourceSecondsMap", JMap()))
    assert to_json(doc) == (b'{"resourceSecondsMap":{"entry":{"key":"memory-mb","value":"24"},'
                            b'"entry":{"key":"vcores","value":"0"}},'
                            b'"preemptedResourceSecondsMap":{}}')


def test_a_subclass_writes_its_type_first() -> None:
    leaf = obj(("maxApps", 5), ("queueName", "root.a"), xsi_type="fairSchedulerLeafQueueInfo")
    assert to_json(obj(("queue", [leaf]))) == \
        b'{"queue":[{"type":"fairSchedulerLeafQueueInfo","maxApps":5,"queueName":"root.a"}]}'


def test_strings_are_escaped_as_json_and_urls_left_alone() -> None:
    assert to_json(obj(("s", 'say "hi"\n'), ("u", "http://h:1/x"), ("e", "é"))) == \
        '{"s":"say \\"hi\\"\\n","u":"http://h:1/x","e":"é"}'.encode()


def test_xml_declares_xsi_once_where_it_is_first_needed() -> None:
    # captured opening: <scheduler><schedulerInfo xmlns:xsi="…" xsi:type="fairScheduler">…
    # and leaves as <queue xsi:type="fairSchedulerLeafQueueInfo">
    leaf = obj(("queueName", "root.a"), xsi_type="fairSchedulerLeafQueueInfo")
    doc = obj(("scheduler", obj(("schedulerInfo", obj(
        ("rootQueue", obj(("queueName", "root"), ("childQueues", obj(("queue", [leaf, leaf]))))),
        xsi_type="fairScheduler")))))
    assert to_xml(doc) == (
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><scheduler>'
        b'<schedulerInfo xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        b'xsi:type="fairScheduler"><rootQueue><queueName>root</queueName><childQueues>'
        b'<queue xsi:type="fairSchedulerLeafQueueInfo"><queueName>root.a</queueName></queue>'
        b'<queue xsi:type="fairSchedulerLeafQueueInfo"><queueName>root.a</queueName></queue>'
        b'</childQueues></rootQueue></schedulerInfo></scheduler>')


def test_xml_lists_repeat_the_element_and_empty_objects_close_themselves() -> None:
    doc = obj(("node", obj(("nodeLabels", ["a", "b"]), ("allocationTags", obj()),
                           ("healthReport", ""), ("memUtilization", JFloat(87.5)),
                           ("m", JMap((("k", "1"),))), ("x", "<&>"))))
    assert to_xml(doc).split(b"?>", 1)[1] == (
        b"<node><nodeLabels>a</nodeLabels><nodeLabels>b</nodeLabels><allocationTags/>"
        b"<healthReport></healthReport><memUtilization>87.5</memUtilization>"
        b"<m><entry><key>k</key><value>1</value></entry></m><x>&lt;&amp;&gt;</x></node>")


def test_unwrapped_documents_drop_their_root_in_json_only() -> None:
    doc = unwrapped("appstate", obj(("state", "KILLED"), ("diagnostics", None)))
    assert to_json(doc) == b'{"state":"KILLED"}'
    assert to_xml(doc).endswith(b"<appstate><state>KILLED</state></appstate>")


def test_xml_needs_one_root() -> None:
    with pytest.raises(ValueError, match="one root"):
        to_xml(obj(("a", 1), ("b", 2)))


# -- json_reusing: a DAO's next version, written from the texts of its unchanged fields -----

# each field of a DAO holds one kind of value from one version to the next (a nested DAO's
# fields too); a top-level field may also change between null, bool and int
_texts = st.text(max_size=6)  # lone surrogates included: written as "?", as to_json does
_kinds: list[st.SearchStrategy[Value]] = [
    _texts,
    st.integers(-2**63, 2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True).map(JFloat),
    st.builds(JMap, st.lists(st.tuples(_texts, _texts), max_size=2).map(tuple)),
    st.lists(st.integers(0, 9), max_size=2),
    st.builds(lambda a, b: obj(("a", a), ("b", b)), _texts, st.one_of(st.none(), st.booleans())),
    st.one_of(st.none(), st.booleans(), st.integers(0, 1)),
]


@st.composite
def _versions(draw: st.DrawFn) -> tuple[Obj, Obj, Obj]:
    kinds = draw(st.lists(st.sampled_from(_kinds), min_size=1, max_size=8))
    names = [f"f{i}" for i in range(len(kinds))]
    first = [draw(kind) for kind in kinds]
    later = []
    for _ in range(2):  # each field kept, or drawn afresh
        later.append([v if draw(st.booleans()) else draw(k)
                      for v, k in zip(first, kinds, strict=True)])
    made = [obj(*zip(names, values, strict=True)) for values in (first, *later)]
    return made[0], made[1], made[2]


@given(_versions())
def test_a_dao_written_from_its_last_texts_is_what_to_json_writes(
        versions: tuple[Obj, Obj, Obj]) -> None:
    first, second, third = versions
    kept = json_reusing(first, None)
    assert kept.text == to_json(first).decode("utf-8")
    for version in (second, third):
        kept = json_reusing(version, kept)
        assert kept.text == to_json(version).decode("utf-8")


def test_an_unchanged_field_is_not_written_again_and_a_changed_one_is() -> None:
    before = obj(("id", "app_1"), ("elapsedTime", 1000), ("running", True))
    kept = json_reusing(before, None)
    # a kept text of the id marked, to see which texts the next version took
    marked = replace(kept, parts=('"id":"MARKED"', *kept.parts[1:]))
    after = json_reusing(obj(("id", "app_1"), ("elapsedTime", 2000), ("running", 1)), marked)
    assert after.text == '{"id":"MARKED","elapsedTime":2000,"running":1}'
    other = json_reusing(obj(("name", "app_1"), ("elapsedTime", 2000), ("running", 1)), marked)
    assert other.text == '{"name":"app_1","elapsedTime":2000,"running":1}'
    # a subclass's DAO is written whole (no texts kept by field): its next version too
    typed = json_reusing(obj(("a", 1), ("b", 2), xsi_type="t"), None)
    assert typed.text == '{"type":"t","a":1,"b":2}'
    assert json_reusing(obj(("a", 1), ("b", 3)), typed).text == '{"a":1,"b":3}'


def test_a_float_that_only_changed_its_sign_is_written_again() -> None:
    """0.0 == -0.0 in Python, but Java's ``Float.toString`` writes ``-0.0``: the field's
    text of the earlier version is not the new one's (found by the property above)."""
    kept = json_reusing(obj(("f", JFloat(0.0)), ("g", JFloat(float("nan")))), None)
    later = json_reusing(obj(("f", JFloat(-0.0)), ("g", JFloat(float("nan")))), kept)
    assert later.text == '{"f":-0.0,"g":NaN}' == to_json(
        obj(("f", JFloat(-0.0)), ("g", JFloat(float("nan"))))).decode()
    assert JFloat(0.0) != JFloat(-0.0) and JFloat(float("nan")) == JFloat(float("nan"))
