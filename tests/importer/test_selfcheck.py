"""The import checks itself: fairshare's steady and instantaneous fair shares for the imported
state against the dump's ``steadyFairResources`` / ``fairResources`` (docs/import.md).

The fixture ``dumps/drf12`` and its steady shares are described in test_rebuilt_allocations.py.
Its instantaneous shares, by hand: the active leaves are default (an app waiting for its AM
that maxApps lets run), prod.etl and prod.reports (running apps); dev's waiting app is held by
its maxRunningApps 0, so dev is inactive and fixed at 0 whatever its min share
(docs/semantics.md §2.4). Root (DRF) cuts 393,216 MB between default and prod as 1 : 3 →
98,304 and 294,912 MB (vcores 48 and 144); prod cuts 294,912 MB as 2 : 1 → 196,608 / 98,304 MB
(vcores 96 / 48).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.dump import read_dump
from fairshare.sim.importer.scenario_text import Choices
from fairshare.sim.importer.selfcheck import ShareCheck, active_leaves

DRF12 = Path(__file__).resolve().parent / "dumps" / "drf12"

ALLOCATIONS = """<allocations><queue name="root"><schedulingPolicy>DRF</schedulingPolicy>
  <queue name="prod"><weight>{prod}</weight><schedulingPolicy>DRF</schedulingPolicy>
    <maxRunningApps>2</maxRunningApps>
    <queue name="etl"><weight>2</weight><schedulingPolicy>DRF</schedulingPolicy></queue>
    <queue name="reports"><schedulingPolicy>FIFO</schedulingPolicy>
      <maxRunningApps>1</maxRunningApps><maxAMShare>0.2</maxAMShare></queue>
  </queue>
  <queue name="default"/>
  <queue name="dev"><minResources>98304 mb, 48 vcores</minResources>
    <maxRunningApps>0</maxRunningApps></queue>
