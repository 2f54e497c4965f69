"""The allocation file (docs/semantics.md §1.2–§1.5, §1.7): parse rules, every error with its line,
warnings, safe XML, and a property that nothing but ConfigError escapes.

Inline documents start with ``<allocations>`` on line 1; line numbers are counted by hand.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.config.allocation import load_allocations, parse_allocations_text
from fairshare.config.errors import ConfigError, ConfigErrors, all_errors
from fairshare.config.model import (
    AllocationConfig,
    PlacementPolicy,
    PlacementRule,
    PolicyName,
    QueueConfig,
    RuleName,
)
from fairshare.config.xml import MAX_XML_BYTES
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import INT_MAX, LONG_MAX, ResourceTypes, res

FLOAT32_0_1 = 0.100000001490116119384765625  # the float32 nearest to 0.1 (§0.2)


def parse(xml: str) -> AllocationConfig:
    return parse_allocations_text(xml, "fs.xml")


def queue(body: str, name: str = "a") -> QueueConfig:
    config = parse(f'<allocations><queue name="{name}">{body}</queue></allocations>')
    found = config.queue(f"root.{name}")
    assert found is not None
    return found


def errors_of(xml: str) -> list[tuple[int | None, str]]:
    with pytest.raises(ConfigError) as info:
        parse(xml)
    assert all(e.file == "fs.xml" for e in all_errors(info.value))
    return [(e.line, e.message) for e in all_errors(info.value)]


def warnings_of(xml: str) -> list[tuple[int | None, str]]:
    return [(w.line, w.message) for w in parse(xml).warnings]


def explained_warnings_of(xml: str) -> list[tuple[int | None, str]]:
    """Each warning as ``message: consequence`` (what is configured, then what YARN does)."""
    return [(w.line, f"{w.message}: {w.consequence}") for w in parse(xml).warnings]


# --- §1.7: every error, with its line -------------------------------------------------------

PARENT_ONLY = (
    "The configuration settings for root.p are invalid. A queue element that contains child "
    "queue elements or that has the type='parent' attribute cannot also include a {} element."
)
FIFO_DEFAULT = (
    "Bad fair scheduler config file: defaultQueueSchedulingPolicy or "
    "defaultQueueSchedulingMode can't be FIFO."
)
POLICY_CLASS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."

ERRORS = [
    (
        "root-not-allocations",
        '<?xml version="1.0"?>\n<fairScheduler>\n</fairScheduler>',
        (2, "Bad fair scheduler config file: top-level element not <allocations>"),
    ),
    (
        "default-policy-fifo",
        """<allocations>
  <queue name="a"/>
  <defaultQueueSchedulingPolicy>FIFO</defaultQueueSchedulingPolicy>
</allocations>""",
        (3, FIFO_DEFAULT),
    ),
    (
        "default-mode-fifo",
        "<allocations>\n<defaultQueueSchedulingMode> fifo </defaultQueueSchedulingMode>\n"
        "</allocations>",
        (2, FIFO_DEFAULT),
    ),
    (
        "root-alongside-others",
        """<allocations>
  <queue name="a"/>
  <queue name="root">
    <queue name="b"/>
  </queue>
</allocations>""",
        (3, "If configuring root queue, no other queues can be placed alongside it."),
    ),
    (
        "name-with-period",
        """<allocations>
  <queue name="p">
    <queue name="a.b"/>
  </queue>
</allocations>""",
        (3, "queue name (a.b) shouldn't contain period (a <queue> under root.p)"),
    ),
    (
        "name-blank",
        '<allocations>\n  <pool name=" \u3000\t"/>\n</allocations>',
        (2, "queue name shouldn't be empty or consist only of whitespace (a <pool> under root)"),
    ),
    (
        "name-missing",
        "<allocations>\n<queue>\n<weight>1</weight>\n</queue>\n</allocations>",
        (2, "queue name shouldn't be empty or consist only of whitespace (a <queue> under root)"),
    ),
    (
        "reservation-on-parent-with-children",
        """<allocations>
  <queue name="p">
    <reservation/>
    <queue name="c"/>
  </queue>
</allocations>""",
        (3, PARENT_ONLY.format("reservation")),
    ),
    (
        "max-am-share-on-type-parent",
        """<allocations>
  <queue name="p" type="parent">
    <maxAMShare>0.5</maxAMShare>
  </queue>
</allocations>""",
        (3, PARENT_ONLY.format("maxAMShare")),
    ),
    (
        "reservation-reported-before-max-am-share",
        """<allocations>
  <queue name="p" type="parent">
    <maxAMShare>0.5</maxAMShare>
    <reservation/>
  </queue>
</allocations>""",
        (4, PARENT_ONLY.format("reservation")),
    ),
    (
        "policy-name",
        """<allocations>
  <queue name="a">
    <schedulingPolicy>fairest</schedulingPolicy>
  </queue>
