"""Who may do what in ``fairshare serve`` (server/authorize.py), as YARN's RM decides it: every
write route and the app reads × (anonymous ``dr.who``, another user, the owner, the queue's
administrator, the cluster's), with ``yarn.acl.enable`` true and false, through the REST app
over a real engine; the group mapping (static overrides, the system's); the site keys.

The expected answers are worked out from Hadoop's code (the class named at each) and are the
ones rm_tests/test_serve_acls.py sees Hadoop 3.4.2's own RM give for the same requests.
"""

from __future__ import annotations

import json
import os
import pwd
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.errors import ConfigError
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import Engine
from fairshare.server.authorize import AppAcls, Authorizer, UserGroups, unix_groups
from fairshare.server.extensions import extensions_router
from fairshare.server.rest.app import create_rest_app
from fairshare.server.service import ServeOptions, build
from tests.server.rest.fake import NODES, FakeControl, r

BASE = "/ws/v1/cluster"
# root lets nobody submit or administer, so that its default (everyone) is not inherited;
# root.a: users alice and carol and the group analysts (the space-separated form), its
# administrator qadmin; root.b: everyone; root.c: nobody; root.p: dave may make queues in it
ACL_XML = """<allocations>
  <queueMaxAMShareDefault>-1.0</queueMaxAMShareDefault>
  <queue name="root">
    <aclSubmitApps>nobody</aclSubmitApps>
    <aclAdministerApps>nobody</aclAdministerApps>
    <queue name="a">
      <aclSubmitApps>alice,carol analysts</aclSubmitApps>
      <aclAdministerApps>qadmin</aclAdministerApps>
    </queue>
    <queue name="b"><aclSubmitApps>*</aclSubmitApps></queue>
    <queue name="c"><aclSubmitApps>nobody</aclSubmitApps></queue>
    <queue name="p" type="parent"><aclSubmitApps>dave</aclSubmitApps></queue>
  </queue>
</allocations>"""
CALLERS = {"anonymous": None, "other": "bob", "owner": "alice", "queue-admin": "qadmin",
           "cluster-admin": "cadmin"}
STATIC = "erin=analysts;frank=ops;dr.who=;"


def site_of(acl_enable: bool) -> SiteConfig:
    return load_site(None, {"yarn.acl.enable": str(acl_enable).lower(),
                            "yarn.admin.acl": "cadmin",
                            "hadoop.user.group.static.mapping.overrides": STATIC})


class Cluster:
    """A REST app over a real engine with ACL_XML, and the ids of its apps by name."""

    def __init__(self, acl_enable: bool) -> None:
        site = site_of(acl_enable)
        groups = UserGroups(dict(site.static_groups), system=lambda user: ())
        engine = Engine(site, parse_allocations_text(ACL_XML, "acls.xml", site.resource_types),
                        groups=groups)
        for name in NODES:
            engine.add_node(name, r(8192, 8))
        self.control = FakeControl(engine)
        self.authorizer = Authorizer(engine, site, owner="rmowner")
        self.client = TestClient(create_rest_app(self.control, authorizer=self.authorizer))
        self.apps: dict[str, str] = {}

    def submit(self, name: str, user: str | None, queue: str,
               acls: tuple[tuple[str, str], ...] = ()) -> Any:
        self.client.cookies.clear()  # a user.name's cookie would name the next caller
        app_id = json.loads(self.client.post(
            with_user(f"{BASE}/apps/new-application", user)).content)["application-id"]
        self.apps[name] = app_id
        entries = [{"key": k, "value": v} for k, v in acls]
        body = {"application-id": app_id, "queue": queue,
                "resource": {"memory": 1024, "vCores": 1},
                "am-container-spec": {"application-acls": {"entry": entries}}}
        self.client.cookies.clear()
        return self.client.post(with_user(f"{BASE}/apps", user), json=body)

    def request(self, method: str, path: str, user: str | None, body: object = None) -> Any:
        self.client.cookies.clear()
        return self.client.request(method, with_user(BASE + path.format(**self.apps), user),
                                   json=body)


