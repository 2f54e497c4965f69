"""Random allocation files for the oracle's generator: a queue tree up to three levels deep,
its settings, a placement policy, and the changes a reload brings.

Policies are drawn as YARN allows them at start-up (``SchedulingPolicy.isChildPolicyAllowed``:
no ``drf`` under a ``fair`` parent, ``fifo`` on leaves only), so the first load always
succeeds; reloads may break the rule on purpose (:func:`reload_text`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

TOP_NAMES = ["a", "b", "c", "d", "etl", "adhoc"]
CHILD_NAMES = ["x", "y", "z", "w"]
USERS = ["alice", "bob", "carol", "dave"]  # dave has no groups: primaryGroup rejects him
GROUPS = {"alice": ["eng", "ops"], "bob": ["ops"], "carol": ["eng"]}
NEW_QUEUES = ["newq", "tmp"]  # requested, never configured: placement creates or skips them


@dataclass
class Queue:
    name: str  # full name
    policy: str  # effective
    children: list[Queue] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def leaf(self) -> bool:
        return not self.children

    def walk(self) -> list[Queue]:
        return [self, *(q for child in self.children for q in child.walk())]


@dataclass
class Rule:
    name: str  # specified, user, primaryGroup, default, reject
    create: bool | None = None
    queue: str | None = None  # the default rule's queue

    def xml(self) -> str:
        attrs = f' name="{self.name}"'
        if self.create is not None:
            attrs += f' create="{str(self.create).lower()}"'
        if self.queue is not None:
            attrs += f' queue="{self.queue}"'
        return f"<rule{attrs}/>"


@dataclass
class Allocations:
    root: Queue
    default_policy: str
    defaults: dict[str, str]  # top-level elements (defaultFairSharePreemptionTimeout, …)
    rules: list[Rule] | None  # None: no queuePlacementPolicy (YARN's generated one)
    gpu: bool

    def leaves(self) -> list[str]:
        return [q.name for q in self.root.walk() if q.leaf and q.name != "root"]

    def parents(self) -> list[str]:
        return [q.name for q in self.root.walk() if not q.leaf]


def random_allocations(rng: random.Random, gpu: bool, preemption: bool) -> Allocations:
    default_policy = rng.choice(["fair", "fair", "drf"])
    root = Queue("root", default_policy)
    for name in rng.sample(TOP_NAMES, rng.randint(2, 4)):
        root.children.append(_queue(rng, root, f"root.{name}", 1, default_policy, gpu))
    if rng.random() < 0.2:
        root.children.append(_queue(rng, root, "root.alice", 3, default_policy, gpu))
    defaults: dict[str, str] = {}
    if default_policy == "drf":
        defaults["defaultQueueSchedulingPolicy"] = "drf"
    if preemption or rng.random() < 0.3:
        defaults["defaultFairSharePreemptionTimeout"] = str(rng.randint(1, 4))
        defaults["defaultFairSharePreemptionThreshold"] = rng.choice(["0.5", "0.8", "1.0",
                                                                      "1.0"])
    if rng.random() < 0.3:
        defaults["defaultMinSharePreemptionTimeout"] = str(rng.randint(1, 4))
    if rng.random() < 0.15:
        defaults["queueMaxAMShareDefault"] = rng.choice(["0.3", "0.8", "-1"])
    if rng.random() < 0.1:
        defaults["queueMaxAppsDefault"] = str(rng.randint(1, 3))
    rules = _placement(rng, [q.name for q in root.walk() if q.leaf]) if rng.random() < 0.45 \
        else None
    return Allocations(root, default_policy, defaults, rules, gpu)


def _policy(rng: random.Random, parent: Queue, default: str, leaf: bool) -> tuple[str, bool]:
    """A policy the parent's allows, and whether it must be written (the default would not
    be allowed, or the draw says so)."""
    allowed = ["fair", "drf"] if parent.policy == "drf" else ["fair"]
    if leaf:
        allowed.append("fifo")
    choice = rng.choice(allowed) if rng.random() < 0.3 else default
    if choice not in allowed:
        choice = "fair"
    return choice, choice != default


def _queue(rng: random.Random, parent: Queue, name: str, depth: int, default: str,
           gpu: bool) -> Queue:
    leaf = depth >= 3 or rng.random() < (0.6 if depth == 1 else 0.75)
    policy, explicit = _policy(rng, parent, default, leaf)
    queue = Queue(name, policy, settings=_settings(rng, leaf, gpu))
    if explicit:
        queue.settings["schedulingPolicy"] = policy
    if not leaf:
        for child in rng.sample(CHILD_NAMES, rng.randint(2, 3)):
            queue.children.append(_queue(rng, queue, f"{name}.{child}", depth + 1, default, gpu))
    return queue


def _resource(rng: random.Random, gpu: bool, mb: int, vcores: int) -> str:
    if rng.random() < 0.5:
        return f"{mb} mb, {vcores} vcores"
    extra = f", yarn.io/gpu={rng.randint(0, 2)}" if gpu and rng.random() < 0.6 else ""
    return f"memory-mb={mb}, vcores={vcores}{extra}"


def _percent(rng: random.Random, gpu: bool) -> str:
    p, q = rng.choice([25, 50, 75]), rng.choice([30, 50, 100])
    form = rng.randrange(3)
    if form == 0:
        return f"{p}.0% memory, {q}% cpu"
    if form == 1:
        return f"{p}%"
    extra = f", yarn.io/gpu={q}%" if gpu else ""
    return f"memory-mb={p}%, vcores={q}%{extra}"


def _settings(rng: random.Random, leaf: bool, gpu: bool) -> dict[str, str]:
    s: dict[str, str] = {}
    if rng.random() < 0.6:
        s["weight"] = rng.choice(["1", "2", "3", "0.5", "1.5"])
    if rng.random() < 0.3:
        s["minResources"] = _resource(rng, gpu, rng.choice([1024, 2048, 4096]), rng.randint(1, 3))
    if rng.random() < 0.25:
        s["maxResources"] = _percent(rng, gpu) if rng.random() < 0.5 else _resource(
            rng, gpu, rng.choice([4096, 8192, 12288]), rng.choice([4, 8]))
    if not leaf and rng.random() < 0.4:
        s["maxChildResources"] = _percent(rng, gpu) if rng.random() < 0.4 else _resource(
            rng, gpu, rng.choice([2048, 4096]), rng.choice([2, 4]))
    if rng.random() < 0.12:
        s["maxRunningApps"] = str(rng.randint(1, 2))
    if leaf and rng.random() < 0.15:
        s["maxAMShare"] = rng.choice(["0.2", "0.5", "1.0", "-1"])
    if rng.random() < 0.25:
        s["fairSharePreemptionTimeout"] = str(rng.randint(1, 5))
    if rng.random() < 0.25:
        s["fairSharePreemptionThreshold"] = rng.choice(["0.4", "0.8", "1.0"])
    if rng.random() < 0.2:
        s["minSharePreemptionTimeout"] = str(rng.randint(1, 5))
    if rng.random() < 0.12:
        s["allowPreemptionFrom"] = "false"
    return s


def _placement(rng: random.Random, leaves: list[str]) -> list[Rule]:
    """A rule list ending in a rule that always decides (YARN refuses a policy an app can get
    past, and rules after one that always places); ``specified`` never always places: it
    passes over an app that asks for ``default``."""
    rules: list[Rule] = []
    if rng.random() < 0.8:
        rules.append(Rule("specified", create=rng.random() < 0.3))
    if rng.random() < 0.5:
        rules.append(Rule("user", create=False))
    if rng.random() < 0.4:
        rules.append(Rule("primaryGroup", create=False))
    if rng.random() < 0.3:  # the last rule must always place or reject
        rules.append(Rule("reject"))
    else:
        target = rng.choice(["root.default", *leaves])
        rules.append(Rule("default", queue=target))
    return rules


def allocations_xml(alloc: Allocations) -> str:
    """The file (fairshare creates the queues in YARN's hash order, whatever the file's)."""
    lines = ["<?xml version=\"1.0\"?>", "<allocations>"]
    lines += [f"  <{key}>{value}</{key}>" for key, value in alloc.defaults.items()]

    def emit(queue: Queue, indent: str) -> None:
        short = queue.name.rsplit(".", 1)[1]
        lines.append(f'{indent}<queue name="{short}">')
        lines.extend(f"{indent}  <{k}>{v}</{k}>" for k, v in queue.settings.items())
        for child in queue.children:
            emit(child, indent + "  ")
        lines.append(f"{indent}</queue>")

    for child in alloc.root.children:
        emit(child, "  ")
    if alloc.rules is not None:
        lines.append("  <queuePlacementPolicy>")
        lines += [f"    {rule.xml()}" for rule in alloc.rules]
        lines.append("  </queuePlacementPolicy>")
    lines.append("</allocations>")
    return "\n".join(lines) + "\n"


RELOADS = ["valid", "valid", "valid", "malformed", "bad-value", "unknown-element",
           "drf-under-fair"]


def reload_text(rng: random.Random, alloc: Allocations, kind: str
                ) -> tuple[str, Allocations, set[str]]:
    """:func:`_reload_text`, its kind named in a comment for whoever reads the scenario."""
    text, after, doubtful = _reload_text(rng, alloc, kind)
    head, _, rest = text.partition("\n")
    return f"{head}\n<!-- reload: {kind} -->\n{rest}", after, doubtful


def _reload_text(rng: random.Random, alloc: Allocations, kind: str
                 ) -> tuple[str, Allocations, set[str]]:
    """A reload's file, the configuration in force after it as far as the generator needs to
    know (the same tree when YARN refuses the file), and the queues whose fate is not
    certain after it (those a partly applied reload may drop or keep)."""
    if kind == "valid":
        new = _changed(rng, alloc)
        return allocations_xml(new), new, set()
    text = allocations_xml(alloc)
    if kind == "malformed":  # cut inside an element: not well-formed
        cut = text.index("<queue ") + rng.randint(8, 20)
        return text[:cut], alloc, set()
    if kind == "bad-value":  # AllocationConfigurationException: the old file stays
        return text.replace("<allocations>", "<allocations>\n  <queueMaxAppsDefault>many"
                            "</queueMaxAppsDefault>", 1), alloc, set()
    if kind == "unknown-element":  # YARN warns ("Bad element") and loads the rest
        return text.replace("<allocations>", "<allocations>\n  <fairnessBoost>2"
                            "</fairnessBoost>", 1), alloc, set()
    broken, doubtful = _drf_under_fair(rng, alloc)
    return allocations_xml(broken), alloc, doubtful


def _copy(queue: Queue) -> Queue:
    return Queue(queue.name, queue.policy, [_copy(c) for c in queue.children],
                 dict(queue.settings))


def _changed(rng: random.Random, alloc: Allocations) -> Allocations:
    root = _copy(alloc.root)
    queues = [q for q in root.walk() if q.name != "root"]
    for queue in rng.sample(queues, min(len(queues), rng.randint(1, 3))):
        fresh = _settings(rng, queue.leaf, alloc.gpu)
        key = rng.choice(sorted(fresh) or ["weight"])
        queue.settings[key] = fresh.get(key, "2")
    parent_of = {c.name: q for q in root.walk() for c in q.children}
    for queue in queues:  # a leaf's policy switched within what its parent allows
        if queue.leaf and rng.random() < 0.15:
            options = ["fair", "fifo"] + (["drf"] if parent_of[queue.name].policy == "drf" else [])
            queue.policy = rng.choice(options)
            queue.settings["schedulingPolicy"] = queue.policy
    unused = [n for n in TOP_NAMES if f"root.{n}" not in {q.name for q in queues}]
    if unused and rng.random() < 0.3:
        root.children.append(Queue(f"root.{rng.choice(unused)}", "fair",
                                   settings={"schedulingPolicy": "fair", "weight": "2"}))
    return Allocations(root, alloc.default_policy, dict(alloc.defaults), alloc.rules, alloc.gpu)


def _drf_under_fair(rng: random.Random, alloc: Allocations) -> tuple[Allocations, set[str]]:
    """A ``drf`` leaf under a ``fair`` parent: YARN's reload walk stops at it and applies
    only what it met before (``QueueManager.updateAllocationConfiguration``)."""
    root = _copy(alloc.root)
    fair_parents = [q for q in root.walk() if q.policy == "fair" and q.children]
    if fair_parents:
        leaf = rng.choice([c for p in fair_parents for c in p.children if c.leaf]
                          or [fair_parents[0].children[0]])
        leaf.settings["schedulingPolicy"] = "drf"
        touched = leaf
    else:  # every parent is drf: make one fair, with a drf child
        touched = rng.choice([q for q in root.walk() if q.children])
        touched.settings["schedulingPolicy"] = "fair"
        touched.children[0].settings["schedulingPolicy"] = "drf"
    return (Allocations(root, alloc.default_policy, dict(alloc.defaults), alloc.rules,
                        alloc.gpu), {q.name for q in touched.walk()})