</allocations>""",
        (3, "root.a: <schedulingPolicy> fairest SchedulingPolicy class not found!"),
    ),
    (
        "policy-class",
        "<allocations>\n<queue name='a'>\n"
        "<schedulingMode>com.example.MyPolicy</schedulingMode>\n</queue>\n</allocations>",
        (3, "root.a: <schedulingMode> com.example.MyPolicy SchedulingPolicy class not found!"),
    ),
    (
        "default-policy-name",
        "<allocations>\n<defaultQueueSchedulingPolicy>x</defaultQueueSchedulingPolicy>\n"
        "</allocations>",
        (2, "<defaultQueueSchedulingPolicy> x SchedulingPolicy class not found!"),
    ),
]

# Resource strings (§1.4): the element, the text, and YARN's message.
RESOURCE_ERRORS = [
    ("minResources", " ", "Error reading resource config--the resource string is empty."),
    ("maxResources", "memory-mb=1=2", "Every resource must be of the form: name=value."),
    ("maxResources", "gpu=1", 'The resource name, "gpu" was not recognized.'),
    ("maxChildResources", "memory-mb=50%, vcores=2", "The resource values must all be percentages"),
    ("minResources", "memory-mb=1.5", "The resource values must all be integers"),
    (
        "minResources",
        "memory-mb=-1",
        "Invalid value of memory-mb: -1, value should not be negative!",
    ),
    ("maxResources", "1024 mb", "Cannot parse resource values from input: 1024 mb"),
    ("maxResources", "1024 mb, 2", "Missing resource: vcores"),
    ("maxResources", "1024x mb, 2 vcores", "Invalid value of memory: 1024x mb"),
    ("maxContainerAllocation", "50% memory", "Invalid percentage: 50% memory"),
    ("maxResources", "x% memory, 5% cpu", "Invalid percentage of memory: x% memory"),
    ("maxResources", "-50%", "percentage should not be negative!"),
    ("maxResources", "50% cpu, 20% disk", "Missing resource: memory"),
]

# Java's NumberFormatException cases, as readable messages.
NUMBER_ERRORS = [
    ("weight", "abc", 'must be a number, got "abc"'),
    ("weight", "1,5", 'must be a number, got "1,5"'),
    ("maxAMShare", "half", 'must be a number, got "half"'),
    ("fairSharePreemptionThreshold", "nan", 'must be a number, got "nan"'),  # Java wants NaN
    ("maxRunningApps", "1.5", 'must be an integer, got "1.5"'),
    ("maxRunningApps", "2147483648", 'must be an integer, got "2147483648"'),  # int overflow
    ("minSharePreemptionTimeout", "10s", 'must be an integer, got "10s"'),
    ("fairSharePreemptionTimeout", "1_000", 'must be an integer, got "1_000"'),
]

# Elements read with no text (Java's NullPointerException / ClassCastException).
NO_VALUE = ["weight", "maxRunningApps", "minResources", "aclSubmitApps", "allowPreemptionFrom"]

TOP_LEVEL_ERRORS = [
    ("userMaxAppsDefault", "lots", '<userMaxAppsDefault> must be an integer, got "lots"'),
    ("queueMaxAppsDefault", "  ", '<queueMaxAppsDefault> must be an integer, got ""'),
    ("queueMaxAMShareDefault", "x", '<queueMaxAMShareDefault> must be a number, got "x"'),
    (
        "defaultMinSharePreemptionTimeout",
        "1.5",
        '<defaultMinSharePreemptionTimeout> must be an integer, got "1.5"',
    ),
    (
        "defaultFairSharePreemptionTimeout",
        "-",
        '<defaultFairSharePreemptionTimeout> must be an integer, got "-"',
    ),
    ("fairSharePreemptionTimeout", "x", '<fairSharePreemptionTimeout> must be an integer, got "x"'),
    (
        "defaultFairSharePreemptionThreshold",
        "0.5.1",
        '<defaultFairSharePreemptionThreshold> must be a number, got "0.5.1"',
    ),
    (
        "queueMaxResourcesDefault",
        "1024 mb",
        "<queueMaxResourcesDefault>: Cannot parse resource values from input: 1024 mb",
    ),
]


@pytest.mark.parametrize(("xml", "expected"), [c[1:] for c in ERRORS], ids=[c[0] for c in ERRORS])
def test_error_and_line(xml: str, expected: tuple[int, str]) -> None:
    assert errors_of(xml) == [expected]


@pytest.mark.parametrize(("tag", "text", "message"), RESOURCE_ERRORS)
def test_resource_string_errors_name_queue_element_and_line(
    tag: str, text: str, message: str
) -> None:
    xml = (
        f'<allocations>\n  <queue name="a">\n    <{tag}>{text}</{tag}>\n  </queue>\n</allocations>'
    )
    [(line, got)] = errors_of(xml)
    assert line == 3
    assert got.startswith(f"root.a: <{tag}>: ")
    assert message in got


@pytest.mark.parametrize(("tag", "text", "message"), NUMBER_ERRORS)
def test_number_errors(tag: str, text: str, message: str) -> None:
    xml = (
        f'<allocations>\n  <queue name="a">\n    <{tag}>{text}</{tag}>\n  </queue>\n</allocations>'
    )
    assert errors_of(xml) == [(3, f"root.a: <{tag}> {message}")]


@pytest.mark.parametrize("tag", NO_VALUE)
def test_element_without_value(tag: str) -> None:
    xml = f'<allocations>\n  <queue name="a">\n    <{tag}/>\n  </queue>\n</allocations>'
    assert errors_of(xml) == [(3, f"root.a: <{tag}> has no value")]


def test_element_whose_first_child_is_an_element_has_no_value() -> None:
    xml = "<allocations>\n<queue name='a'>\n<weight><v>1</v></weight>\n</queue>\n</allocations>"
    assert errors_of(xml) == [(3, "root.a: <weight> has no value")]


@pytest.mark.parametrize(("tag", "text", "message"), TOP_LEVEL_ERRORS)
def test_top_level_value_errors(tag: str, text: str, message: str) -> None:
    assert errors_of(f"<allocations>\n\n  <{tag}>{text}</{tag}>\n</allocations>") == [(3, message)]


@pytest.mark.parametrize(
    "tag", ["userMaxAppsDefault", "reservation-agent", "defaultQueueSchedulingPolicy"]
)
def test_top_level_element_without_value(tag: str) -> None:
    assert errors_of(f"<allocations>\n<{tag}/>\n</allocations>") == [(2, f"<{tag}> has no value")]


def test_user_max_running_apps_errors() -> None:
    xml = """<allocations>
  <user name="bob">
    <maxRunningApps>many</maxRunningApps>
  </user>
  <user name="eve"><maxRunningApps/></user>
</allocations>"""
    assert errors_of(xml) == [
        (3, 'user "bob": <maxRunningApps> must be an integer, got "many"'),
        (5, 'user "eve": <maxRunningApps> has no value'),
    ]


def test_malformed_xml() -> None:
    [(line, message)] = errors_of('<allocations>\n<queue name="a">\n</allocations>')
    assert line == 3  # the mismatch is noticed at </allocations>
    # The location is given once, as file:line; lxml's own ", line N, column M" is dropped.
    assert message == (
        "malformed XML: Opening and ending tag mismatch: queue line 2 and allocations (column 15)"
    )


def test_a_long_value_is_echoed_shortened() -> None:
    digits = "9" * 100_000
    [(line, message)] = errors_of(
        f"<allocations>\n<queue name='a'><maxRunningApps>{digits}</maxRunningApps></queue>\n"
        "</allocations>"
    )
    assert line == 2
    assert message == f'root.a: <maxRunningApps> must be an integer, got "{"9" * 39}…"'


def test_placement_errors_are_located_in_the_file() -> None:
    xml = """<allocations>
  <queue name="a"/>
  <queuePlacementPolicy>
    <rule name="user"/>
    <rule name="primaryGroup"/>
  </queuePlacementPolicy>
</allocations>"""
    assert errors_of(xml) == [
        (4, "Rules after rule 1 in queue placement policy can never be reached"
            ": rule 'user' always places the application (create is true), so move the rules "
            "after it before it, or remove them, or give it create=\"false\" so that it "
            "places only into existing queues")
    ]


def test_empty_placement_policy_element() -> None:
    xml = "<allocations>\n\n<queuePlacementPolicy></queuePlacementPolicy>\n</allocations>"
    assert errors_of(xml) == [(3, "Empty configuration for QueuePlacementPolicy is not allowed")]


def test_all_errors_are_collected_in_line_order() -> None:
    xml = """<allocations>
  <userMaxAppsDefault>lots</userMaxAppsDefault>
  <queue name="a">
    <weight>heavy</weight>
    <maxRunningApps>-</maxRunningApps>
  </queue>
  <queue name="b.c"/>
  <queuePlacementPolicy/>