def with_user(path: str, user: str | None) -> str:
    return path if user is None else f"{path}?user.name={user}"


@pytest.fixture(params=[True, False], ids=["acl-on", "acl-off"])
def cluster(request: pytest.FixtureRequest) -> Iterator[Cluster]:
    c = Cluster(request.param)
    c.submit("main", "alice", "root.a")
    c.submit("viewable", "alice", "root.a", (("VIEW_APP", "bob"), ("MODIFY_APP", " ops")))
    c.control.tick(4)
    with c.client:
        yield c


def acl_on(c: Cluster) -> bool:
    return c.authorizer.enabled


# -- submit: RMAppManager.createAndPopulateNewRMApp / FairScheduler.addApplication ------------

SUBMITS = [  # (submitter, queue, allowed with ACLs on, the queue the check read)
    ("alice", "root.a", True, None),  # a user aclSubmitApps names
    ("erin", "root.a", True, None),  # a member of a group it names (the static mapping)
    ("qadmin", "root.a", True, None),  # aclAdministerApps also lets submit
    ("bob", "root.b", True, None),  # *
    ("dave", "root.p.new", True, None),  # a queue made under a parent that lets him
    ("bob", "root.a", False, "root.a"),
    ("cadmin", "root.a", False, "root.a"),  # yarn.admin.acl is no submit right
    (None, "root.a", False, "root.a"),  # dr.who
    ("bob", "root.p.other", False, "root.p"),  # the nearest queue that exists is asked
    ("bob", "root.nowhere", False, "root"),
]


@pytest.mark.parametrize(("user", "queue", "allowed", "checked"), SUBMITS)
def test_a_submission_needs_submit_or_administer_on_the_queue_or_above(
        cluster: Cluster, user: str | None, queue: str, allowed: bool,
        checked: str | None) -> None:
    answer = cluster.submit("new", user, queue)
    app_id = cluster.apps["new"]
    if allowed or not acl_on(cluster):
        assert answer.status_code == 202
        cluster.control.tick(2)
        state = cluster.control.snapshot().app(app_id)
        assert state is not None
        # with ACLs off only the scheduler checks: the app is accepted, then FAILED
        assert state.state == ("FAILED" if not allowed else "ACCEPTED")
        return
    assert answer.status_code == 400
    caller = user or "dr.who"
    assert json.loads(answer.content)["RemoteException"] == {
        "exception": "BadRequestException",
        "message": "java.lang.Exception: org.apache.hadoop.security.AccessControlException: "
                   f"User {caller} does not have permission to submit {app_id} to queue "
                   f"{queue} denied by ACL for queue {checked}",
        "javaClassName": "org.apache.hadoop.yarn.webapp.BadRequestException"}
    assert cluster.control.snapshot().app(app_id) is None  # no app was made


def test_a_duplicate_id_is_refused_as_a_duplicate_before_any_acl(cluster: Cluster) -> None:
    # ClientRMService.submitApplication refuses a used id before RMAppManager looks at ACLs
    body = {"application-id": cluster.apps["main"], "queue": "root.a"}
    answer = cluster.client.post(f"{BASE}/apps?user.name=bob", json=body)
    assert answer.status_code == 400
    assert "already present" in json.loads(answer.content)["RemoteException"]["message"]


# -- kill, move, priority: ClientRMService's checkAccess (MODIFY_APP or ADMINISTER_QUEUE) ------

MAY_MODIFY = {"anonymous": False, "other": False, "owner": True, "queue-admin": True,
              "cluster-admin": True}


@pytest.mark.parametrize("caller", CALLERS)
def test_priority_needs_the_owner_or_an_admin(cluster: Cluster, caller: str) -> None:
    answer = cluster.request("PUT", "/apps/{main}/priority", CALLERS[caller], {"priority": 5})
    user = CALLERS[caller] or "dr.who"
    if MAY_MODIFY[caller] or not acl_on(cluster):
        # allowed through: FairScheduler.updateApplicationPriority then throws (503)
        assert answer.status_code == 503
    else:
        assert (answer.status_code, answer.text) == (
            403, f"Unauthorized attempt to change priority of appid {cluster.apps['main']} by "
                 f"remote user {user}")


