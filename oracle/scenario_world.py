"""The generator's model of a run in progress: which nodes are registered, which apps live and
where placement put them, so that every step it draws is one fairshare carries out (no step
on an app that ended or was rejected, no node registered twice, no unknown node).

Where the outcome is not certain — placement into a queue that may or may not exist by then
(a dynamic queue YARN may have removed, a requested parent) — the app gets no later steps.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from oracle.allocation_gen import (
    GROUPS,
    NEW_QUEUES,
    RELOADS,
    USERS,
    Allocations,
    Rule,
    reload_text,
)

MAX_APPS = 8
MAX_NODES = 6
UNKNOWN = "?"


@dataclass
class AppModel:
    queue: str | None  # where placement put it; None: rejected; UNKNOWN: not certain
    managed: bool
    memory: int  # every task's size (one size per app unless hash_order)
    vcores: int
    live: bool = True
    gpu: int = 0  # GPUs of every ask (one size per app unless hash_order)

    @property
    def steerable(self) -> bool:
        return self.live and self.queue not in (None, UNKNOWN)


class World:
    def __init__(self, rng: random.Random, alloc: Allocations, *, gpu: bool, one_node: bool,
                 hash_order: bool, kill_wait_ms: int, user_as_default: bool = True,
                 min_mb: int = 1024) -> None:
        self.rng, self.alloc, self.gpu = rng, alloc, gpu
        self.one_node, self.hash_order = one_node, hash_order
        self.kill_wait_ms = kill_wait_ms
        self.user_as_default = user_as_default
        self.min_mb = min_mb  # the smallest container: a starved app's size
        self.groups = {u: g for u, g in GROUPS.items() if u in USERS}
        self.nodes: dict[str, dict[str, Any]] = {}  # registered, by name
        self.names_used = 0
        self.apps: dict[str, AppModel] = {}
        self.dynamic: set[str] = set()  # leaves that may exist without being configured
        self.doubtful: set[str] = set()  # configured, but a partly applied reload may drop them
        self.steps: list[dict[str, Any]] = []
        self.since_snapshot = 0
        self.filled: list[str] = []  # the queues the first apps went to
        self.reserve = 0  # app ids random steps leave for what follows (starve)

    # -- nodes -----------------------------------------------------------------------------

    def _node(self) -> dict[str, Any]:
        self.names_used += 1
        rng = self.rng
        node: dict[str, Any] = {"name": f"n{self.names_used}"}
        if not self.one_node and rng.random() < 0.6:
            node["rack"] = rng.choice(["/r1", "/r2"])
        node["memory-mb"] = 8192 if self.one_node else rng.choice([4096, 8192, 12288])
        node["vcores"] = rng.choice([4, 8]) if not self.one_node else 8
        if self.gpu:
            node["yarn.io/gpu"] = rng.randint(0, 2)
        self.nodes[node["name"]] = node
        return node

    def initial_nodes(self) -> list[dict[str, Any]]:
        count = 1 if self.one_node else self.rng.randint(1, 4)
        return [dict(self._node()) for _ in range(count)]

    # -- steps -----------------------------------------------------------------------------

    def add(self, step: dict[str, Any]) -> None:
        self.steps.append(step)
        self.since_snapshot += 1

    def snapshot(self, label: str | None = None) -> None:
        self.add({"snapshot": {} if label is None else {"label": label}})
        self.since_snapshot = 0

    def fill(self) -> None:
        """One or two apps that ask for more than the cluster, placed at once."""
        capacity = sum(n["memory-mb"] for n in self.nodes.values())
        for _ in range(self.rng.randint(1, 2)):
            app = self.submit(self.rng.choice(self.alloc.leaves()), count=0, big=capacity)
            if app is not None and self.apps[app].steerable:
                self.filled.append(str(self.apps[app].queue))
        self.add({"update": {}})
        self.add({"heartbeat": {"node": "*", "times": self.rng.randint(2, 6)}})
        self.add({"update": {}})
        self.add({"heartbeat": {"node": "*", "times": self.rng.randint(1, 6)}})

    def starve(self) -> None:
        """The cluster filled again; an app in another queue asks for a lot; the clock passes
        the preemption timeouts, the update pass warns victims, the clock passes the kill
        wait, the freed space is reused."""
        capacity = sum(n["memory-mb"] for n in self.nodes.values())
        fillers = [a for a, m in self.apps.items() if m.steerable and m.queue in self.filled]
        app: str | None
        if fillers:
            app = self.rng.choice(fillers)
            count = -(-capacity // self.apps[app].memory) + 1
            self.add({"request": {"app": app, "requests": self._requests(self.apps[app], count)}})
        else:
            app = self.submit(self.rng.choice(self.alloc.leaves()), count=0, big=capacity)
        size = self.apps[app].memory if app is not None else 1024
        self.add({"update": {}})  # enough heartbeats to fill it one container at a time
        self.add({"heartbeat": {"node": "*", "times": min(20, capacity // size + 1)}})
        others = [q for q in self.alloc.leaves() if q not in self.filled] or self.alloc.leaves()
        pairs = [(q, u) for q in others for u in USERS]
        self.rng.shuffle(pairs)
        queue, user = next(((q, u) for q, u in pairs if self.place(q, u, commit=False) in others),
                           pairs[0])
        self.submit(queue, count=0, big=capacity // 2, small=True, user=user)
        self.add({"update": {}})
        self.add({"advance": {"ms": self._timeout_ms() + self.rng.choice([0, 500])}})
        self.add({"update": {}})
        if self.rng.random() < 0.7:
            self.snapshot("warned")
        self.add({"advance": {"ms": self.kill_wait_ms + self.rng.choice([0, 1, 1000])}})
        self.add({"heartbeat": {"node": "*"}})
        self.add({"update": {}})
        self.snapshot("after preemption")

    def _timeout_ms(self) -> int:
        """The longest preemption timeout configured (seconds in the file), in ms."""
        keys = ("fairSharePreemptionTimeout", "minSharePreemptionTimeout",
                "defaultFairSharePreemptionTimeout", "defaultMinSharePreemptionTimeout")
        values = [int(v) for q in self.alloc.root.walk() for k, v in q.settings.items()
                  if k in keys] + [int(v) for k, v in self.alloc.defaults.items() if k in keys]
        return 1000 * max(values, default=1)

    def random_step(self) -> None:
        if self.since_snapshot >= self.rng.randint(5, 10):
            self.snapshot()
            return
        live = [a for a, m in self.apps.items() if m.steerable]
        choices: list[tuple[float, Any]] = [
            (3, lambda: self.add({"update": {}})),
            (4, self._heartbeat),
            (2, lambda: self.add({"advance": {"ms": self.rng.choice([100, 1000, 3000])}})),
            (1, self._reload),
        ]
        if len(self.apps) < MAX_APPS - self.reserve:
            choices.append((3, lambda: self.submit(self._requested(), self.rng.randint(1, 6))))
        if live:
            choices += [(3, lambda: self._request(self.rng.choice(live))),
                        (2, lambda: self._release(self.rng.choice(live))),
                        (1, lambda: self._end(self.rng.choice(live))),
                        (1.5, lambda: self._move(self.rng.choice(live)))]
        choices += self._node_steps()
        total = sum(w for w, _ in choices)
        pick = self.rng.uniform(0, total)
        for weight, action in choices:
            pick -= weight
            if pick <= 0:
                action()
                return
        choices[-1][1]()

    def _node_steps(self) -> list[tuple[float, Any]]:
        steps: list[tuple[float, Any]] = [(1, self._resize)]
        if not self.one_node:
            if self.names_used < MAX_NODES:
                steps.append((1, lambda: self.add({"add-node": dict(self._node())})))
            if len(self.nodes) > 1:
                steps.append((1, self._remove))
        return steps

    def _heartbeat(self) -> None:
        node = self.rng.choice(["*", *self.nodes]) if self.nodes else "*"
        step: dict[str, Any] = {"node": node}
        if self.rng.random() < 0.4:
            step["times"] = self.rng.randint(2, 4)
        self.add({"heartbeat": step})

    def _resize(self) -> None:
        name = self.rng.choice(list(self.nodes))
        node = self.nodes[name]
        sizes = [6144, 8192] if self.one_node else [2048, 4096, 8192, 16384]
        step = {"name": name, "memory-mb": self.rng.choice(sizes), "vcores": node["vcores"]}
        node["memory-mb"] = step["memory-mb"]
        if self.gpu:
            step["yarn.io/gpu"] = self.rng.randint(0, 2)
        self.add({"resize-node": step})

    def _remove(self) -> None:
        name = self.rng.choice(list(self.nodes))
        del self.nodes[name]
        self.add({"remove-node": {"name": name}})

    # -- apps ------------------------------------------------------------------------------

    def _requested(self) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.55:
            leaf = rng.choice(self.alloc.leaves())
            return leaf.removeprefix("root.") if rng.random() < 0.5 and leaf.count(".") == 1 \
                else leaf
        if roll < 0.75:
            return "default"
        if roll < 0.92:
            return rng.choice(NEW_QUEUES)
        return rng.choice(self.alloc.parents()[1:] or ["default"])  # a parent: refused

    def submit(self, requested: str, count: int, big: int = 0, small: bool = False,
               user: str | None = None) -> str | None:
        """Submit an app; ``big``: it asks at once for that much memory (in its size);
        ``small``: in small containers (a starved app's that starvation can cover)."""
        if len(self.apps) >= MAX_APPS:
            return None
        rng = self.rng
        app = f"app{len(self.apps) + 1}"
        user = user or rng.choice(USERS)
        managed = rng.random() < 0.6
        memory = self.min_mb if small else rng.choice([512, 1024, 1024, 2048, 3072])
        model = AppModel(self.place(requested, user), managed, memory,
                         1 if big else rng.randint(1, 2))
        if self.gpu and not self.hash_order and rng.random() < 0.25:
            model.gpu = 1  # every ask of the app, its AM included: still one size
            if managed and model.queue is not None:
                # FairScheduler.addApplication rejects an AM asking for a GPU where the leaf's
                # max share has none (a percentage of a cluster without GPUs): not certain
                model.queue = UNKNOWN
        count = max(count, -(-big // memory) + 1)
        self.apps[app] = model
        step: dict[str, Any] = {"app": app, "queue": requested, "user": user}
        if managed:  # the AM the size of the tasks: a starved app's asks are walked in hash
            # order (AppSchedulingInfo.getAllResourceRequests), harmless when they are alike
            step["am"] = ({"memory-mb": rng.choice([512, 1024]), "vcores": 1} if self.hash_order
                          else {"memory-mb": memory, "vcores": model.vcores,
                                **({"yarn.io/gpu": model.gpu} if model.gpu else {})})
        if big or not managed or rng.random() < 0.6:  # or ask later (a request step)
            step["requests"] = self._requests(model, count)
        self.add({"submit": step})
        return app

    def _requests(self, app: AppModel, count: int) -> list[dict[str, Any]]:
        rng = self.rng
        out = []
        for i in range(1 if rng.random() < 0.7 else 2):
            memory = app.memory if not self.hash_order or rng.random() < 0.6 else rng.choice(
                [512, 1024, 2048])
            request: dict[str, Any] = {"count": max(1, count // (i + 1)), "memory-mb": memory,
                                       "vcores": app.vcores, "priority": 1 + i}
            if self.hash_order and self.gpu and rng.random() < 0.25:
                request["yarn.io/gpu"] = 1
            elif app.gpu:
                request["yarn.io/gpu"] = app.gpu
            self._locality(request)
            out.append(request)
        return out

    def _locality(self, request: dict[str, Any]) -> None:
        rng = self.rng
        if self.one_node or not self.nodes or rng.random() < 0.55:
            return  # any node
        if rng.random() < 0.6:
            request["locality"] = rng.choice(list(self.nodes))
        else:
            racks = sorted({n.get("rack", "/default-rack") for n in self.nodes.values()})
            request["locality"] = rng.choice(racks)
        if rng.random() < 0.4:
            request["relax-locality"] = False

    def _request(self, app: str) -> None:
        self.add({"request": {"app": app, "requests": self._requests(
            self.apps[app], self.rng.randint(1, 4))}})

    def _release(self, app: str) -> None:
        which = self.rng.choice(["newest", "oldest", "am"] if self.apps[app].managed
                                else ["newest", "oldest"])
        step: dict[str, Any] = {"app": app, "which": which}
        if which != "am":
            step["count"] = self.rng.randint(1, 3)
        self.add({"release": step})

    def _end(self, app: str) -> None:
        self.apps[app].live = False
        self.add({self.rng.choice(["finish", "kill"]): {"app": app}})

    def _move(self, app: str) -> None:
        rng = self.rng
        targets = self.alloc.leaves()
        target = rng.choice(targets) if rng.random() < 0.75 else rng.choice(
            ["root.nosuch", *self.alloc.parents()[1:]])
        self.add({"move": {"app": app, "queue": target}})

    def _reload(self) -> None:
        kind = self.rng.choice(RELOADS)
        text, after, doubtful = reload_text(self.rng, self.alloc, kind)
        gone = set(self.alloc.leaves()) - set(after.leaves())
        self.dynamic |= gone  # a queue the new file drops stays, as a dynamic queue
        self.doubtful |= doubtful
        self.alloc = after
        self.add({"reload": {"allocations": text}})

    # -- placement -------------------------------------------------------------------------

    def rules(self) -> list[Rule]:
        if self.alloc.rules is not None:
            return self.alloc.rules
        second = Rule("user", create=True) if self.user_as_default else Rule(
            "default", queue="root.default")
        return [Rule("specified", create=True), second]

    def place(self, requested: str, user: str, commit: bool = True) -> str | None:
        """Where YARN's placement rules put the app: a leaf, None (rejected) or UNKNOWN."""
        leaves = {*self.alloc.leaves(), "root.default"} - self.doubtful
        for rule in self.rules():
            if rule.name == "reject":
                return None
            if rule.name == "default":
                return rule.queue if rule.queue in leaves else UNKNOWN
            if rule.name == "specified":
                if requested == "default":
                    continue
                target = requested if requested.startswith("root.") else f"root.{requested}"
            elif rule.name == "user":
                target = f"root.{user}"
            else:  # primaryGroup: a user without groups is rejected
                if not self.groups.get(user):
                    return None
                target = f"root.{self.groups[user][0]}"
            found = self._target(target, leaves, bool(rule.create), commit)
            if found is not None:
                return found
        return UNKNOWN

    def _target(self, target: str, leaves: set[str], create: bool, commit: bool
                ) -> str | None:
        """A rule's queue: placed there, UNKNOWN, or None to go on to the next rule."""
        if target in leaves:
            return target
        if target in self.alloc.parents() or target in self.doubtful:
            return UNKNOWN
        if target in self.dynamic:  # it may have been removed since, unless created anew
            return target if create else UNKNOWN
        if create:
            if commit:
                self.dynamic.add(target)
            return target
        return None