</allocations>"""
    with pytest.raises(ConfigErrors) as info:
        parse(xml)
    assert [e.line for e in info.value.errors] == [2, 4, 5, 7, 8]
    lines = str(info.value).splitlines()
    assert len(lines) == 5
    assert lines[1] == 'fs.xml:4: root.a: <weight> must be a number, got "heavy"'


def test_an_overridden_scalar_is_not_parsed_but_a_default_policy_is() -> None:
    """Top-level scalars are kept as text and only the last one is parsed; the default policy is
    parsed where it stands (YARN's AllocationFileParser)."""
    config = parse(
        "<allocations><userMaxAppsDefault>x</userMaxAppsDefault>"
        "<userMaxAppsDefault>5</userMaxAppsDefault></allocations>"
    )
    assert config.user_max_apps_default == 5
    xml = """<allocations>
  <defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>"""
    assert errors_of(xml) == [(2, FIFO_DEFAULT)]


# --- queue settings (§1.3.2) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "weight"),
    [
        ("0.1", FLOAT32_0_1),
        ("2", 2.0),
        ("-1", -1.0),
        ("0", 0.0),
        ("1e1", 10.0),
        (" 3 ", 3.0),
        ("0x1p2", 4.0),
        ("2.5f", 2.5),
    ],
)
def test_weight_is_float32(text: str, weight: float) -> None:
    assert queue(f"<weight>{text}</weight>").weight == weight


@pytest.mark.parametrize(
    ("text", "share"), [("0.1", FLOAT32_0_1), ("1.5", 1.0), ("-1", -1.0), ("-3", -3.0)]
)
def test_max_am_share_capped_at_one_only(text: str, share: float) -> None:
    assert queue(f"<maxAMShare>{text}</maxAMShare>").max_am_share == share


@pytest.mark.parametrize(
    ("text", "threshold"), [("0.1", FLOAT32_0_1), ("1.5", 1.0), ("-0.5", 0.0), ("1", 1.0)]
)
def test_fair_share_threshold_clamped(text: str, threshold: float) -> None:
    body = f"<fairSharePreemptionThreshold>{text}</fairSharePreemptionThreshold>"
    assert queue(body).fair_share_preemption_threshold == threshold


def test_nan_threshold_is_accepted_like_java() -> None:
    value = queue("<fairSharePreemptionThreshold>NaN</fairSharePreemptionThreshold>")
    assert value.fair_share_preemption_threshold != value.fair_share_preemption_threshold


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("30", 30_000),
        ("0", 0),
        ("-1", -1_000),
        ("+5", 5_000),
        # 9223372036854776 × 1000 = 2^63 + 192, which a Java long wraps to -2^63 + 192.
        ("9223372036854776", -(2**63) + 192),
    ],
)
def test_timeouts_are_seconds_times_1000(text: str, ms: int) -> None:
    q = queue(
        f"<minSharePreemptionTimeout>{text}</minSharePreemptionTimeout>"
        f"<fairSharePreemptionTimeout>{text}</fairSharePreemptionTimeout>"
    )
    assert (q.min_share_preemption_timeout_ms, q.fair_share_preemption_timeout_ms) == (ms, ms)


@pytest.mark.parametrize(
    ("text", "allowed"),
    [
        ("true", True),
        ("TRUE", True),
        (" true ", True),
        ("false", False),
        ("yes", False),
        ("1", False),
    ],
)
def test_allow_preemption_from_is_parse_boolean(text: str, allowed: bool) -> None:
    assert queue(f"<allowPreemptionFrom>{text}</allowPreemptionFrom>").allow_preemption_from is (
        allowed
    )


def test_max_running_apps() -> None:
    assert queue("<maxRunningApps> 7 </maxRunningApps>").max_running_apps == 7


# Values YARN accepts but that break scheduling: each gets a warning at its line.
NO_WAITING = (
    "so there is no waiting: a queue below its share counts as starved at once "
    "(FSLeafQueue compares the time since it was last at its share with the timeout)"
)
VALUE_WARNINGS = {
    "a NaN weight hangs the fair-share loop": (
        "<weight>NaN</weight>",
        '<weight> "NaN" gives weight NaN, which YARN accepts: the queue\'s fair share is then 0 '
        "at every step, so whenever its siblings cannot absorb the whole share (e.g. it is an "
        "only child) the doubling loop of ComputeFairShares never ends and YARN's "
        "update thread hangs",
    ),
    "an infinite weight takes everything": (
        "<weight>Infinity</weight>",
        '<weight> "Infinity" gives weight +Infinity, which YARN accepts: the queue takes its '
        "parent's whole share up to its maxResources (unbounded by default), leaving its "
        "siblings only their min shares",
    ),
    "a weight beyond the float range is infinite too": (
        "<weight>1e39</weight>",
        '<weight> "1e39" gives weight +Infinity, which YARN accepts: the queue takes its '
        "parent's whole share up to its maxResources (unbounded by default), leaving its "
        "siblings only their min shares",
    ),
    "a weight of minus infinity acts as zero": (
        "<weight>-Infinity</weight>",
        '<weight> "-Infinity" gives weight -Infinity, which YARN treats like 0: the queue gets '
        "only its min share",
    ),
    "a NaN threshold disables fair-share starvation": (
        "<fairSharePreemptionThreshold>NaN</fairSharePreemptionThreshold>",
        '<fairSharePreemptionThreshold> "NaN" is NaN, which YARN accepts: threshold × fair share '
        "is then 0, so no application is ever fair-share starved and fair-share preemption "
        "never happens",
    ),
    "a negative maxRunningApps admits nothing": (
        "<maxRunningApps>-1</maxRunningApps>",
        '<maxRunningApps> "-1" is negative: an application may run only while fewer than this '
        "many run, so none ever can (MaxRunningAppsEnforcer)",
    ),
    "a negative timeout means no waiting": (
        "<minSharePreemptionTimeout>-5</minSharePreemptionTimeout>",
        f'<minSharePreemptionTimeout> "-5" is negative: {NO_WAITING}',
    ),
    "a timeout that wraps negative starves at once": (
        "<fairSharePreemptionTimeout>9223372036854775807</fairSharePreemptionTimeout>",
        '<fairSharePreemptionTimeout> "9223372036854775807" seconds × 1000 overflows a Java long '
        f"and wraps to -1000 ms: {NO_WAITING}",
    ),
    "a timeout that wraps positive is not what was written": (
        "<minSharePreemptionTimeout>18446744073709552</minSharePreemptionTimeout>",
        '<minSharePreemptionTimeout> "18446744073709552" seconds × 1000 overflows a Java long and '
        "wraps to 384 ms: not the timeout that was written",
    ),
}


