"""What the REST layer and the pages keep between requests and samples must give exactly what
the plain paths give: the whole answers kept per snapshot (``jersey.ANSWERS``), the nodes'
texts kept by their records (whether the snapshots reuse the records of an unchanged node or
copy them), the reservations by app, and the pages' records read once (``SampleReader``).
Every expected value is the generic path's: the document of the DAO written by
``to_json``/``to_xml``, and ``sample_of`` of the same answers."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.server.pages import answers_and_records, answers_of
from fairshare.server.rest import daos
from fairshare.server.rest.dao_apps import allowed_of, apps_answer, selected
from fairshare.server.rest.dao_cluster import info_answer, metrics_answer, scheduler_answer
from fairshare.server.rest.dao_nodes import nodes_answer, nodes_json
from fairshare.server.rest.jersey import PerSnapshot, to_json, to_xml
from fairshare.server.rest.query import apps_query, node_states
from fairshare.server.view import RMAppView, ServerSnapshot
from fairshare.sim.importer.dump import DumpNode
from fairshare.sim.sources.workload import TaskGroup
from fairshare.web.answers import AnswerError, SampleReader, _is_join, _with_beat, sample_of
from tests.server.loopkit import mb, running_loop, settle, submission

TS = 1_800_000_000_000


def _query(**kw: object) -> object:
    fields: dict[str, object] = dict(
        state=None, states=[], final_status=None, user=None, queue=None, limit=None,
        started_begin=None, started_end=None, finished_begin=None, finished_end=None,
        application_types=[], application_tags=[], name=None, deselects=[])
    fields.update(kw)
    return apps_query(**fields)  # type: ignore[arg-type]


def _check_answers(s: ServerSnapshot) -> None:
    """Every kept answer of ``s``, asked twice, is the generic writer's."""
    for xml in (False, True):
        write = to_xml if xml else to_json
        for _ in range(2):  # the second from the memo
            assert scheduler_answer(s, xml) == write(daos.scheduler(s))
            assert metrics_answer(s, xml) == write(daos.cluster_metrics(s))
            assert info_answer(s, xml) == write(daos.cluster_info(s))
            ordered = daos.node_order(s.nodes)
            assert nodes_answer(s, node_states(None), xml=xml) == write(daos.nodes(s, ordered))
            assert nodes_answer(s, None, xml=xml) == write(daos.nodes(s, ordered))
            running = frozenset({"RUNNING"})
            assert nodes_answer(s, running, xml=xml) == write(daos.nodes(
                s, [n for n in ordered if n.state == "RUNNING"]))
            for query, kw in ((_query(), {"caller": "alice"}),
                              (_query(), {"caller": "bob", "rm_address": "rm:8088"}),
                              (_query(deselects=["timeouts"]), {"caller": "alice"}),
                              (_query(states=["RUNNING"]), {}),
                              (_query(), {"access": False}),
                              (_query(), {"access": lambda a: a.id.endswith("1")})):
                chosen = selected(s, query, query.select)  # type: ignore[attr-defined]
                assert chosen == query.select(daos.app_order(s, s.apps))  # type: ignore[attr-defined]
                got = apps_answer(s, query, chosen, xml=xml,
                                  deselects=query.deselects, **kw)  # type: ignore[attr-defined,arg-type]
                assert got == write(daos.apps(s, chosen, deselects=query.deselects,  # type: ignore[attr-defined]
                                              **kw))  # type: ignore[arg-type]


def test_kept_answers_are_the_generic_ones_over_changing_snapshots(tmp_path: Path) -> None:
    with running_loop(tmp_path, nodes=4, journal=False) as (loop, clock):
        settle(loop, clock, 1000)
        _check_answers(loop.snapshot())
        for n, ms in ((1, 2000), (2, 60_000), (3, 60_000)):
            loop.submit(submission(f"application_{TS}_000{n}", "root.a" if n % 2 else "root.b",
                                   tasks=(TaskGroup(2, mb(3072), ms),)))
        seen = []
        for ms in (2000, 3000, 4000, 6000, 7000):
            if ms == 4000:
                loop.kill(f"application_{TS}_0003", "alice", None)
                loop.decommission_node("node2:45454", None)
            settle(loop, clock, ms)
            s = loop.snapshot()
            _check_answers(s)
            seen.append(scheduler_answer(s) + nodes_answer(s))
        assert len(set(seen)) == len(seen)  # each snapshot's own answers, none kept too long
        first = loop.snapshot()
        settle(loop, clock, 8000)
        _check_answers(first)  # an older snapshot read after a newer one: its own answers


