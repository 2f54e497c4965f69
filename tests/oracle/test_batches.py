"""The driver's JVMs each get scenarios of one set of resource types: YARN's drf policy counts
the types once per JVM (DominantResourceFairnessPolicy.NUM_RESOURCES, a static final)."""

from __future__ import annotations

import json
from pathlib import Path

from oracle.run import BATCH, driver_batches


def _scenario(root: Path, name: str, types: str | None) -> Path:
    directory = root / name
    directory.mkdir()
    site = {} if types is None else {"yarn.resource-types": types}
    (directory / "scenario.json").write_text(json.dumps({"site": site}), encoding="utf-8")
    return directory


def test_a_jvm_never_mixes_resource_types(tmp_path: Path) -> None:
    plain = [_scenario(tmp_path, f"p{i}", None) for i in range(BATCH + 3)]
    gpu = [_scenario(tmp_path, f"g{i}", "yarn.io/gpu") for i in range(5)]
    mixed = [d for pair in zip(plain, gpu, strict=False) for d in pair] + plain[len(gpu):]
    batches = driver_batches(mixed)
    assert sorted(d for batch in batches for d in batch) == sorted(plain + gpu)
    for batch in batches:
        assert len(batch) <= BATCH
        assert set(batch) <= set(plain) or set(batch) <= set(gpu)