def _message_and_consequence(xml: str) -> list[tuple[int | None, str]]:
    return [(w.line, f"{w.message}: {w.consequence}" if w.consequence else w.message)
            for w in parse(xml).warnings]


@pytest.mark.parametrize(("body", "message"), VALUE_WARNINGS.values(), ids=VALUE_WARNINGS.keys())
def test_values_that_break_scheduling_warn(body: str, message: str) -> None:
    xml = f"<allocations>\n<queue name='a'>\n{body}\n</queue>\n</allocations>"
    assert _message_and_consequence(xml) == [(3, f"root.a: {message}")]


@pytest.mark.parametrize(
    "body",
    [
        "<weight>0</weight>",  # a queue that gets only its min share: a known technique
        "<weight>-1</weight>",
        "<maxRunningApps>0</maxRunningApps>",  # a closed queue
        "<minSharePreemptionTimeout>0</minSharePreemptionTimeout>",
        "<fairSharePreemptionTimeout>9223372036854775</fairSharePreemptionTimeout>",  # fits
        "<fairSharePreemptionThreshold>0</fairSharePreemptionThreshold>",
    ],
)
def test_deliberate_values_do_not_warn(body: str) -> None:
    # (a min-share timeout still gets lint's information that fair-share starvation is preferred)
    found = parse(f"<allocations><queue name='a'>{body}</queue></allocations>").warnings
    assert [w.message for w in found if w.severity != "info"] == []


@pytest.mark.parametrize(
    ("element", "message"),
    [
        (
            "<queueMaxAppsDefault>-2</queueMaxAppsDefault>",
            '<queueMaxAppsDefault> "-2" is negative: an application may run only while fewer '
            "than this many run, so none ever can (MaxRunningAppsEnforcer)",
        ),
        (
            "<userMaxAppsDefault>-2</userMaxAppsDefault>",
            '<userMaxAppsDefault> "-2" is negative: an application may run only while fewer '
            "than this many run, so none ever can (MaxRunningAppsEnforcer)",
        ),
        (
            "<defaultMinSharePreemptionTimeout>-1</defaultMinSharePreemptionTimeout>",
            f'<defaultMinSharePreemptionTimeout> "-1" is negative: {NO_WAITING}',
        ),
        (
            "<defaultFairSharePreemptionThreshold>NaN</defaultFairSharePreemptionThreshold>",
            '<defaultFairSharePreemptionThreshold> "NaN" is NaN, which YARN accepts: threshold × '
            "fair share is then 0, so no application is ever fair-share starved and fair-share "
            "preemption never happens",
        ),
        (
            "<user name='u'><maxRunningApps>-1</maxRunningApps></user>",
            'user "u": <maxRunningApps> "-1" is negative: an application may run only while '
            "fewer than this many run, so none ever can (MaxRunningAppsEnforcer)",
        ),
    ],
)
def test_top_level_values_that_break_scheduling_warn(element: str, message: str) -> None:
    assert _message_and_consequence(f"<allocations>\n{element}\n</allocations>") == [(2, message)]


@pytest.mark.parametrize(
    ("text", "policy"),
    [
        ("fair", PolicyName.FAIR),
        ("DRF", PolicyName.DRF),
        (" FiFo ", PolicyName.FIFO),
        (f"{POLICY_CLASS}FairSharePolicy", PolicyName.FAIR),
        (f"{POLICY_CLASS}DominantResourceFairnessPolicy", PolicyName.DRF),
        (f"{POLICY_CLASS}FifoPolicy", PolicyName.FIFO),
    ],
)
def test_scheduling_policy(text: str, policy: PolicyName) -> None:
    assert queue(f"<schedulingPolicy>{text}</schedulingPolicy>").scheduling_policy is policy
    assert queue(f"<schedulingMode>{text}</schedulingMode>").scheduling_policy is policy


def test_acls_are_not_trimmed() -> None:
    q = queue(
        "<aclSubmitApps> eng</aclSubmitApps><aclAdministerApps>alice </aclAdministerApps>"
        "<aclAdministerReservations>a</aclAdministerReservations>"
        "<aclListReservations> </aclListReservations>"
        "<aclSubmitReservations>*</aclSubmitReservations>"
    )
    assert (q.acl_submit_apps, q.acl_administer_apps) == (" eng", "alice ")
    assert (q.acl_administer_reservations, q.acl_list_reservations) == ("a", " ")
    assert q.acl_submit_reservations == "*"


def test_resources() -> None:
    q = queue(
        "<minResources>memory-mb=4096</minResources>"
        "<maxResources>memory-mb=8192</maxResources>"
        "<maxChildResources>50%</maxChildResources>"
        "<maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation>"
    )
    assert q.min_resources == res(4096, 0)  # new style: missing types are 0 for the minimum
    # ... Long.MAX_VALUE for a max, which vcores, an int in createResourceWithSameValue, takes as -1
    assert q.max_resources == ConfigurableResource(res(8192, -1))
    assert q.max_child_resources == ConfigurableResource(percentages=(0.5, 0.5))
    assert q.max_container_allocation == res(2048, 2)


def test_percentage_min_resources_mean_no_minimum_with_a_warning() -> None:
    xml = (
        "<allocations>\n<queue name='a'>\n<minResources>50%</minResources>\n</queue>\n"
        "</allocations>"
    )
    config = parse(xml)
    assert config.queues[0].min_resources is None
    [(line, code, message)] = [(w.line, w.code, str(w)) for w in config.warnings]
    assert (line, code) == (3, "min-share-percentage")
    assert "silently has no min share" in message


def test_percentage_max_container_allocation_is_unset_with_a_warning() -> None:
    xml = (
        "<allocations>\n<queue name='a'>\n"
        "<maxContainerAllocation>vcores=50%, memory-mb=25%</maxContainerAllocation>\n"
        "</queue>\n</allocations>"
    )
    config = parse(xml)
    assert config.queues[0].max_container_allocation is None
    assert [w.line for w in config.warnings] == [3]