def test_the_view_of_each_app_is_in_the_key_not_the_caller(tmp_path: Path) -> None:
    """With ACLs on, the authorizer is asked about every app at every request (as without the
    memo): an answer is kept by what the caller may see, so two callers who see the same share
    it, and a changed mind (an app's ACLs remembered meanwhile) is a different answer."""
    with running_loop(tmp_path, nodes=2, journal=False) as (loop, clock):
        for n in (1, 2):
            loop.submit(submission(f"application_{TS}_000{n}", "root.a",
                                   tasks=(TaskGroup(1, mb(1024), 60_000),)))
        settle(loop, clock, 3000)
        s = loop.snapshot()
        query = _query()
        chosen = selected(s, query, query.select)  # type: ignore[attr-defined]
        viewers = {"alice"}

        def access(a: RMAppView) -> bool:
            return "carol" in viewers

        def answer(caller: str) -> bytes:
            return apps_answer(s, query, chosen, caller=caller, access=access)

        def plain() -> bytes:
            return to_json(daos.apps(s, chosen, access=access))

        hidden = answer("carol")
        assert hidden == plain() and b'"startedTime":0' in hidden
        viewers.add("carol")  # the authorizer changed its mind in the same snapshot
        shown = answer("carol")
        assert shown == plain() and shown != hidden
        assert allowed_of(s, chosen, "dave", access) == b"\x01\x01"
        assert answer("dave") is shown  # the same view: the same kept answer


def _nodes_plain(s: ServerSnapshot) -> bytes:
    return to_json(daos.nodes(s, daos.node_order(s.nodes)))


def test_node_texts_follow_reused_and_copied_records(tmp_path: Path) -> None:
    """The snapshots may reuse an unchanged node's records (the same objects) or copy them;
    either way, and as records change under a reused other half, the text is the writer's."""
    with running_loop(tmp_path, nodes=3, journal=False) as (loop, clock):
        loop.submit(submission(f"application_{TS}_0001", "root.a",
                               tasks=(TaskGroup(2, mb(2048), 60_000),)))
        settle(loop, clock, 3000)
        s0 = loop.snapshot()
        assert nodes_json(s0, daos.node_order(s0.nodes)) == _nodes_plain(s0)
        # a heartbeat later: the RM records that name their own heartbeat (new ones), the
        # scheduler's reused
        s1 = replace(s0, nodes=tuple(replace(n, last_heartbeat_ms=s0.last_heartbeat(n) + 1000)
                                     for n in s0.nodes))
        # every record copied, equal
        s2 = replace(s1, nodes=tuple(replace(n) for n in s1.nodes),
                     engine=replace(s1.engine, nodes=tuple(replace(x) for x in s1.engine.nodes)))
        # the RM records reused, a scheduler record changed (its containers ended)
        busy = next(x for x in s2.engine.nodes if x.containers)
        s3 = replace(s2, engine=replace(s2.engine, nodes=tuple(
            replace(x, allocated=mb(0, 0), containers=()) if x is busy else x
            for x in s2.engine.nodes)))
        # the scheduler's reused, an RM record changed (unhealthy, with a report)
        s4 = replace(s3, nodes=tuple(
            replace(n, state="UNHEALTHY", health_report='disk "full"')
            if n.id == busy.name else n for n in s3.nodes))
        # a node lost: no scheduler record any more
        s5 = replace(s4, nodes=tuple(replace(n, state="LOST") if n.id == busy.name else n
                                     for n in s4.nodes))
        # the records reused, the heartbeat round moved (records naming none of their own)
        s6 = replace(s0, heartbeat_ms=s0.heartbeat_ms + 2000)
        assert all(n.last_heartbeat_ms is None for n in s0.nodes)
        # a report of control characters: escaped in the text, never taken for the place of
        # a heartbeat in the whole answer
        s7 = replace(s6, nodes=tuple(replace(n, state="UNHEALTHY", health_report="a\x00b\n")
                                     if n.id == busy.name else n for n in s6.nodes))
        answers = []
        for s in (s1, s2, s3, s4, s5, s0, s6, s3, s1, s5, s0, s7, s6):  # and back: older ones
            got = nodes_json(s, daos.node_order(s.nodes))
            assert got == _nodes_plain(s)
            # the whole answer, from the last one's pieces where the RM records are the same
            assert nodes_answer(s) == got
            answers.append(got)
        assert answers[0] == answers[1]  # copies of equal records: the same answer
        assert len(set(answers[1:7])) == 6
        assert answers[10] == answers[5]
        assert json.loads(answers[6])["nodes"]["node"][0]["lastHealthUpdate"] == \
            s0.heartbeat_ms + 2000
        assert b'"healthReport":"disk \\"full\\""' in answers[3]
        assert b'"healthReport":"a\\u0000b\\n"' in answers[11]


