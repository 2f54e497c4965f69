"""Scheduling-policy combinations an allocation file makes impossible (docs/semantics.md
§2.6.4): YARN reads such a file without complaint but cannot apply it, so they are warnings
with YARN's consequences spelled out."""

from __future__ import annotations

from fairshare.config.dom import Problems
from fairshare.config.model import PolicyName, QueueConfig
from fairshare.config.placement.names import ROOT


def check_policies(
    queues: tuple[QueueConfig, ...], default: PolicyName, problems: Problems
) -> None:
    """Policy combinations the file makes impossible (§2.6.4): fifo on a parent queue, and
    drf under a fair parent (``effective`` = the queue's own policy, else the default)."""
    by_name = {q.name: q for q in queues}

    def effective(name: str) -> PolicyName:
        queue = by_name.get(name)
        return queue.scheduling_policy if queue and queue.scheduling_policy else default

    for queue in queues:
        policy, parent = effective(queue.name), queue.parent_name
        if queue.is_parent and policy is PolicyName.FIFO and queue.name == ROOT:
            _fifo_root_warning(problems, queue)
        elif queue.is_parent and policy is PolicyName.FIFO:
            _policy_warning(problems, queue, "fifo is not allowed on a parent queue")
        elif parent and effective(parent) is PolicyName.FAIR and policy is PolicyName.DRF:
            origin = "" if queue.scheduling_policy else " (the defaultQueueSchedulingPolicy)"
            _policy_warning(problems, queue, f"drf{origin} is not allowed under fair {parent}")
        if queue.is_parent and policy is PolicyName.FAIR and default is PolicyName.DRF:
            problems.warn_at(
                f"{queue.name}: queues created under it by placement rules get the default "
                f"policy drf, which its fair policy does not allow",
                queue.line,
                consequence="creating them fails (FSQueue.verifyAndSetPolicyFromConf), so "
                "applications that placement rules send there are rejected",
                fix=f"give {queue.name} <schedulingPolicy>drf</schedulingPolicy>, or make the "
                    "default fair",
            )


def _fifo_root_warning(problems: Problems, queue: QueueConfig) -> None:
    # Hadoop 3.4 creates only root before the file is first applied, so the policy walk finds
    # no child to refuse and sets fifo on root; every queue is then refused under it.
    problems.warn_at(
        "root: scheduling policy fifo is not allowed on a parent queue",
        queue.line,
        consequence="yet YARN sets it at start-up, when root has no queue under it yet "
        "(FSQueue.verifyAndSetPolicyFromConf); then no queue can be created under it "
        "(FifoPolicy.isChildPolicyAllowed), so applications cannot run anywhere. A reload "
        "while root has queues logs an error and keeps the previous policies instead",
        fix="give root fair or drf; fifo belongs on leaf queues",
    )


def _policy_warning(problems: Problems, queue: QueueConfig, what: str) -> None:
    # YARN does not reject this when it reads the file: on reload it logs an error and leaves
    # the queue and its ancestors on their previous policy; creating the queue fails (§1.2, §1.6).
    problems.warn_at(
        f"{queue.name}: scheduling policy {what} (FSQueue.verifyAndSetPolicyFromConf)",
        queue.line,
        consequence="YARN accepts the file but cannot apply it: on reload it logs an error "
        f"and keeps the previous policies, and creating {queue.name} fails, so applications "
        "cannot run in it",
        fix="fifo only on leaf queues, and drf only under drf parents (a fair parent takes "
            "fair or fifo children)",
    )