def test_custom_resource_types() -> None:
    types = ResourceTypes.with_custom(["gpu"])
    config = parse_allocations_text(
        "<allocations><queue name='a'><minResources>memory-mb=1, gpu=2</minResources>"
        "<maxResources>gpu=4</maxResources></queue></allocations>",
        types=types,
    )
    assert config.queues[0].min_resources == res(1, 0, 2)
    # memory and the custom type left out are unbounded; vcores narrows to an int: -1
    assert config.queues[0].max_resources == ConfigurableResource(res(LONG_MAX, -1, 4))


def test_min_above_max_warns_and_keeps_both() -> None:
    xml = """<allocations>
  <queue name="a">
    <minResources>2048 mb, 1 vcores</minResources>
    <maxResources>1024 mb, 4 vcores</maxResources>
  </queue>
</allocations>"""
    config = parse(xml)
    assert config.queues[0].min_resources == res(2048, 1)
    [(line, message)] = [(w.line, str(w)) for w in config.warnings]
    assert line == 2
    assert "the min wins and the max share is 2048 MB, 4 vcores" in message


def test_min_against_percentage_max_is_not_checked() -> None:
    assert (
        warnings_of(
            "<allocations><queue name='a'><minResources>2048 mb, 1 vcores</minResources>"
            "<maxResources>1%</maxResources></queue></allocations>"
        )
        == []
    )


def test_unknown_queue_children_are_ignored_with_a_warning() -> None:
    """YARN ignores them silently (§1.2); we say so."""
    config = parse("<allocations><queue name='a'><colour>red</colour></queue></allocations>")
    assert config.queues == (QueueConfig("root.a", is_parent=False, line=1),)
    assert [(w.line, w.message) for w in config.warnings] == [
        (1, "root.a: <colour> is not a queue setting; YARN silently ignores it")
    ]


@pytest.mark.parametrize(
    ("tag", "meant"),
    [
        ("maxResource", "maxResources"),
        ("minSharePreemptionTimeOut", "minSharePreemptionTimeout"),
        ("schedulingpolicy", "schedulingPolicy"),
        ("maxAMshare", "maxAMShare"),
        ("aclSubmitApp", "aclSubmitApps"),
    ],
)
def test_a_misspelt_queue_setting_gets_a_suggestion(tag: str, meant: str) -> None:
    xml = f"<allocations>\n<queue name='a'>\n<{tag}>1</{tag}>\n</queue>\n</allocations>"
    config = parse(xml)
    assert config.queues == (QueueConfig("root.a", is_parent=False, line=2),)
    assert warnings_of(xml) == [
        (
            3,
            f"root.a: <{tag}> is not a queue setting; YARN silently ignores it; "
            f"did you mean <{meant}>?",
        )
    ]


def test_settings_are_stored_as_configured_not_inherited() -> None:
    """Inheritance (§1.3.3) belongs to the tree: unset settings stay None here."""
    config = parse(
        """<allocations>
  <defaultMinSharePreemptionTimeout>5</defaultMinSharePreemptionTimeout>
  <queue name="p">
    <fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>
    <allowPreemptionFrom>false</allowPreemptionFrom>
    <queue name="c"/>
  </queue>
</allocations>"""
    )
    child = config.queue("root.p.c")
    assert child == QueueConfig("root.p.c", is_parent=False, line=6)
    assert config.default_min_share_preemption_timeout_ms == 5_000
    assert config.queue("root") is None


# --- queue structure ------------------------------------------------------------------------


def test_tree_names_order_and_parent_detection() -> None:
    config = parse(
        """<allocations>
  <queue name="a">
    <queue name="b">
      <pool name="c"/>
    </queue>
    <queue name="d" type="parent"/>
  </queue>
  <pool name="e">
    <reservation/>
  </pool>
</allocations>"""
    )
    assert [(q.name, q.is_parent, q.line) for q in config.queues] == [
        ("root.a", True, 2),
        ("root.a.b", True, 3),
        ("root.a.b.c", False, 4),
        ("root.a.d", True, 6),
        ("root.e", True, 8),  # a plan queue is a parent internally (§1.8)
    ]
    assert config.queue("root.e") == QueueConfig("root.e", is_parent=True, line=8, reservation=True)


@pytest.mark.parametrize("tag", ["ueue", "eue", "e", "queue", "pool"])
def test_nested_queue_tag_quirk(tag: str) -> None:
    """YARN tests ``"queue".endsWith(tag)``, so odd tags nest queues too (§1.3.2)."""
    config = parse(f"<allocations><queue name='a'><{tag} name='b'/></queue></allocations>")
    assert config.queue_names == ("root.a", "root.a.b")


@pytest.mark.parametrize("tag", ["Queue", "queues", "pools", "Pool"])
def test_other_tags_do_not_nest(tag: str) -> None:
    config = parse(f"<allocations><queue name='a'><{tag} name='b'/></queue></allocations>")
    assert config.queue_names == ("root.a",)


def test_odd_tags_are_not_queues_at_the_top_level() -> None:
    xml = "<allocations>\n<ueue name='b'/>\n</allocations>"
    config = parse(xml)
    assert config.queues == ()
    assert [w.line for w in config.warnings] == [2]


def test_type_other_than_parent_means_leaf() -> None:
    config = parse("<allocations><queue name='a' type='Parent'/></allocations>")
    assert config.queues[0].is_parent is False


def test_names_are_trimmed_with_yarn_whitespace_table() -> None:
    config = parse("<allocations><queue name='\u3000a\u00a0 '/></allocations>")
    assert config.queue_names == ("root.a",)


def test_root_element_configures_root() -> None:
    config = parse(
        """<allocations>
  <queue name="root">
    <weight>2</weight>
    <queue name="a"/>
  </queue>
</allocations>"""
    )
    assert config.queues == (
        QueueConfig("root", is_parent=True, line=2, weight=2.0),
        QueueConfig("root.a", is_parent=False, line=4),
    )


def test_root_alone_may_set_max_am_share() -> None:
    """Without child elements root is a "leaf" in YARN's XML check, so maxAMShare passes."""
    config = parse(
        "<allocations><queue name='root'><maxAMShare>0.3</maxAMShare></queue></allocations>"
    )
    assert config.queues[0].is_parent is True


def test_root_in_another_case_is_a_queue_whose_settings_are_ignored() -> None:
    """YARN keeps the settings under "Root"/"Root.a" but creates root.Root/root.Root.a, whose
    lookups miss: the queues exist as configured, with no setting applied (§1.3.2)."""
    xml = """<allocations>
  <queue name='Root'>
    <weight>NaN</weight>
    <aclSubmitApps>alice</aclSubmitApps>
    <queue name='a'><maxRunningApps>-1</maxRunningApps></queue>
    <queue name='p' type='parent'/>
  </queue>
</allocations>"""
    config = parse(xml)
    assert config.queues == (
        QueueConfig("root.Root", is_parent=True, line=2, settings_ignored=True),
        QueueConfig("root.Root.a", is_parent=False, line=5, settings_ignored=True),
        QueueConfig("root.Root.p", is_parent=True, line=6, settings_ignored=True),
    )
    [(line, message)] = explained_warnings_of(xml)  # nothing about the NaN weight: unused
    assert line == 2
    assert message.startswith('queue "Root" is not "root": YARN keeps its settings under')
    assert "settings and ACLs, and those of the queues inside it, are ignored" in message


