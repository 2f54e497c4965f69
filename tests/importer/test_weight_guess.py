"""Weights read back from steady fair shares (sim/importer/weights.py): the shares the engine
computes from the guessed weights are the shares they were read from."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fairshare.config.allocation import parse_allocations_text
from fairshare.core import (
    build_queue_tree,
    compute_steady_fair_shares,
    shares_with_active_leaves,
)
from fairshare.resources.vector import DEFAULT_TYPES
from fairshare.sim.importer.dump import DumpQueue
from fairshare.sim.importer.weights import guess_weights


def _leaf(name: str, steady: tuple[int, int], min_share: tuple[int, int] | None = None,
          max_share: tuple[int, int] | None = None) -> DumpQueue:
    return DumpQueue(name=name, leaf=True, policy="fair", min_resources=min_share,
                     max_resources=max_share, used=(0, 0), steady_fair=steady, fair=None,
                     am_max=None, max_apps=None, preemptable=True, children=(), line=1)


def _steady(weights: list[float], mins: list[int], cluster: int, drf: bool
            ) -> dict[str, tuple[int, int]]:
    """Steady shares by the engine for root's children q0… with these weights and min shares
    (memory; vcores a tenth of it)."""
    queues = "".join(f'<queue name="q{i}"><weight>{w:g}</weight>'
                     + (f"<minResources>{m} mb, {m // 10} vcores</minResources>" if m else "")
                     + "</queue>" for i, (w, m) in enumerate(zip(weights, mins, strict=True)))
    policy = "<schedulingPolicy>DRF</schedulingPolicy>" if drf else ""
    config = parse_allocations_text(f'<allocations><queue name="root">{policy}{queues}</queue>'
                                    "</allocations>")
    tree = build_queue_tree(config, DEFAULT_TYPES)
    shares = compute_steady_fair_shares(tree, DEFAULT_TYPES.of({"memory-mb": cluster,
                                                                "vcores": cluster // 10}))
    return {f"root.q{i}": (shares[f"root.q{i}"].values[0], shares[f"root.q{i}"].values[1])
            for i in range(len(weights))}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([0.5, 1, 1, 1, 1.5, 2, 3, 4, 5]), min_size=2, max_size=6),
       st.integers(20_000, 2_000_000), st.booleans())
def test_guessed_weights_give_back_the_steady_shares(weights: list[float], cluster: int,
                                                     drf: bool) -> None:
    shares = _steady(weights, [0] * len(weights), cluster, drf)
    children = [_leaf(name, s) for name, s in shares.items()]
    guessed = guess_weights(children, drf)
    assert all(g.read for g in guessed.values())
    again = _steady([guessed[c.name].weight for c in children], [0] * len(weights), cluster, drf)
    assert all(abs(a - b) <= 1 for n in shares for a, b in zip(shares[n], again[n], strict=True))
    # the weights are whole numbers with no common factor, or have the smallest at 1
    values = [guessed[c.name].weight for c in children]
    assert min(values) == 1 or all(v == int(v) for v in values)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.25, 0.5, 1, 1, 1, 2, 3, 5]),
                          st.sampled_from([0, 0, 0, 5_000, 20_000, 40_000]),
                          st.sampled_from([None, None, None, 8_000, 30_000])),
                min_size=2, max_size=6), st.integers(50_000, 500_000))
@example([(0.25, 20_000, None), (0.5, 0, 30_000)], 50_000)  # every child held: weights 1 fail
@example([(0.1, 0, None)] * 4 + [(0.1, 100_000, None), (0.25, 0, None), (7, 0, None)], 111_207)
def test_guessed_weights_give_back_steady_shares_bent_by_min_and_max_shares(
        queues: list[tuple[float, int, int | None]], cluster: int) -> None:
    """Children held at a bound get a weight that keeps them held (1 where 1 does)."""
    def xml(weights: list[float]) -> str:
        return "".join(
            f'<queue name="q{i}"><weight>{w:g}</weight>'
            + (f"<minResources>{m} mb, 0 vcores</minResources>" if m else "")
            + (f"<maxResources>{x} mb, 1000 vcores</maxResources>" if x else "") + "</queue>"
            for i, (w, (_, m, x)) in enumerate(zip(weights, queues, strict=True)))

    def steady(weights: list[float]) -> dict[str, int]:
        config = parse_allocations_text(f'<allocations><queue name="root">{xml(weights)}'
                                        "</queue></allocations>")
        shares = compute_steady_fair_shares(build_queue_tree(config, DEFAULT_TYPES),
                                            DEFAULT_TYPES.of({"memory-mb": cluster,
                                                              "vcores": 1000}))
        return {f"root.q{i}": shares[f"root.q{i}"].values[0] for i in range(len(queues))}

    shares = steady([w for w, _, _ in queues])
    children = [_leaf(f"root.q{i}", (shares[f"root.q{i}"], 0), (m, 0) if m else None,
                      (x, 1000) if x else None) for i, (_, m, x) in enumerate(queues)]
    guessed = guess_weights(children, False)
    again = steady([guessed[c.name].weight for c in children])
    assert all(abs(shares[n] - again[n]) <= 1 for n in shares), (shares, again, guessed)


def test_a_min_share_that_weight_1_would_pass_gets_a_smaller_weight() -> None:
    # weights 1, 1, 0.25 with min 30,000 on c, 100,000 MB: R + R + max(30,000, R / 4) gives
    # R = 35,000: c is held at 30,000, but weight 1 would give it 35,000 > 30,000, so a weight
    # up to 30,000 / 35,000 = 0.857 is written: 0.85
    guessed = guess_weights([_leaf("root.a", (35_000, 0)), _leaf("root.b", (35_000, 0)),
                             _leaf("root.c", (30_000, 0), (30_000, 0))], False)
    assert guessed["root.c"].weight == 0.85 and "up to 0.8571" in guessed["root.c"].why


def test_when_every_child_is_held_the_weights_keep_each_on_its_bound() -> None:
    # weights 0.25 and 0.5, min 20,000 MB on a, max 30,000 MB on b, 50,000 MB: YARN's cut
    # max(20,000, R / 4) + min(30,000, R / 2) = 50,000 holds for R from 60,000 to 80,000, so
    # the steady shares are 20,000 (a at its min) and 30,000 (b at its max): neither is free.
    # Weights 1 and 1 would need R ≤ 20,000 to keep a at its min and R ≥ 30,000 to keep b at
    # its max, and would give 25,000 each. Any b : a of 1.5 or more gives them back; taking
    # R = 20,000 keeps a at 1 and needs b ≥ 30,000 / 20,000 = 1.5: weight 2. (R = 30,000 would
    # keep b at 1 and need a ≤ 0.667, as many moved; the smaller R raises rather than lowers.)
    guessed = guess_weights([_leaf("root.a", (20_000, 0), (20_000, 0)),
                             _leaf("root.b", (30_000, 0), None, (30_000, 1_000))], False)
    assert (guessed["root.a"].weight, guessed["root.b"].weight) == (1.0, 2.0)
    assert not guessed["root.a"].read and guessed["root.b"].read
    assert "from 1.5 gives" in guessed["root.b"].why
    # and the engine's cut of those weights is the dump's, as R from 15,000 to 20,000 gives
    config = parse_allocations_text(
        '<allocations><queue name="root"><queue name="a"><minResources>20000 mb, 0 vcores'
        '</minResources></queue><queue name="b"><weight>2</weight><maxResources>30000 mb, '
        "1000 vcores</maxResources></queue></queue></allocations>")
    shares = compute_steady_fair_shares(build_queue_tree(config, DEFAULT_TYPES),
                                        DEFAULT_TYPES.of({"memory-mb": 50_000, "vcores": 1000}))
    assert (shares["root.a"].values[0], shares["root.b"].values[0]) == (20_000, 30_000)


def test_a_held_child_with_weights_1_that_agree_keeps_them() -> None:
    # a at its min 30,000 MB, b at its max 20,000 MB: R = 20,000 to 30,000 holds both at 1
    guessed = guess_weights([_leaf("root.a", (30_000, 0), (30_000, 0)),
                             _leaf("root.b", (20_000, 0), None, (20_000, 1_000))], False)
    assert [g.weight for g in guessed.values()] == [1.0, 1.0]
    assert not any(g.read for g in guessed.values())


def test_a_large_share_against_a_small_one_takes_the_whole_number_its_truncation_allows() -> None:
    # weights 0.1, 0.25 and 7 (2 : 5 : 140) truncated to 146, 366 and 10,257 MB. With the first
    # at 2, R is in [73, 73.5); 5 × R in [366, 367) puts it in [73.2, 73.4), 140 × R in
    # [10,257, 10,258) in [73.264, 73.271): one R gives all three. 10,257 / 146 × 2 = 140.5
    # rounds to 141, but 141 × R in [10,257, 10,258) needs R in [72.745, 72.752): no R.
    guessed = guess_weights([_leaf("root.a", (146, 0)), _leaf("root.b", (366, 0)),
                             _leaf("root.c", (10_257, 0))], False)
    assert [g.weight for g in guessed.values()] == [2.0, 5.0, 140.0]


def test_one_and_a_half_is_written_as_two_to_three() -> None:
    # 40,000 : 60,000 of 100,000 MB
    guessed = guess_weights([_leaf("root.a", (40_000, 0)), _leaf("root.b", (60_000, 0))], False)
    assert (guessed["root.a"].weight, guessed["root.b"].weight) == (2.0, 3.0)


def test_a_child_held_at_its_min_share_keeps_the_default() -> None:
    # weights 1, 1, 2 with min 60,000 on the last: R + R + max(60,000, 2R) = 100,000 gives
    # R = 20,000 and 2R = 40,000 below the min: 20,000, 20,000, 60,000, as weight 1 would
    shares = _steady([1, 1, 2], [0, 0, 60_000], 100_000, False)
    assert shares["root.q2"][0] == 60_000
    guessed = guess_weights([_leaf("root.q0", shares["root.q0"]),
                             _leaf("root.q1", shares["root.q1"]),
                             _leaf("root.q2", shares["root.q2"], (60_000, 6_000))], False)
    assert [g.weight for g in guessed.values()] == [1.0, 1.0, 1.0]
    assert not guessed["root.q2"].read and "its min share (60,000 MB)" in guessed["root.q2"].why


def test_a_weight_hidden_by_a_min_share_is_read_from_the_instantaneous_shares() -> None:
    # weights 1, 1, 2, min 60,000 MB on c, 100,000 MB: steady R + R + max(60,000, 2R) gives
    # R = 20,000, so c is held at its min. With a inactive, the instantaneous cut is
    # R + max(60,000, 2R) = 100,000: R = 33,333.3 and c's 66,667 is above its min, free:
    # 66,667 / 33,333 → weight 2
    config = parse_allocations_text(
        '<allocations><queue name="root"><queue name="a"/><queue name="b"/>'
        '<queue name="c"><weight>2</weight><minResources>60000 mb, 6 vcores</minResources>'
        "</queue></queue></allocations>")
    tree = build_queue_tree(config, DEFAULT_TYPES)
    steady, now = shares_with_active_leaves(
        tree, DEFAULT_TYPES.of({"memory-mb": 100_000, "vcores": 10}), ["root.b", "root.c"])
    assert steady["root.c"].values[0] == 60_000 and now.queues["root.c"].values[0] > 60_000

    def leaf(name: str, min_share: tuple[int, int] | None = None) -> DumpQueue:
        s, n = steady[name].values, now.queues[name].values
        return replace(_leaf(name, (s[0], s[1]), min_share), fair=(n[0], n[1]))

    guessed = guess_weights([leaf("root.a"), leaf("root.b"), leaf("root.c", (60_000, 6))],
                            False)
    assert [g.weight for g in guessed.values()] == [1.0, 1.0, 2.0]
    assert "instantaneous fair share" in guessed["root.c"].why
    assert "its min share (60,000 MB)" in guessed["root.c"].why


def test_a_zero_share_without_a_bound_is_a_zero_weight() -> None:
    guessed = guess_weights([_leaf("root.a", (50_000, 0)), _leaf("root.b", (50_000, 0)),
                             _leaf("root.c", (0, 0))], False)
    assert guessed["root.c"].weight == 0.0 and guessed["root.c"].read


def test_under_drf_a_child_held_in_memory_is_read_in_vcores() -> None:
    # a DRF parent of 100,000 MB / 100 vcores; a and b both hit a max of 10,000 MB, so memory
    # shows nothing; in vcores (no max) they split 100 as 1 : 3
    guessed = guess_weights([_leaf("root.a", (10_000, 25), None, (10_000, 100)),
                             _leaf("root.b", (10_000, 75), None, (10_000, 100))], True)
    assert (guessed["root.a"].weight, guessed["root.b"].weight) == (1.0, 3.0)
    assert "vcores" in guessed["root.b"].why


def test_a_ratio_that_is_no_simple_fraction_is_written_to_four_decimals() -> None:
    guessed = guess_weights([_leaf("root.a", (10_000, 0)), _leaf("root.b", (31_416, 0))], False)
    assert guessed["root.b"].weight == 3.1416 and "4 decimals" in guessed["root.b"].why
