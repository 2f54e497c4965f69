"""The allocation file rebuilt from a Hadoop 3.4 dump (docs/import.md, "What is guessed").

The fixture ``dumps/drf12`` is a 12-node cluster (12 × 32,768 MB / 16 vcores = 393,216 MB / 192
vcores) as a 3.4.1 RM writes it: policy names ``DRF`` / ``fair`` / ``FIFO`` (each policy's
NAME), every resource with its ``resourceInformations``, unset min shares showing the
scheduler's min/max allocation. Its configuration, which the test must recover:

    root (DRF)
      prod     weight 3, DRF, maxRunningApps 2
        etl      weight 2, DRF            (maxAMShare 0.5, YARN's default)
        reports  weight 1, FIFO, maxRunningApps 1, maxAMShare 0.2
      default  weight 1, fair
      dev      weight 1, fair, minResources 98304 mb / 48 vcores, maxRunningApps 0

Steady shares by ComputeFairShares' rules (docs/semantics.md §2.3): under root, dev's weighted
share 393,216 / 5 = 78,643 MB is below its min share, so it gets 98,304 MB; default and prod
split the other 294,912 MB as 1 : 3 → 73,728 and 221,184 MB (vcores: dev 48, then 144 as
1 : 3 → 36 and 108). Under prod (DRF): 2 : 1 → 147,456 / 73,728 MB, 72 / 36 vcores.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fairshare.sim.importer.allocations import rebuild_allocations
from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.dump import read_dump
from fairshare.sim.importer.scenario_text import Choices

DRF12 = Path(__file__).resolve().parent / "dumps" / "drf12"


def _queue_xml(xml: str, name: str) -> str:
    """The text of ``<queue name="name">`` up to its first child queue or its end."""
    start = xml.index(f'<queue name="{name}">')
    end = min(i for i in (xml.find("<queue ", start + 1), xml.find("</queue>", start))
              if i > 0)
    return xml[start:end]


def test_upper_case_policies_are_read_as_yarn_reads_them() -> None:
    # before: every DRF queue was written without a policy (fair) and FIFO left out
    xml = rebuild_allocations(read_dump(DRF12).root, (393216, 192), "d").text
    assert "<schedulingPolicy>drf</schedulingPolicy>" in _queue_xml(xml, "root")
    assert "<schedulingPolicy>drf</schedulingPolicy>" in _queue_xml(xml, "prod")
    assert "<schedulingPolicy>drf</schedulingPolicy>" in _queue_xml(xml, "etl")
    assert "<schedulingPolicy>fifo</schedulingPolicy>" in _queue_xml(xml, "reports")
    assert "schedulingPolicy" not in _queue_xml(xml, "default")
    assert "is not one fairshare knows" not in xml and "is not fair, DRF" not in xml


def test_weights_are_read_from_the_steady_shares_of_the_siblings_not_held_by_a_bound() -> None:
    xml = rebuild_allocations(read_dump(DRF12).root, (393216, 192), "d").text
    assert "<weight>3</weight>" in _queue_xml(xml, "prod")  # 221,184 : 73,728
    assert "<weight>2</weight>" in _queue_xml(xml, "etl")  # 147,456 : 73,728
    assert "<weight>" not in _queue_xml(xml, "default") + _queue_xml(xml, "reports")
    # dev's 98,304 MB is its min share: the shares say nothing of its weight; the old reading
    # (its share over the smallest sibling's) gave it 1.333
    dev = _queue_xml(xml, "dev")
    assert "<weight>" not in dev and "its min share (98,304 MB)" in dev


def test_max_am_share_is_read_only_where_the_gauge_gives_it_exactly() -> None:
    xml = rebuild_allocations(read_dump(DRF12).root, (393216, 192), "d").text
    # reports: ceil(98,304 × 0.2f) = ceil(19,660.8003) = 19,661 MB, the gauge → 0.2
    assert "<maxAMShare>0.2</maxAMShare>" in _queue_xml(xml, "reports")
    # default: a gauge of 40,960 MB against a fair share of 98,304 MB is 0.4167, which no
    # two-decimal share gives (0.42 → 41,288 MB): computed under an older fair share, so
    # YARN's default 0.5 is the likelier value (the old reading wrote 0.42)
    default = _queue_xml(xml, "default")
    assert "<maxAMShare>" not in default and "has changed since" in default
    assert "<maxAMShare>" not in _queue_xml(xml, "etl")  # 98,304 of 196,608: the default


def test_a_custom_policy_class_is_left_out_and_said(tmp_path: Path) -> None:
    folder = tmp_path / "dump"
    shutil.copytree(DRF12, folder)
    doc = json.loads((folder / "scheduler.json").read_text())
    dev = doc["scheduler"]["schedulerInfo"]["rootQueue"]["childQueues"]["queue"][2]
    assert dev["queueName"] == "root.dev"
    dev["schedulingPolicy"] = "com.example.MyPolicy"
    (folder / "scheduler.json").write_text(json.dumps(doc))
    rebuilt = rebuild_allocations(read_dump(folder).root, (393216, 192), "d")
    assert any(g.startswith("root.dev: schedulingPolicy 'com.example.MyPolicy' is not fair, "
                            "DRF or FIFO") for g in rebuilt.guesses)


def test_every_guess_is_returned_for_the_terminal(tmp_path: Path) -> None:
    result = import_dump(DRF12, tmp_path / "out", Choices())
    xml = (tmp_path / "out" / "fair-scheduler.xml").read_text()
    assert "root.prod: <weight>3</weight>: weight guessed from the steady fair share " \
        "(221,184 MB) against root.default's (73,728 MB)" in "\n".join(result.guesses)
    assert "root.prod.reports: <maxAMShare>0.2</maxAMShare>: maxAMShare guessed" in \
        "\n".join(result.guesses)
    # one line per comment of the file, none only in the file
    comments = [line.strip()[5:-4] for line in xml.splitlines()
                if line.strip().startswith("<!-- ") and line.strip().endswith(" -->")]
    assert len(comments) == len(result.guesses) == 9
    assert all(any(g.endswith(c) for g in result.guesses) for c in comments)
