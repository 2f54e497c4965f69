"""Who may do what in ``fairshare serve``: YARN's authorization, decided as Hadoop's RM decides
it (docs/serve.md "Security: queue ACLs and who may do what").

* :class:`UserGroups` — a user's groups as Hadoop's ``Groups`` finds them: the authenticator's
  own (when it knows them), else ``hadoop.user.group.static.mapping.overrides``, else the
  operating system's, as ``ShellBasedUnixGroupsMapping`` asks ``id`` (the primary group
  first); a user the system does not know has none. The engine reads the same mapping for
  placement (``primaryGroup`` rules) and for the scheduler's own submission check.
* :class:`Authorizer` — the checks of ``RMAppManager.createAndPopulateNewRMApp`` (submit),
  ``ClientRMService`` (kill, move, priority: the app's owner or ``MODIFY_APP``, or
  ``aclAdministerApps`` on its queue; a move also needs submit rights on the target),
  ``RMWebServices.initForWritableEndpoints`` (cluster administration: ``yarn.admin.acl``) and
  ``RMWebServices.hasAccess`` (who sees an app's full report). Every check but the
  scheduler's own passes when ``yarn.acl.enable`` is false, as in YARN.
"""

from __future__ import annotations

import grp
import os
import pwd
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from fairshare.config.acl import AccessControlList, QueueAcl, can_submit, has_access
from fairshare.config.placement.base import PlacementError
from fairshare.config.placement.names import assure_root
from fairshare.config.placement.policy import place_application
from fairshare.config.yarnsite import SiteConfig
from fairshare.core import Engine
from fairshare.server.control import Refused
from fairshare.server.submission import Submission
from fairshare.server.view import RMAppView

GROUPS_CACHE_S = 300.0  # hadoop.security.groups.cache.secs: Groups keeps an answer this long
VIEW_APP, MODIFY_APP = "VIEW_APP", "MODIFY_APP"  # ApplicationAccessType
ADMINS_ONLY = "Only admins can carry out this operation."  # initForWritableEndpoints

GroupsOf = Callable[[str], tuple[str, ...] | None]


def unix_groups(user: str) -> tuple[str, ...]:
    """``ShellBasedUnixGroupsMapping``: ``id -gn`` (the primary group) then ``id -Gn`` (all of
    them), repeats dropped; a user unknown to the system has no groups."""
    try:
        entry = pwd.getpwnam(user)
    except KeyError:
        return ()
    names: list[str] = []
    for gid in [entry.pw_gid, *os.getgrouplist(user, entry.pw_gid)]:
        try:
            name = grp.getgrgid(gid).gr_name
        except KeyError:
            name = str(gid)  # id prints the number of a group without a name
        if name not in names:
            names.append(name)
    return tuple(names)


class UserGroups(Mapping[str, tuple[str, ...]]):
    """``Groups.getGroupsSet`` for any user: ``first`` (the authenticator's groups, when it
    has them), then the static overrides, then the system's (``system``, cached for
    ``hadoop.security.groups.cache.secs`` as ``Groups`` caches them). A mapping so that the
    engine can read it as it reads any (``groups.get(user, ())``); it lists only the
    statically mapped users."""

    def __init__(self, static: Mapping[str, tuple[str, ...]] | None = None, *,
                 system: Callable[[str], tuple[str, ...]] = unix_groups,
                 first: GroupsOf | None = None, cache_s: float = GROUPS_CACHE_S) -> None:
        self.static = dict(static or {})
        self.system = system
        self.first = first
        self.cache_s = cache_s
        self._cache: dict[str, tuple[float, tuple[str, ...]]] = {}
        self._lock = threading.Lock()

    def __getitem__(self, user: str) -> tuple[str, ...]:
        if self.first is not None:
            known = self.first(user)
            if known is not None:
                return tuple(known)
        if user in self.static:  # Groups: "no need to look up the groups of static users"
            return self.static[user]
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(user)
            if cached is not None and now - cached[0] < self.cache_s:
                return cached[1]
        found = self.system(user)
        with self._lock:
            self._cache[user] = (now, found)
        return found

    def __iter__(self) -> Iterator[str]:
        return iter(self.static)

    def __len__(self) -> int:
        return len(self.static)

    def __contains__(self, user: object) -> bool:
        return isinstance(user, str)  # every user has groups, possibly none


