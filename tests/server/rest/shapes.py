"""Comparing two JSON answers by shape: the same keys in the same order (repeated keys
kept: ``resourceSecondsMap``'s ``entry``), the same nesting, the same JSON types (``0`` is
not ``0.0``); list items matched by their identifying field."""

from __future__ import annotations

import json
from typing import Any

IDS = ("queueName", "id", "name")  # what identifies an item of a list, in that order


class Pairs(list[tuple[str, Any]]):
    """A JSON object as its key/value pairs, repeats and order kept."""

    def get(self, key: str) -> Any:
        return next((v for k, v in self if k == key), None)


def parse(data: bytes | str) -> Any:
    return json.loads(data, object_pairs_hook=Pairs)


def kind(value: Any) -> str:
    if isinstance(value, Pairs):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "boolean"
    return type(value).__name__  # int, float, str, NoneType


def _key(item: Any) -> Any:
    if isinstance(item, Pairs):
        for name in IDS:
            if item.get(name) is not None:
                return item.get(name)
    return None


def differences(ours: Any, theirs: Any, path: str = "$") -> list[str]:
    """Where ``ours`` differs in shape from ``theirs`` (empty: the same shape)."""
    if kind(ours) != kind(theirs):
        return [f"{path}: {kind(ours)} here, {kind(theirs)} in the recorded answer"]
    if isinstance(ours, Pairs):
        keys, their_keys = [k for k, _ in ours], [k for k, _ in theirs]
        if keys != their_keys:
            return [f"{path}: keys {keys} here, {their_keys} in the recorded answer"]
        out = []
        for (k, v), (_, w) in zip(ours, theirs, strict=True):
            out += differences(v, w, f"{path}.{k}")
        return out
    if isinstance(ours, list):
        if not ours or not theirs:
            return []
        by_key = {_key(t): t for t in theirs}
        out = []
        for i, item in enumerate(ours):
            match = by_key.get(_key(item), theirs[0])
            out += differences(item, match, f"{path}[{_key(item) or i}]")
        return out
    return []


def walk_queues(queue: Any) -> dict[str, Any]:
    """Every queue of a ``rootQueue`` by name."""
    out = {queue.get("queueName"): queue}
    children = queue.get("childQueues")
    for child in (children.get("queue") if children is not None else None) or []:
        out.update(walk_queues(child))
    return out