def test_reservations_are_counted_once_per_snapshot_and_right(tmp_path: Path) -> None:
    """An app's reservedMB is the sum of its reservations over the nodes (the nodes of the
    engine snapshot, set here: nothing reserves on an idle test cluster)."""
    with running_loop(tmp_path, nodes=3, journal=False) as (loop, clock):
        app_id = f"application_{TS}_0001"
        loop.submit(submission(app_id, "root.a", tasks=(TaskGroup(1, mb(1024), 60_000),)))
        settle(loop, clock, 3000)
        s = loop.snapshot()
        from fairshare.core.snapshot import ReservationSnapshot
        held = [ReservationSnapshot(app_id, mb(2048, 2)), ReservationSnapshot(app_id, mb(512)),
                ReservationSnapshot("application_x_9", mb(4096))]
        engine = replace(s.engine, nodes=tuple(replace(x, reservation=r)
                                               for x, r in zip(s.engine.nodes, held,
                                                               strict=True)))
        r = replace(s, engine=engine)
        listed = daos.app_order(r, r.apps)
        answer = daos.apps_json(r, listed)
        assert b'"reservedMB":2560,"reservedVCores":3' in answer  # 2048 + 512, 2 + 1
        assert answer == to_json(daos.apps(r, listed))
        assert b'"reservedMB":0,' in daos.apps_json(s, daos.app_order(s, s.apps))


def test_the_pages_reader_gives_sample_ofs_sample(tmp_path: Path) -> None:
    reader = SampleReader()
    with running_loop(tmp_path, nodes=4, journal=False) as (loop, clock):
        for n, ms in ((1, 2000), (2, 60_000)):
            loop.submit(submission(f"application_{TS}_000{n}", "root.a",
                                   tasks=(TaskGroup(2, mb(3072), ms),)))
        for ms in (1000, 3000, 4000, 5000, 9000, 10_000):
            if ms == 5000:
                loop.remove_node("node4:45454")
            settle(loop, clock, ms)
            s = loop.snapshot()
            texts, records = answers_and_records(s)
            assert texts == answers_of(s)
            expected = sample_of(texts, rm="rm", time_ms=s.now_ms)
            assert reader.sample(texts, records, rm="rm", time_ms=s.now_ms) == expected
            # and again: every record from what the reader kept
            assert reader.sample(texts, records, rm="rm", time_ms=s.now_ms) == expected
        assert any(n.state == "LOST" for n in expected.other_nodes)
        # read from the records, not by sample_of: every record kept for the next sample
        assert len(reader._nodes) == 4 and len(reader._apps) == 2


def test_the_pages_reader_of_an_idle_server_reads_its_nodes_from_their_records(
        tmp_path: Path) -> None:
    """No apps (YARN leaves the empty list out: ``{"apps":{}}``, no records): the apps
    answer is read alone, and the nodes' records are still read once each, not the whole
    answers again."""
    reader = SampleReader()
    with running_loop(tmp_path, nodes=3, journal=False) as (loop, clock):
        for ms in (1000, 2000):
            settle(loop, clock, ms)
            s = loop.snapshot()
            texts, records = answers_and_records(s)
            assert records["apps.json"] == [] and texts["apps.json"] == '{"apps":{}}'
            expected = sample_of(texts, rm="rm", time_ms=s.now_ms)
            assert reader.sample(texts, records, rm="rm", time_ms=s.now_ms) == expected
            assert expected.apps == () and len(expected.nodes) == 3
            assert len(reader._nodes) == 3  # kept: read from the records


_BITS = st.text(alphabet=",ab{}", max_size=4)  # commas and braces: where a join can slip


@settings(max_examples=500, deadline=None)
@given(st.lists(_BITS, min_size=1, max_size=5), _BITS, _BITS, _BITS)
def test_the_readers_join_check_is_the_joins_equality(parts: list[str], head: str,
                                                       tail: str, other: str) -> None:
    joined = head + ",".join(parts) + tail
    assert _is_join(joined, head, parts, tail)
    for text in (joined + other, other + joined, other, joined[:-1],
                 joined.replace("a", "b", 1), joined.replace(",", "", 1)):
        assert _is_join(text, head, parts, tail) == (text == joined)


