"""Queue ACLs: who may submit to or administer a queue (docs/semantics.md §1.3.4).

An ACL string is read exactly as Hadoop's ``AccessControlList`` reads it: users, then a single
space, then groups (``"alice,bob admins"``); a leading space means groups only, a blank string
means nobody, and ``*`` in either half means everyone. Each half is a list read with Hadoop's
``StringUtils.getTrimmedStringCollection``: split at commas *or newlines* (with the ASCII
whitespace around them), empty names and repeats dropped, first-seen order kept. Access to a
queue is granted by the queue's own ACL **or** the same-type ACL of any ancestor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from fairshare.config.model import AllocationConfig
from fairshare.config.placement.names import ROOT
from fairshare.resources.javalang import java_trim, trimmed_string_collection

__all__ = [
    "EVERYBODY",
    "NOBODY",
    "AccessControlList",
    "QueueAcl",
    "QueueAcls",
    "can_submit",
    "has_access",
    "queue_acls",
]

WILDCARD = "*"


class QueueAcl(StrEnum):
    """The two queue ACL types of the Fair Scheduler (``QueueACL``)."""

    SUBMIT_APPLICATIONS = "SUBMIT_APPLICATIONS"  # <aclSubmitApps>
    ADMINISTER_QUEUE = "ADMINISTER_QUEUE"  # <aclAdministerApps>


@dataclass(frozen=True, slots=True)
class AccessControlList:
    """A parsed ACL; ``users`` and ``groups`` in first-seen order, as Hadoop's
    ``LinkedHashSet`` keeps them."""

    users: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    all_allowed: bool = False

    @classmethod
    def parse(cls, acl: str) -> AccessControlList:
        """Read an ACL string the way ``new AccessControlList(acl)`` does."""
        halves = acl.split(" ", 1)  # Java's split(" ", 2): at the first space only
        if any(java_trim(half) == WILDCARD for half in halves):
            return cls(all_allowed=True)
        users = trimmed_string_collection(halves[0])
        groups = trimmed_string_collection(halves[1]) if len(halves) == 2 else ()
        return cls(users, groups)

    def is_user_allowed(self, user: str, groups: Sequence[str]) -> bool:
        """``isUserInList``: everyone, or the user by (short) name, or any of their groups."""
        if self.all_allowed or user in self.users:
            return True
        return any(group in self.groups for group in groups)

    @property
    def acl_string(self) -> str:
        """``getAclString()``: a string that parses back to this ACL."""
        if self.all_allowed:
            return WILDCARD
        return f"{','.join(self.users)} {','.join(self.groups)}"

    def __str__(self) -> str:
        """Hadoop's ``toString()`` wording."""
        users, groups = f"[{', '.join(self.users)}]", f"[{', '.join(self.groups)}]"
        if self.all_allowed:
            return "All users are allowed"
        if self.users and self.groups:
            return f"Users {users} and members of the groups {groups} are allowed"
        if self.users:
            return f"Users {users} are allowed"
        if self.groups:
            return f"Members of the groups {groups} are allowed"
        return "No users are allowed"


EVERYBODY = AccessControlList(all_allowed=True)
NOBODY = AccessControlList()

QueueAcls = Mapping[str, Mapping[QueueAcl, AccessControlList]]
"""Full queue name → ACL per type; queues without an entry (dynamic ones) just inherit."""


def has_access(
    acls: QueueAcls, queue: str, user: str, groups: Sequence[str], acl_type: QueueAcl
) -> bool:
    """Whether the user may do ``acl_type`` on ``queue``: its ACL or any ancestor's allows it."""
    name = queue
    while True:
        acl = acls.get(name, {}).get(acl_type)
        if acl is not None and acl.is_user_allowed(user, groups):
            return True
        if "." not in name:
            return False
        name = name.rsplit(".", 1)[0]


def can_submit(acls: QueueAcls, queue: str, user: str, groups: Sequence[str]) -> bool:
    """Submission needs SUBMIT_APPLICATIONS **or** ADMINISTER_QUEUE access (§1.3.4)."""
    return has_access(acls, queue, user, groups, QueueAcl.SUBMIT_APPLICATIONS) or has_access(
        acls, queue, user, groups, QueueAcl.ADMINISTER_QUEUE
    )


def queue_acls(config: AllocationConfig | None) -> dict[str, dict[QueueAcl, AccessControlList]]:
    """The queue → ACL map YARN builds from an allocation file (§1.3.4).

    Root starts with everyone for both types (also without a file); each configured queue gets its
    own ACLs, defaulting to everyone on root and to nobody elsewhere. Queues whose settings YARN
    never looks up (under a ``<queue name="Root">``) get no entry, so they inherit.
    """
    result = {ROOT: {QueueAcl.SUBMIT_APPLICATIONS: EVERYBODY, QueueAcl.ADMINISTER_QUEUE: EVERYBODY}}
    for queue in config.queues if config is not None else ():
        if queue.settings_ignored:
            continue
        default = EVERYBODY if queue.name == ROOT else NOBODY
        result[queue.name] = {
            QueueAcl.SUBMIT_APPLICATIONS: _configured(queue.acl_submit_apps, default),
            QueueAcl.ADMINISTER_QUEUE: _configured(queue.acl_administer_apps, default),
        }
    return result


def _configured(acl: str | None, default: AccessControlList) -> AccessControlList:
    return default if acl is None else AccessControlList.parse(acl)