def rm_owner() -> str:
    """The user the RM runs as (``UserGroupInformation.getCurrentUser`` without Kerberos:
    ``HADOOP_USER_NAME``, else the process's user): ``AdminACLsManager`` makes it an admin."""
    named = os.environ.get("HADOOP_USER_NAME")
    if named:
        return named
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


@dataclass(frozen=True, slots=True)
class AppAcls:
    """The submission context's ``application-acls`` (``ApplicationACLsManager``); an access
    type not given is YARN's default app ACL, ``" "``: nobody but the owner and the admins."""

    view: str | None = None
    modify: str | None = None

    @classmethod
    def of(cls, entries: Sequence[tuple[str, str]]) -> AppAcls:
        given = dict(entries)  # a HashMap: the last entry of a type wins
        return cls(given.get(VIEW_APP), given.get(MODIFY_APP))

    def acl(self, access: str) -> AccessControlList:
        text = self.view if access == VIEW_APP else self.modify
        return AccessControlList.parse(" " if text is None else text)


def forbidden(message: str) -> Refused:
    """``ForbiddenException(msg)`` as ``GenericExceptionHandler`` writes it."""
    return Refused(403, "ForbiddenException", "org.apache.hadoop.yarn.webapp.ForbiddenException",
                   f"java.lang.Exception: {message}")


def _plain_403(message: str) -> Refused:
    """RMWebServices' answer when ClientRMService throws an ``AccessControlException``: a
    plain-text 403 (killApp, moveApp, modifyApplicationPriority)."""
    return Refused(403, "", "", message, plain=True)