def test_a_nodes_new_heartbeat_is_put_back_as_replace_puts_it() -> None:
    node = DumpNode("h1", "h1:8042", "/r", (1024, 1), (0, 0), 1, 0, "h1:45454", "RUNNING",
                    5, "fine")
    for beat in (5, 6, 0):
        assert _with_beat(node, beat) == replace(node, last_health_update_ms=beat)
        assert hash(_with_beat(node, beat)) == hash(replace(node, last_health_update_ms=beat))
    assert node.last_health_update_ms == 5  # the kept one untouched


def _one_node(beat: int, report: str = "", host: str = "h1") -> str:
    return (f'{{"rack":"/r","state":"RUNNING","id":"{host}:1","nodeHostName":"{host}",'
            f'"nodeHTTPAddress":"{host}:2","lastHealthUpdate":{beat},"healthReport":'
            f'"{report}","numContainers":0,"usedMemoryMB":0,"availMemoryMB":1024,'
            '"usedVirtualCores":0,"availableVirtualCores":1}')


def test_the_pages_reader_over_odd_records(tmp_path: Path) -> None:
    """Records it cannot be sure of are read by sample_of: a text that is not the records'
    join, a record that is two, one listed twice (sample_of's error), a report that spells
    the heartbeat's key; two nodes of one host are named by their ids, as read_nodes does."""
    with running_loop(tmp_path, nodes=1, journal=False) as (loop, clock):
        settle(loop, clock, 1000)
        texts, _ = answers_and_records(loop.snapshot())
    reader = SampleReader()

    def both(nodes: list[str], text: str | None = None) -> object:
        answers = dict(texts, **{"nodes.json": text or
                                 f'{{"nodes":{{"node":[{",".join(nodes)}]}}}}'})
        records = {"nodes.json": nodes}
        try:
            expected: object = sample_of(answers, rm="rm", time_ms=1)
        except AnswerError as e:
            expected = e.message
        try:
            got: object = reader.sample(answers, records, rm="rm", time_ms=1)
        except AnswerError as e:
            got = e.message
        assert got == expected
        return got

    tricky = _one_node(5, report='x\\"lastHealthUpdate\\":7')
    for beats in ((5, 6), (6, 6), (7, 5)):
        both([_one_node(beats[0]), _one_node(beats[1], host="h2")])
        both([tricky, _one_node(beats[1], host="h2")])
    sample = both([_one_node(1), _one_node(2).replace('"id":"h1:1"', '"id":"h1:9"')])
    assert [n.name for n in sample.nodes] == ["h1:1", "h1:9"]  # type: ignore[attr-defined]
    assert "listed twice" in str(both([_one_node(1), _one_node(2)]))
    both([f"{_one_node(1)},{_one_node(2, host='h2')}"])  # one record's text is two
    both([_one_node(1)], text=f'{{"nodes":{{"node":[{_one_node(3)}]}}}}')  # not their join
    both([_one_node(1).replace('"availMemoryMB":1024', '"availMemoryMB":-1')])  # a bad field


def test_per_snapshot_keeps_the_last_few_and_makes_each_value_once() -> None:
    kept: PerSnapshot[bytes] = PerSnapshot(2, budget=10, size=len)
    owners = [object() for _ in range(3)]
    made: list[str] = []
    gate = threading.Event()

    def make(value: bytes) -> bytes:
        gate.wait(5)
        made.append(value.decode())
        return value

    threads = [threading.Thread(target=kept.get, args=(owners[0], "k", lambda: make(b"a")))
               for _ in range(8)]
    for t in threads:
        t.start()
    gate.set()
    for t in threads:
        t.join()
    assert made == ["a"]  # eight readers, one made it
    assert kept.get(owners[0], "big", lambda: make(b"x" * 20)) == b"x" * 20
    assert kept.get(owners[0], "big", lambda: make(b"y" * 20)) == b"y" * 20  # over budget
    kept.get(owners[1], "k", lambda: make(b"b"))
    kept.get(owners[2], "k", lambda: make(b"c"))  # the first owner's values dropped
    assert kept.get(owners[0], "k", lambda: make(b"d")) == b"d"
    assert kept.get(owners[2], "k", lambda: make(b"e")) == b"c"