def test_settings_under_a_misnamed_root_must_still_parse() -> None:
    """YARN parses them before storing them under the wrong name: a bad value still fails."""
    xml = "<allocations>\n<queue name='ROOT'>\n<weight>heavy</weight>\n</queue>\n</allocations>"
    assert errors_of(xml) == [(3, 'root.ROOT: <weight> must be a number, got "heavy"')]


def test_duplicate_queue_definitions_merge_later_wins() -> None:
    xml = """<allocations>
  <queue name="a">
    <weight>2</weight>
    <maxRunningApps>3</maxRunningApps>
  </queue>
  <queue name="a">
    <weight>5</weight>
    <queue name="b"/>
  </queue>
</allocations>"""
    config = parse(xml)
    assert config.queues == (
        QueueConfig("root.a", is_parent=True, line=2, weight=5.0, max_running_apps=3),
        QueueConfig("root.a.b", is_parent=False, line=8),
    )
    assert [(w.line, "defined more than once" in w.message) for w in config.warnings] == [(6, True)]


# --- top-level elements (§1.3.1) ------------------------------------------------------------


def test_defaults_without_settings() -> None:
    config = parse("<allocations/>")
    assert config == AllocationConfig(source="fs.xml", has_file=True)
    assert (config.user_max_apps_default, config.queue_max_apps_default) == (INT_MAX, INT_MAX)
    assert config.queue_max_am_share_default == 0.5
    assert config.default_scheduling_policy is PolicyName.FAIR
    assert config.placement_policy is None


def test_top_level_settings() -> None:
    config = parse(
        """<allocations>
  <user name="bob"><maxRunningApps>3</maxRunningApps><weight>9</weight></user>
  <user name="eve"><maxRunningApps>1</maxRunningApps></user>
  <userMaxAppsDefault>5</userMaxAppsDefault>
  <queueMaxAppsDefault>10</queueMaxAppsDefault>
  <queueMaxResourcesDefault>40000 mb,0vcores</queueMaxResourcesDefault>
  <queueMaxAMShareDefault>2.5</queueMaxAMShareDefault>
  <defaultQueueSchedulingMode>drf</defaultQueueSchedulingMode>
  <defaultMinSharePreemptionTimeout>60</defaultMinSharePreemptionTimeout>
  <defaultFairSharePreemptionTimeout>120</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.5</defaultFairSharePreemptionThreshold>
  <reservation-agent> com.example.Agent </reservation-agent>
  <reservation-policy>com.example.Policy</reservation-policy>
  <reservation-planner>com.example.Planner</reservation-planner>
</allocations>"""
    )
    assert dict(config.user_max_apps) == {"bob": 3, "eve": 1}
    assert (config.user_max_apps_default, config.queue_max_apps_default) == (5, 10)
    # The documentation's own example: a literal 0-vcore cap for every queue (§1.3.1).
    assert config.queue_max_resources_default == ConfigurableResource(res(40000, 0))
    assert config.queue_max_am_share_default == 1.0
    assert config.default_scheduling_policy is PolicyName.DRF
    assert config.default_min_share_preemption_timeout_ms == 60_000
    assert config.default_fair_share_preemption_timeout_ms == 120_000
    assert config.default_fair_share_preemption_threshold == 1.0
    assert config.reservation_agent == "com.example.Agent"
    assert (config.reservation_policy, config.reservation_planner) == (
        "com.example.Policy",
        "com.example.Planner",
    )


def test_queue_max_resources_default_missing_vcores_narrow_to_minus_one() -> None:
    config = parse(
        "<allocations><queueMaxResourcesDefault>memory-mb=1</queueMaxResourcesDefault>"
        "</allocations>"
    )
    # ResourceUtils.createResourceWithSameValue(Long.MAX_VALUE): vcores is (int) Long.MAX_VALUE
    assert config.queue_max_resources_default == ConfigurableResource(res(1, -1))


@pytest.mark.parametrize(
    ("elements", "ms"),
    [
        ("<fairSharePreemptionTimeout>7</fairSharePreemptionTimeout>", 7_000),
        (
            "<fairSharePreemptionTimeout>junk</fairSharePreemptionTimeout>"
            "<defaultFairSharePreemptionTimeout>8</defaultFairSharePreemptionTimeout>",
            8_000,  # the legacy element is not even parsed when the new one is present
        ),
        ("", None),
    ],
    ids=["legacy-alone", "new-wins", "absent"],
)
def test_legacy_fair_share_timeout(elements: str, ms: int | None) -> None:
    config = parse(f"<allocations>{elements}</allocations>")
    assert config.default_fair_share_preemption_timeout_ms == ms


def test_last_duplicate_wins_with_a_warning() -> None:
    xml = """<allocations>
  <queueMaxAppsDefault>1</queueMaxAppsDefault>
  <queueMaxAppsDefault>2</queueMaxAppsDefault>
  <user name="u"><maxRunningApps>1</maxRunningApps></user>
  <user name="u"><maxRunningApps>4</maxRunningApps></user>
</allocations>"""
    config = parse(xml)
    assert config.queue_max_apps_default == 2
    assert dict(config.user_max_apps) == {"u": 4}
    assert [w.line for w in config.warnings] == [3]


def test_unknown_top_level_elements_warn() -> None:
    xml = "<allocations>\n<queue name='a'/>\n<queueMaxAMShare>0.2</queueMaxAMShare>\n</allocations>"
    config = parse(xml)
    assert [(w.line, w.message) for w in config.warnings] == [
        (
            3,
            "Bad element in allocations file: <queueMaxAMShare> is ignored; "
            "did you mean <queueMaxAMShareDefault>?",
        )
    ]


@pytest.mark.parametrize(
    ("tag", "hint"),
    [
        (
            "defaultFairSharePreemptionTimeOut",
            "; did you mean <defaultFairSharePreemptionTimeout>?",
        ),
        ("queuePlacementPolicies", "; did you mean <queuePlacementPolicy>?"),
        ("colour", ""),
    ],
)
def test_unknown_top_level_elements_get_a_suggestion_when_close(tag: str, hint: str) -> None:
    xml = f"<allocations>\n<{tag}>1</{tag}>\n</allocations>"
    assert warnings_of(xml) == [(2, f"Bad element in allocations file: <{tag}> is ignored{hint}")]