@pytest.mark.parametrize("caller", CALLERS)
def test_a_move_needs_the_owner_or_an_admin(cluster: Cluster, caller: str) -> None:
    answer = cluster.request("PUT", "/apps/{main}/queue", CALLERS[caller], {"queue": "root.b"})
    user = CALLERS[caller] or "dr.who"
    if MAY_MODIFY[caller] or not acl_on(cluster):
        assert (answer.status_code, json.loads(answer.content)) == (200, {"queue": "root.b"})
    else:
        assert (answer.status_code, answer.text) == (
            403, f"Unauthorized attempt to move appid {cluster.apps['main']} by remote user "
                 f"{user}")
        assert cluster.control.moves == []


@pytest.mark.parametrize("target", ["root.c", "c"])
def test_a_move_needs_submit_rights_on_the_target(cluster: Cluster, target: str) -> None:
    answer = cluster.request("PUT", "/apps/{main}/queue", "alice", {"queue": target})
    if acl_on(cluster):
        assert (answer.status_code, answer.text) == (
            403, f"Unauthorized attempt to move appid {cluster.apps['main']} by remote user "
                 "alice")
    else:
        assert answer.status_code == 200  # FairQueueACLsManager lets everyone


def test_a_move_to_a_queue_that_does_not_exist_fails_its_access_check(
        cluster: Cluster) -> None:
    answer = cluster.request("PUT", "/apps/{main}/queue", "qadmin", {"queue": "root.nowhere"})
    # ACLs on: FairQueueACLsManager refuses a target that does not exist (403); off: the
    # scheduler's refusal (503)
    assert answer.status_code == (403 if acl_on(cluster) else 503)


@pytest.mark.parametrize("caller", CALLERS)
def test_a_kill_needs_the_owner_or_an_admin(cluster: Cluster, caller: str) -> None:
    answer = cluster.request("PUT", "/apps/{main}/state", CALLERS[caller], {"state": "KILLED"})
    user = CALLERS[caller] or "dr.who"
    if MAY_MODIFY[caller] or not acl_on(cluster):
        assert answer.status_code == 202
    else:
        assert (answer.status_code, answer.text) == (
            403, f"Unauthorized attempt to kill appid {cluster.apps['main']} by remote user "
                 f"{user}")
        assert not cluster.control.killing


def test_the_apps_own_acls_let_modify_and_not_view_alone(cluster: Cluster) -> None:
    # viewable: VIEW_APP bob, MODIFY_APP the group ops (frank); ApplicationACLsManager
    bob = cluster.request("PUT", "/apps/{viewable}/state", "bob", {"state": "KILLED"})
    frank = cluster.request("PUT", "/apps/{viewable}/priority", "frank", {"priority": 5})
    assert bob.status_code == (403 if acl_on(cluster) else 202)
    assert frank.status_code == 503  # allowed through to the scheduler's refusal


# -- reads: RMWebServices.hasAccess, AppInfo's reduced report ---------------------------------

MAY_VIEW = {"main": {"owner", "queue-admin", "cluster-admin"},
            "viewable": {"owner", "queue-admin", "cluster-admin", "other"}}


@pytest.mark.parametrize("caller", CALLERS)
def test_an_app_is_shown_in_full_to_whoever_may_view_it(cluster: Cluster,
                                                        caller: str) -> None:
    user = CALLERS[caller]
    listed = json.loads(cluster.request("GET", "/apps", user).content)["apps"]["app"]
    full = {a["id"] for a in listed if a["startedTime"] != 0}
    expected = {cluster.apps[name] for name, viewers in MAY_VIEW.items()
                if caller in viewers or not acl_on(cluster)}
    assert full == expected
    assert len(listed) == 2  # the list shows every app, some reduced (no per-user filter)
    for name in MAY_VIEW:
        app = json.loads(cluster.request("GET", f"/apps/{{{name}}}", user).content)["app"]
        attempts = json.loads(cluster.request("GET", f"/apps/{{{name}}}/appattempts",
                                              user).content)["appAttempts"]["appAttempt"]
        shown = cluster.apps[name] in expected
        assert (app["startedTime"] != 0, "amContainerLogs" in app) == (shown, shown)
        assert (app["user"], app["queue"]) == ("alice", "root.a")  # always there
        assert (attempts[0]["containerId"] != "") == shown