class Authorizer:
    """The RM's access checks over one engine (its queue ACLs, tree and placement rules in
    force, read between commands as the engine replaces them whole) and its site."""

    def __init__(self, engine: Engine, site: SiteConfig, *, owner: str | None = None) -> None:
        self.engine = engine
        self.enabled = site.acl_enable
        admins = AccessControlList.parse(site.admin_acl)
        owner = rm_owner() if owner is None else owner
        if not admins.all_allowed and owner not in admins.users:  # AdminACLsManager
            admins = AccessControlList((*admins.users, owner), admins.groups)
        self.admins = admins
        self._app_acls: dict[str, AppAcls] = {}
        self._lock = threading.Lock()

    def groups(self, user: str) -> tuple[str, ...]:
        return tuple(self.engine.groups.get(user, ()))

    # -- ApplicationACLsManager, QueueACLsManager --------------------------------------------

    def is_admin(self, user: str) -> bool:
        """``AdminACLsManager.isAdmin``: in ``yarn.admin.acl`` (or the RM's own user)."""
        return self.admins.is_user_allowed(user, self.groups(user))

    def remember(self, submission: Submission) -> None:
        """Keep an accepted submission's app ACLs (``ApplicationACLsManager.addApplication``)."""
        with self._lock:
            self._app_acls[submission.application_id] = AppAcls.of(submission.acls)

    def forget(self, app_id: str) -> None:
        """An ended app the RM forgot (``ApplicationACLsManager.removeApplication``)."""
        with self._lock:
            self._app_acls.pop(app_id, None)

    def app_access(self, user: str, access: str, app: RMAppView) -> bool:
        """``ApplicationACLsManager.checkAccess``: everyone with ACLs off; else an admin, the
        owner, or the app's ACL of that type."""
        if not self.enabled:
            return True
        if self.is_admin(user) or user == app.user:
            return True
        with self._lock:
            acls = self._app_acls.get(app.id, AppAcls())
        return acls.acl(access).is_user_allowed(user, self.groups(user))

    def queue_admin(self, user: str, queue: str) -> bool:
        """``FairQueueACLsManager.checkAccess(ADMINISTER_QUEUE)``: everyone with ACLs off; else
        the queue (which must exist) or an ancestor lets the user administer it."""
        if not self.enabled:
            return True
        if queue not in self.engine.tree:
            return False
        return has_access(self.engine.queue_acls, queue, user, self.groups(user),
                          QueueAcl.ADMINISTER_QUEUE)

    def _may(self, user: str, access: str, app: RMAppView) -> bool:
        """``ClientRMService.checkAccess``: the app's ACLs, or its queue's administrators."""
        return self.app_access(user, access, app) or self.queue_admin(user, app.queue)

    # -- the checks of each request --------------------------------------------------------

    def can_view(self, user: str, app: RMAppView) -> bool:
        """``RMWebServices.hasAccess``: the full report, or the reduced one ``AppInfo`` gives
        everyone else."""
        return self._may(user, VIEW_APP, app)

    def check_submit(self, submission: Submission, known: bool) -> None:
        """``RMAppManager.createAndPopulateNewRMApp`` with ``yarn.acl.enable``: the queue the
        rules place the app in — or, when the submission would create it, the nearest queue
        that exists — must let the user submit or administer (its own ACL or an ancestor's).
        Refused there and then: ``RMWebServices.submitApplication`` answers the
        ``AccessControlException`` as a 400, and no app is made. ``known``: the id is taken
        (ClientRMService refuses the duplicate first). A submission the rules do not place
        is left to the scheduler, as YARN leaves it; with ACLs off only the scheduler checks
        (``FairScheduler.addApplication``: the app FAILED)."""
        if not self.enabled or known:
            return
        user = submission.user
        engine = self.engine
        tree = engine.tree
        try:
            placed = place_application(engine.placement_policy, submission.queue, user,
                                       self.groups(user), tree)
        except PlacementError:
            return
        if placed.queue is None:
            return
        queue = assure_root(placed.queue)
        existing = queue
        while existing not in tree and "." in existing:
            existing = existing.rsplit(".", 1)[0]
        if can_submit(engine.queue_acls, existing, user, self.groups(user)):
            return
        raise Refused(400, "BadRequestException",
                      "org.apache.hadoop.yarn.webapp.BadRequestException",
                      "java.lang.Exception: org.apache.hadoop.security.AccessControlException: "
                      f"User {user} does not have permission to submit "
                      f"{submission.application_id} to queue {queue} denied by ACL for queue "
                      f"{existing}")

    def check_kill(self, user: str, app: RMAppView) -> None:
        if not self._may(user, MODIFY_APP, app):
            raise _plain_403(f"Unauthorized attempt to kill appid {app.id} by remote user "
                             f"{user}")

    def check_priority(self, user: str, app: RMAppView) -> None:
        if not self._may(user, MODIFY_APP, app):
            raise _plain_403(f"Unauthorized attempt to change priority of appid {app.id} by "
                             f"remote user {user}")

    def check_move(self, user: str, app: RMAppView, target: str) -> None:
        """``ClientRMService.moveApplicationAcrossQueues``: the app (``MODIFY_APP`` or its
        queue's admins), then the target, which must exist and let the user submit or
        administer (``FairQueueACLsManager``); both before the app's state is looked at."""
        if not self._may(user, MODIFY_APP, app) or not self._target_allowed(user, target):
            raise _plain_403(f"Unauthorized attempt to move appid {app.id} by remote user "
                             f"{user}")

    def _target_allowed(self, user: str, target: str) -> bool:
        if not self.enabled:
            return True
        queue = assure_root(target)  # QueueManager.getQueue adds root.
        if queue not in self.engine.tree:
            return False
        return can_submit(self.engine.queue_acls, queue, user, self.groups(user))

    def check_admin(self, user: str) -> None:
        """``initForWritableEndpoints(callerUGI, true)``: with ACLs on, only an admin."""
        if self.enabled and not self.is_admin(user):
            raise forbidden(ADMINS_ONLY)