def test_unknown_user_children_warn() -> None:
    xml = (
        "<allocations>\n<user name='u'>\n<maxRunningApp>3</maxRunningApp>\n<colour/>\n</user>\n"
        "</allocations>"
    )
    assert warnings_of(xml) == [
        (3, 'user "u": <maxRunningApp> is ignored by YARN; did you mean <maxRunningApps>?'),
        (4, 'user "u": <colour> is ignored by YARN'),
    ]


def test_placement_policy_is_parsed() -> None:
    xml = """<allocations>
  <queuePlacementPolicy>
    <rule name="specified"/>
    <rule name="reject"/>
  </queuePlacementPolicy>
</allocations>"""
    config = parse(xml)
    assert config.placement_policy == PlacementPolicy(
        (PlacementRule(RuleName.SPECIFIED, line=3), PlacementRule(RuleName.REJECT, line=4))
    )
    assert config.placement_update_ignored is False


def test_last_placement_policy_wins() -> None:
    xml = """<allocations>
  <queuePlacementPolicy><rule name="user"/><rule name="reject"/></queuePlacementPolicy>
  <queuePlacementPolicy><rule name="reject"/></queuePlacementPolicy>
</allocations>"""
    policy = parse(xml).placement_policy
    assert policy == PlacementPolicy((PlacementRule(RuleName.REJECT, line=3),))


def test_placement_policy_without_rules_is_ignored() -> None:
    config = parse("<allocations><queuePlacementPolicy> </queuePlacementPolicy></allocations>")
    assert (config.placement_policy, config.placement_update_ignored) == (None, True)


def test_migration_mode_flags_reach_the_placement_parser() -> None:
    xml = (
        "<allocations><queuePlacementPolicy><rule name='user'/><rule name='default'/>"
        "</queuePlacementPolicy></allocations>"
    )
    config = parse_allocations_text(xml, migration_mode=True, no_terminal_rule_check=True)
    assert config.placement_policy is not None
    assert len(config.placement_policy.rules) == 2
    with pytest.raises(ConfigError, match="can never be reached"):
        parse_allocations_text(xml, no_terminal_rule_check=True)


# --- policy compatibility (§2.6.4), warnings only ---------------------------------------------


def test_policy_compatibility_warnings() -> None:
    xml = """<allocations>
  <queue name="p">
    <schedulingPolicy>fair</schedulingPolicy>
    <queue name="c"><schedulingPolicy>drf</schedulingPolicy></queue>
  </queue>
  <queue name="f" type="parent"><schedulingPolicy>fifo</schedulingPolicy></queue>
  <queue name="leaf"><schedulingPolicy>fifo</schedulingPolicy></queue>
  <queue name="d"><schedulingPolicy>drf</schedulingPolicy>
    <queue name="x"><schedulingPolicy>fair</schedulingPolicy></queue>
  </queue>
</allocations>"""
    warnings = explained_warnings_of(xml)
    assert [line for line, _ in warnings] == [4, 6, 8]
    assert warnings[0][1].startswith("root.p.c: scheduling policy drf is not allowed under fair")
    assert warnings[1][1].startswith("root.f: scheduling policy fifo is not allowed on a parent")
    assert "creating root.f fails" in warnings[1][1]
    # root is unconfigured, so it has the default policy, fair, which forbids drf children.
    assert warnings[2][1].startswith("root.d: scheduling policy drf is not allowed under fair root")


def test_a_fifo_root_warns_that_no_queue_can_be_created_under_it() -> None:
    # Hadoop 3.4: root has no child when the file is first applied, so its fifo is set, and
    # every queue is then refused under it (tests/core/model/test_tree.py shows both).
    xml = """<allocations>
  <queue name="root"><schedulingPolicy>fifo</schedulingPolicy>
    <queue name="a"/>
  </queue>
</allocations>"""
    [(line, message)] = explained_warnings_of(xml)
    assert line == 2
    assert message.startswith("root: scheduling policy fifo is not allowed on a parent queue: "
                              "yet YARN sets it at start-up")
    assert "applications cannot run anywhere" in message
    assert "creating root fails" not in message


def test_default_drf_under_an_explicit_fair_parent() -> None:
    xml = """<allocations>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
  <queue name="p">
    <schedulingPolicy>fair</schedulingPolicy>
    <queue name="c"/>
  </queue>
</allocations>"""
    warnings = warnings_of(xml)
    assert [line for line, _ in warnings] == [3, 5]
    assert "queues created under it by placement rules get the default policy drf" in warnings[0][1]
    assert (
        "drf (the defaultQueueSchedulingPolicy) is not allowed under fair root.p"
        in (warnings[1][1])
    )


def test_fifo_policy_class_as_the_default_is_accepted_with_a_warning() -> None:
    """YARN rejects only the word fifo (§2.6.4); the class name passes its check."""
    xml = (
        f"<allocations>\n<defaultQueueSchedulingPolicy>{POLICY_CLASS}FifoPolicy"
        "</defaultQueueSchedulingPolicy>\n</allocations>"
    )
    config = parse(xml)
    assert config.default_scheduling_policy is PolicyName.FIFO
    [(line, message)] = warnings_of(xml)
    assert line == 2
    assert message.startswith("<defaultQueueSchedulingPolicy> is FifoPolicy's class name")
    assert "root and every parent queue without its own <schedulingPolicy>" in message


def test_fifo_root_is_a_fifo_parent() -> None:
    xml = (
        "<allocations>\n<queue name='root'><schedulingPolicy>fifo</schedulingPolicy></queue>\n"
        "</allocations>"
    )
    assert [line for line, _ in warnings_of(xml)] == [2]


# --- files and safe XML ---------------------------------------------------------------------


def test_load_allocations_from_a_file(tmp_path: Path) -> None:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text("<allocations>\n<queue name='a'><weight>3</weight></queue>\n</allocations>")
    config = load_allocations(path)
    assert config.source == str(path)
    assert config.has_file is True
    assert config.queues == (QueueConfig("root.a", is_parent=False, line=2, weight=3.0),)


def test_load_allocations_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "fs.xml"
    path.write_text("<allocations>\n<queue name='a'><weight>x</weight></queue>\n</allocations>")
    with pytest.raises(ConfigError) as info:
        load_allocations(path)
    assert str(info.value) == f'{path}:2: root.a: <weight> must be a number, got "x"'


