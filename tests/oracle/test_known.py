"""A known difference covers one scenario's first divergence exactly: a new one in the same
scenario, at another step or of another type, is not hidden by it."""

from __future__ import annotations

import pytest

from oracle import known as known_module
from oracle.compare import Divergence
from oracle.known import KNOWN, KnownDifference, known_difference


def test_a_known_difference_covers_exactly_its_step_and_type(
        monkeypatch: pytest.MonkeyPatch) -> None:
    known = KnownDifference("test-scenarios-99-x", 3, "app-rejected", deliberate=True,
                            why="a planted entry (docs/fidelity.md)")
    monkeypatch.setattr(known_module, "KNOWN", (known,))
    at = Divergence(known.step, 44, "submit", "event", type=known.kind)
    assert known_difference(known.case, at) is known
    assert known_difference(known.case, Divergence(known.step + 1, 45, "update", "event",
                                                   type=known.kind)) is None
    assert known_difference(known.case, Divergence(known.step, 44, "submit", "event",
                                                   type="app-submitted")) is None
    assert known_difference("random-000001", at) is None


def test_every_known_difference_says_why_and_is_in_the_docs() -> None:
    from pathlib import Path
    fidelity = (Path(__file__).resolve().parents[2] / "docs" / "fidelity.md").read_text()
    for known in KNOWN:
        assert known.why and "docs/fidelity.md" in known.why
        assert known.case in fidelity  # each is written down there by its scenario's name
