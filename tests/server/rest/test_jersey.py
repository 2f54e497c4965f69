"""The document model's two writers against what Jersey and JAXB write (the captured answers
of yarn-rm-3.4.md sections 1.1 and 1.5, tests/watch/recorded/)."""

from __future__ import annotations

import pytest

from fairshare.server.rest.jersey import (
    JFloat,
    JMap,
    java_double_text,
    java_float_text,
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