def test_load_allocations_with_custom_types(tmp_path: Path) -> None:
    path = tmp_path / "fs.xml"
    path.write_text(
        "<allocations><queue name='a'><minResources>gpu=1</minResources></queue></allocations>"
    )
    config = load_allocations(path, ResourceTypes.with_custom(["gpu"]))
    assert config.queues[0].min_resources == res(0, 0, 1)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read file"):
        load_allocations(tmp_path / "absent.xml")


def test_oversized_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "big.xml"
    with path.open("wb") as out:
        out.truncate(MAX_XML_BYTES + 1)
    with pytest.raises(ConfigError, match="too large"):
        load_allocations(path)


def test_an_endless_device_is_refused_without_being_read() -> None:
    """/dev/zero reports size 0 but never ends: only regular files are read."""
    with pytest.raises(ConfigError, match="not a regular file") as info:
        load_allocations("/dev/zero")
    assert info.value.file == "/dev/zero"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_without_a_writer_does_not_block(tmp_path: Path) -> None:
    path = tmp_path / "fifo.xml"
    os.mkfifo(path)
    with pytest.raises(ConfigError, match=r"not a regular file \(a FIFO\)"):
        load_allocations(path)


def test_a_directory_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read file"):
        load_allocations(tmp_path)


def test_oversized_text_is_rejected() -> None:
    text = "<allocations>" + " " * MAX_XML_BYTES + "</allocations>"
    with pytest.raises(ConfigError, match="too large"):
        parse(text)


BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE allocations [
  <!ENTITY lol "lol">
  <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<allocations><queue name="&lol9;"/></allocations>"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE allocations [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<allocations><queue name="a"><aclSubmitApps>&xxe;</aclSubmitApps></queue></allocations>"""


@pytest.mark.parametrize("xml", [BILLION_LAUGHS, EXTERNAL_ENTITY], ids=["laughs", "xxe"])
def test_entities_are_rejected_without_expansion(xml: str) -> None:
    with pytest.raises(ConfigError, match="entity") as info:
        parse(xml)
    assert "lol" not in str(info.value) and "root:" not in str(info.value)


def test_external_dtd_is_not_loaded() -> None:
    xml = (
        '<?xml version="1.0"?>\n'
        '<!DOCTYPE allocations SYSTEM "http://example.invalid/allocations.dtd">\n'
        "<allocations><queue name='a'/></allocations>"
    )
    assert parse(xml).queue_names == ("root.a",)


@pytest.mark.parametrize(
    "where",
    ["<queue name='&foo;'/>", "<queue name='a'><aclSubmitApps>&foo;</aclSubmitApps></queue>"],
    ids=["attribute", "text"],
)
def test_entity_references_with_an_external_dtd_are_rejected(where: str) -> None:
    """With an external DTD libxml2 lets undeclared entities pass; in an attribute they would
    silently vanish (and be reported as an empty queue name)."""
    xml = (
        '<?xml version="1.0"?>\n<!DOCTYPE allocations SYSTEM "allocations.dtd">\n'
        f"<allocations>\n{where}\n</allocations>"
    )
    assert errors_of(xml) == [
        (
            4,
            "Entity 'foo' not defined: entity references are not allowed (entities are never "
            "expanded, for safety)",
        )
    ]


def test_text_that_is_not_unicode_clean() -> None:
    with pytest.raises(ConfigError, match="UTF-8"):
        parse("<allocations>\ud800</allocations>")


def test_declared_encoding_of_text_is_ignored() -> None:
    """The text is already decoded: honouring ISO-8859-1 would turn é into Ã©."""
    xml = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>\n'
        "<allocations><queue name='café'/></allocations>"
    )
    assert parse(xml).queue_names == ("root.café",)


def test_declared_encoding_of_a_file_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "fs.xml"
    path.write_bytes(
        b'<?xml version="1.0" encoding="ISO-8859-1"?>\n'
        b"<allocations><queue name='caf\xe9'/></allocations>"
    )
    assert load_allocations(path).queue_names == ("root.café",)


# --- property: nothing but ConfigError escapes ------------------------------------------------

TAGS = [
    "allocations", "queue", "pool", "ueue", "user", "rule", "queuePlacementPolicy", "weight",
    "minResources", "maxResources", "maxChildResources", "maxContainerAllocation", "maxAMShare",
    "maxRunningApps", "schedulingPolicy", "schedulingMode", "aclSubmitApps", "reservation",
    "allowPreemptionFrom", "fairSharePreemptionThreshold", "minSharePreemptionTimeout",
    "defaultQueueSchedulingPolicy", "queueMaxResourcesDefault", "userMaxAppsDefault",
    "queueMaxAMShareDefault", "fairSharePreemptionTimeout", "reservation-agent", "x",
]  # fmt: skip
VALUES = [
    "", " ", "1", "-1", "0.5", "1e999", "NaN", "abc", "fair", "drf", "fifo", "root", "Root",
    "a.b", ".a", "default", "user", "specified", "reject", "nestedUserQueue", "primaryGroup",
    "parent", "true", "false", "*", " eng", "50%", "1024 mb, 1 vcores", "memory-mb=1",
    "memory-mb=50%", "9223372036854775808",
]  # fmt: skip


# Characters XML allows in text (others only make the document malformed, tested above).
XML_TEXT = st.text(
    st.characters(exclude_categories=("Cs", "Cc")) | st.sampled_from("\t\n "), max_size=6
)


def _element(draw: st.DrawFn, depth: int) -> str:
    tag = draw(st.sampled_from(TAGS))
    attributes = draw(
        st.dictionaries(
            st.sampled_from(["name", "type", "create", "queue"]),
            st.sampled_from(VALUES) | XML_TEXT,
            max_size=3,
        )
    )
    attrs = "".join(f" {k}={quoteattr(v)}" for k, v in sorted(attributes.items()))
    text = escape(draw(st.sampled_from(VALUES) | XML_TEXT))
    children = (
        "".join(_element(draw, depth + 1) for _ in range(draw(st.integers(0, 3))))
        if depth < 3
        else ""
    )
    return f"<{tag}{attrs}>{text}{children}</{tag}>"


@st.composite
def documents(draw: st.DrawFn) -> str:
    body = "".join(_element(draw, 1) for _ in range(draw(st.integers(0, 4))))
    root = draw(st.sampled_from(["allocations", "allocations", "queue"]))
    return f"<{root}>{body}</{root}>"


def _parse_or_config_error(text: str) -> None:
    with contextlib.suppress(ConfigError):
        parse_allocations_text(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_raises_only_config_error(text: str) -> None:
    _parse_or_config_error(text)


@settings(max_examples=200, deadline=None)
@given(documents())
def test_arbitrary_documents_raise_only_config_error(document: str) -> None:
    _parse_or_config_error(document)