</queue></allocations>"""


def _queues(doc: dict[str, Any]) -> list[dict[str, Any]]:
    todo, found = [doc["scheduler"]["schedulerInfo"]["rootQueue"]], []
    while todo:
        q = todo.pop()
        found.append(q)
        todo += (q.get("childQueues") or {}).get("queue", [])
    return found


def test_the_fixture_holds_the_shares_worked_out_by_hand() -> None:
    doc = json.loads((DRF12 / "scheduler.json").read_text())
    shares = {q["queueName"]: ((q["steadyFairResources"]["memory"],
                                q["steadyFairResources"]["vCores"]),
                               (q["fairResources"]["memory"], q["fairResources"]["vCores"]))
              for q in _queues(doc)}
    assert shares == {
        "root": ((393216, 192), (393216, 192)),
        "root.prod": ((221184, 108), (294912, 144)),
        "root.prod.etl": ((147456, 72), (196608, 96)),
        "root.prod.reports": ((73728, 36), (98304, 48)),
        "root.default": ((73728, 36), (98304, 48)),
        "root.dev": ((98304, 48), (0, 0)),
    }


def test_the_active_leaves_are_those_with_a_runnable_app() -> None:
    dump = read_dump(DRF12)
    # etl's second app is held by prod's maxRunningApps 2, dev's by its own 0
    assert active_leaves(dump.root, dump.apps) == ("root.default", "root.prod.etl",
                                                   "root.prod.reports")


def test_the_rebuilt_file_reproduces_every_share_of_the_dump(tmp_path: Path) -> None:
    result = import_dump(DRF12, tmp_path / "out", Choices())
    assert result.check is not None
    assert result.check.differences == () and result.check.compared == 6
    assert result.check.summary().startswith(
        "Self-check: the steady and instantaneous fair shares of all 6 queues match the RM's "
        "(within 1 MB / 1 vcore; 3 active leaf queues")


def test_a_wrong_weight_shows_at_once_with_both_values(tmp_path: Path) -> None:
    # prod at weight 2 instead of 3. Steady: default R, prod 2R, dev max(98,304, R): 3R =
    # 294,912 → R = 98,304: default 98,304, prod 196,608 (vcores 3R = 144 → 48, 96); prod's
    # children 2 : 1 → 131,072 / 65,536 MB, 64 / 32 vcores. Instantaneous (dev inactive):
    # 3R = 393,216 → default 131,072, prod 262,144 (vcores 64, 128). Prod's 2 : 1 split of
    # 262,144 MB is not in whole thirds: the bisection keeps the upper bound of the smallest
    # ratio whose *truncated* shares add up to the total (§2.3), R = 87,381.5 → 174,763 and
    # 87,381 MB; of 128 vcores, R = 43 → 86 and 43 (129 in all). Root and dev agree.
    mine = tmp_path / "fair-scheduler.xml"
    mine.write_text(ALLOCATIONS.format(prod=2))
    result = import_dump(DRF12, tmp_path / "out", Choices(), allocations=mine)
    assert result.check is not None
    assert list(result.check.differences) == [
        "root.prod: steady fair share: the RM 221,184 MB, 108 vcores, fairshare 196,608 MB, "
        "96 vcores",
        "root.prod: instantaneous fair share: the RM 294,912 MB, 144 vcores, fairshare "
        "262,144 MB, 128 vcores",
        "root.prod.etl: steady fair share: the RM 147,456 MB, 72 vcores, fairshare 131,072 MB, "
        "64 vcores",
        "root.prod.etl (active): instantaneous fair share: the RM 196,608 MB, 96 vcores, "
        "fairshare 174,763 MB, 86 vcores",
        "root.prod.reports: steady fair share: the RM 73,728 MB, 36 vcores, fairshare "
        "65,536 MB, 32 vcores",
        "root.prod.reports (active): instantaneous fair share: the RM 98,304 MB, 48 vcores, "
        "fairshare 87,381 MB, 43 vcores",
        "root.default: steady fair share: the RM 73,728 MB, 36 vcores, fairshare 98,304 MB, "
        "48 vcores",
        "root.default (active): instantaneous fair share: the RM 98,304 MB, 48 vcores, "
        "fairshare 131,072 MB, 64 vcores",
    ]
    assert result.check.summary().startswith("Self-check: 8 fair shares differ")


def test_the_cluster_s_own_file_matches(tmp_path: Path) -> None:
    mine = tmp_path / "fair-scheduler.xml"
    mine.write_text(ALLOCATIONS.format(prod=3))
    result = import_dump(DRF12, tmp_path / "out", Choices(), allocations=mine)
    assert result.check is not None and result.check.differences == ()


def test_a_drf_queue_written_as_fair_would_lose_its_vcore_shares(tmp_path: Path) -> None:
    # what the import used to write: no policy, so fair everywhere, and fair writes memory
    # only (§2.6.1): every vcore share below root is 0
    mine = tmp_path / "fair-scheduler.xml"
    mine.write_text(ALLOCATIONS.format(prod=3).replace(
        "<schedulingPolicy>DRF</schedulingPolicy>", ""))
    result = import_dump(DRF12, tmp_path / "out", Choices(), allocations=mine)
    assert result.check is not None
    assert ("root.prod: steady fair share: the RM 221,184 MB, 108 vcores, fairshare 221,184 MB, "
            "0 vcores") in result.check.differences


def test_a_queue_the_file_lacks_is_created_as_yarn_creates_a_dynamic_one(tmp_path: Path) -> None:
    # the dump shows root.default, the given file does not configure it: YARN made it when an
    # app was placed there, and so does the check (its weight 1, the default)
    mine = tmp_path / "fair-scheduler.xml"
    mine.write_text(ALLOCATIONS.format(prod=3).replace('<queue name="default"/>', ""))
    result = import_dump(DRF12, tmp_path / "out", Choices(), allocations=mine)
    assert result.check is not None
    assert result.check.differences == () and result.check.compared == 6


def test_an_app_state_change_between_the_files_shows_as_an_activity_difference(
        tmp_path: Path) -> None:
    folder = tmp_path / "dump"
    shutil.copytree(DRF12, folder)
    apps = json.loads((folder / "apps.json").read_text())
    apps["apps"]["app"] = [a for a in apps["apps"]["app"] if a["queue"] != "root.default"]
    (folder / "apps.json").write_text(json.dumps(apps))
    result = import_dump(folder, tmp_path / "out", Choices())
    assert result.check is not None
    assert ("root.default (inactive): instantaneous fair share: the RM 98,304 MB, 48 vcores, "
            "fairshare 0 MB, 0 vcores") in result.check.differences


def test_the_summary_names_at_most_five_active_leaves() -> None:
    check = ShareCheck(9, tuple(f"root.q{i}" for i in range(7)), ())
    assert check.summary().endswith("7 active leaf queues (root.q0, root.q1, root.q2, root.q3, "
                                    "root.q4 and 2 more)).")
    assert "1 fair share differs" in ShareCheck(9, (), ("x",)).summary()
    assert "no active leaf queue" in ShareCheck(9, (), ()).summary()