# -- cluster administration: yarn.admin.acl ----------------------------------------------------


class NodeLoop:
    """What the extensions' node routes call: records the resizes."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.resized: list[str] = []

    def resize_node(self, node_id: str, capacity: object) -> None:
        self.resized.append(node_id)


@pytest.mark.parametrize("acl_enable", [True, False])
@pytest.mark.parametrize("caller", [*CALLERS, "rm-owner"])
def test_node_management_needs_yarn_admin_acl(acl_enable: bool, caller: str) -> None:
    c = Cluster(acl_enable)
    loop = NodeLoop(c.control.engine)
    app = FastAPI()
    app.include_router(extensions_router(
        loop, c.authorizer,  # type: ignore[arg-type]
        lambda request: request.query_params.get("user.name", "dr.who")))
    user = {**CALLERS, "rm-owner": "rmowner"}[caller]
    with TestClient(app) as client:
        answer = client.put(with_user("/ws/v1/fairshare/nodes/n1:1/resource", user),
                            json={"resource": {"memory-mb": 4096, "vcores": 4}})
    if caller in ("cluster-admin", "rm-owner") or not acl_enable:
        assert answer.status_code == 200 and loop.resized == ["n1:1"]
    else:  # RMWebServices.initForWritableEndpoints(callerUGI, true)
        assert answer.status_code == 403 and loop.resized == []
        assert json.loads(answer.content)["RemoteException"] == {
            "exception": "ForbiddenException",
            "message": "java.lang.Exception: Only admins can carry out this operation.",
            "javaClassName": "org.apache.hadoop.yarn.webapp.ForbiddenException"}


def test_the_rm_owner_is_an_admin_whatever_yarn_admin_acl_says() -> None:
    # AdminACLsManager adds the RM's own user to yarn.admin.acl
    site = load_site(None, {"yarn.acl.enable": "true", "yarn.admin.acl": " admins"})
    engine = Engine(site, parse_allocations_text("<allocations/>", "a.xml",
                                                 site.resource_types),
                    groups={"ann": ("admins",)})
    authorizer = Authorizer(engine, site, owner="yarn")
    assert [authorizer.is_admin(u) for u in ("yarn", "ann", "bob")] == [True, True, False]
    everyone = Authorizer(engine, site_of(False), owner="yarn")
    assert everyone.admins.users == ("cadmin", "yarn")


# -- groups: Groups with the static mapping, then ShellBasedUnixGroupsMapping -----------------


def test_groups_come_from_the_authenticator_then_the_static_mapping_then_the_system() -> None:
    asked: list[str] = []

    def system(user: str) -> tuple[str, ...]:
        asked.append(user)
        return ("staff",)

    groups = UserGroups({"erin": ("analysts",), "dr.who": ()}, system=system)
    assert (groups["erin"], groups["dr.who"], groups["zed"], groups["zed"]) == (
        ("analysts",), (), ("staff",), ("staff",))
    assert asked == ["zed"]  # static users are never looked up; the answer is cached
    groups.first = lambda user: ("from-the-users-file",) if user == "erin" else None
    assert (groups["erin"], groups["zed"]) == (("from-the-users-file",), ("staff",))
    assert groups.get("anyone", ()) == ("staff",) and list(groups) == ["erin", "dr.who"]


def test_the_systems_groups_are_the_primary_one_first() -> None:
    me = pwd.getpwuid(os.getuid())
    found = unix_groups(me.pw_name)
    assert found and found[0] == __import__("grp").getgrgid(me.pw_gid).gr_name
    assert len(set(found)) == len(found)
    assert unix_groups("no-such-user-on-this-machine-0") == ()


def test_the_site_keys_and_their_defaults() -> None:
    default = load_site()
    assert (default.acl_enable, default.admin_acl, default.static_groups) == (
        False, "*", (("dr.who", ()),))  # yarn-default, core-default
    site = load_site(None, {"hadoop.user.group.static.mapping.overrides":
                            "alice=g1, g2,g1;bob=;;carol"})
    # Java's StringTokenizer: nothing trimmed, empty pieces skipped; LinkedHashSet of groups
    assert site.static_groups == (("alice", ("g1", " g2")), ("bob", ()), ("carol", ()))
    for bad in ("a=b=c", "="):
        with pytest.raises(ConfigError, match=r"static\.mapping\.overrides is invalid"):
            load_site(None, {"hadoop.user.group.static.mapping.overrides": bad})


def test_app_acls_default_to_nobody_but_the_owner_and_admins() -> None:
    acls = AppAcls.of((("VIEW_APP", "bob"), ("VIEW_APP", "carol")))  # the last one wins
    assert acls.acl("VIEW_APP").users == ("carol",)
    assert acls.acl("MODIFY_APP").users == () and not acls.acl("MODIFY_APP").all_allowed


def test_roots_default_lets_everyone_submit_and_administer() -> None:
    # AllocationFileLoaderService: root's ACLs default to * (both types), inherited by every
    # queue — with ACLs on and a file that sets none, bob may submit anywhere and, as an
    # administrator of every queue, kill alice's app; nothing extra is needed for a view
    site = site_of(True)
    engine = Engine(site, parse_allocations_text("<allocations><queue name='a'/></allocations>",
                                                 "a.xml", site.resource_types))
    for name in NODES:
        engine.add_node(name, r(8192, 8))
    control = FakeControl(engine)
    authorizer = Authorizer(engine, site, owner="yarn")
    with TestClient(create_rest_app(control, authorizer=authorizer)) as client:
        ids = []
        for user, queue in (("alice", "root.a"), ("bob", "root.a"), ("bob", "root.new")):
            client.cookies.clear()
            app_id = json.loads(client.post(f"{BASE}/apps/new-application").content)[
                "application-id"]
            ids.append(app_id)
            answer = client.post(f"{BASE}/apps?user.name={user}",
                                 json={"application-id": app_id, "queue": queue})
            assert answer.status_code == 202
        client.cookies.clear()
        app = json.loads(client.get(f"{BASE}/apps/{ids[0]}?user.name=bob").content)["app"]
        assert app["startedTime"] != 0
        client.cookies.clear()
        kill = client.put(f"{BASE}/apps/{ids[0]}/state?user.name=bob", json={"state": "KILLED"})
        assert kill.status_code == 202


def test_serve_gives_the_engine_yarns_groups(tmp_path: Path) -> None:
    # service.build: the static mapping of the --site file, then the system's, for placement
    # (a primaryGroup rule here) and the ACLs alike
    (tmp_path / "fs.xml").write_text(
        "<allocations><queuePlacementPolicy><rule name='primaryGroup' create='true'/>"
        "</queuePlacementPolicy></allocations>")
    (tmp_path / "site.xml").write_text(
        "<configuration><property><name>hadoop.user.group.static.mapping.overrides</name>"
        "<value>erin=analysts,ops;dr.who=;</value></property></configuration>")
    served = build(ServeOptions(tmp_path / "fs.xml", tmp_path / "site.xml", "1x4g/4",
                                out=tmp_path / "session"))
    engine = served.engine
    assert isinstance(engine.groups, UserGroups)
    assert engine.groups.get("erin", ()) == ("analysts", "ops")
    assert engine.groups.get("dr.who", ()) == ()
    assert engine.groups.get("no-such-user-on-this-machine-0", ()) == ()
    engine.submit("app_1", "default", "erin", r(1024, 1))
    assert engine.app("app_1").queue == "root.analysts"
