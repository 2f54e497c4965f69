"""``fairshare serve --users FILE``: the users file, read and written (docs/serve.md
"Security: authentication and TLS").

A YAML document with one key, ``users``: a map from each user's name to what the server knows
of them, all optional —

* ``password``: an argon2id hash of the user's password (argon2-cffi's ``PasswordHasher``, in
  the PHC string form ``$argon2id$v=19$m=…,t=…,p=…$salt$hash``), for ``--auth basic``;
* ``groups``: the user's groups, a list of names (what the authenticator's ``groups_of``
  answers; without the key the file says nothing of the user's groups);
* ``tokens``: bearer tokens for ``--auth token``, each ``{sha256: <hex digest of the token>,
  created: <ISO 8601>, expires: <ISO 8601, optional>}``. A token is 256 random bits; only its
  digest is kept, so the file never holds a secret in clear.

Every problem is a :class:`~fairshare.config.errors.ConfigError` at its ``file:line``, and no
message quotes a password or digest field's value (someone may have pasted a password there).
:func:`write_users` writes the whole document again (comments are not kept), readable by its
owner only. ``fairshare serve-users`` (:mod:`fairshare.cli.serve_users`) makes the entries.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import argon2
from argon2.exceptions import InvalidHashError

from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.sim.parse.yaml_lines import Loc, Problem, load_yaml, locate, read_text, show
from fairshare.sim.parse.yaml_lines import suggest as _suggest

__all__ = ["TokenEntry", "UserEntry", "Users", "hash_password", "new_token", "read_users",
           "render_users", "token_digest", "valid_user_name", "with_password", "with_token",
           "write_users"]

USER_KEYS = ("password", "groups", "tokens")
TOKEN_KEYS = ("sha256", "created", "expires")
_DIGEST = re.compile(r"[0-9a-f]{64}")
# a user name as HTTP Basic can carry it (RFC 7617: no colon) and a log line shows it plainly
_USER = re.compile(r"[^\s:\x00-\x1f\x7f-\x9f]+")


@dataclass(frozen=True)
class TokenEntry:
    digest: str  # the sha-256 of the token, hex
    created: datetime
    expires: datetime | None = None  # None: never

    def alive(self, now: datetime) -> bool:
        return self.expires is None or now < self.expires


@dataclass(frozen=True)
class UserEntry:
    name: str
    password: str | None = None  # an argon2 hash (PHC string)
    groups: tuple[str, ...] | None = None  # None: the file does not say
    tokens: tuple[TokenEntry, ...] = ()


@dataclass(frozen=True)
class Users:
    users: dict[str, UserEntry] = field(default_factory=dict)

    def get(self, name: str) -> UserEntry | None:
        return self.users.get(name)

    def with_user(self, entry: UserEntry) -> Users:
        return Users({**self.users, entry.name: entry})


def valid_user_name(name: str) -> bool:
    return _USER.fullmatch(name) is not None


def hash_password(password: str) -> str:
    """argon2id with argon2-cffi's default parameters (RFC 9106's second recommended set)."""
    return argon2.PasswordHasher().hash(password)


def token_digest(token: str | bytes) -> str:
    raw = token.encode("utf-8") if isinstance(token, str) else token
    return hashlib.sha256(raw).hexdigest()


def new_token(now: datetime, expires: datetime | None) -> tuple[str, TokenEntry]:
    """A new bearer token (256 random bits, URL-safe) and its entry (the digest only)."""
    token = secrets.token_urlsafe(32)
    return token, TokenEntry(token_digest(token), _whole_seconds(now),
                             None if expires is None else _whole_seconds(expires))


def _whole_seconds(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(microsecond=0)


# -- reading -----------------------------------------------------------------------------------

def read_users(path: Path) -> Users:
    """The users file at ``path``; a :class:`ConfigError` (``file:line: …``) for any problem,
    every problem found at once."""
    source = str(path)
    doc = load_yaml(read_text(path), source)
    problems: list[Problem] = list(doc.problems)
    users: dict[str, UserEntry] = {}
    top = doc.value
    if top is None:
        top = {}
    if not isinstance(top, dict):
        raise ConfigError("expected a map with the key 'users'", source, 1)
    for key in top:
        if key != "users":
            problems.append(Problem((key,), f"unknown key {key!r}{_suggest(key, ['users'])}; "
                                    "a users file has only 'users'", parent=True))
    listed = top.get("users") or {}
    if not isinstance(listed, dict):
        problems.append(Problem(("users",), f"expected a map of user names, got {show(listed)}"))
        listed = {}
    for name, value in listed.items():
        entry = _user(str(name), value, ("users", name), problems)
        if entry is not None:
            users[entry.name] = entry
    if problems:
        errors = locate(problems, doc, source)
        raise errors[0] if len(errors) == 1 else ConfigErrors(errors)
    return Users(users)


def _user(name: str, value: Any, loc: Loc, problems: list[Problem]) -> UserEntry | None:
    if not valid_user_name(name):
        problems.append(Problem(loc, f"{name!r} is not a user name (no spaces, colons or "
                                "control characters)", parent=True))
        return None
    if value is None:
        return UserEntry(name)
    if not isinstance(value, dict):
        problems.append(Problem(loc, f"expected a map ({', '.join(USER_KEYS)}), got "
                                f"{show(value)}"))
        return None
    for key in value:
        if key not in USER_KEYS:
            problems.append(Problem((*loc, key), f"unknown key {key!r}"
                                    f"{_suggest(key, USER_KEYS)}; a user has "
                                    f"{', '.join(USER_KEYS)}", parent=True))
    password = value.get("password")
    if password is not None and not _argon2_hash(password):
        # the value is not quoted: it may be a password written in clear
        problems.append(Problem((*loc, "password"), "not an argon2 hash; make the entry with "
                                "'fairshare serve-users add' (a password is never kept in "
                                "clear)"))
        password = None
    groups = value.get("groups")
    if "groups" in value:
        groups = _groups(groups, (*loc, "groups"), problems)
    tokens = value.get("tokens") or []
    if not isinstance(tokens, list):
        problems.append(Problem((*loc, "tokens"), f"expected a list, got {show(tokens)}"))
        tokens = []
    entries = [e for i, t in enumerate(tokens) if (e := _token(t, (*loc, "tokens", i),
                                                                problems)) is not None]
    return UserEntry(name, password, groups, tuple(entries))


def _argon2_hash(value: object) -> bool:
    if not isinstance(value, str) or not value.startswith("$argon2"):
        return False
    try:
        argon2.extract_parameters(value)
    except InvalidHashError:
        return False
    return True


def _groups(value: Any, loc: Loc, problems: list[Problem]) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if not isinstance(value, list):
        problems.append(Problem(loc, f"expected a list of group names, got {show(value)}"))
        return None
    groups = []
    for i, group in enumerate(value):
        if not isinstance(group, str) or not valid_user_name(group):
            problems.append(Problem((*loc, i), f"{show(group)} is not a group name"))
        else:
            groups.append(group)
    return tuple(groups)


def _token(value: Any, loc: Loc, problems: list[Problem]) -> TokenEntry | None:
    if not isinstance(value, dict):
        problems.append(Problem(loc, "expected {sha256: …, created: …, expires: …}"))
        return None
    bad = False
    for key in value:
        if key not in TOKEN_KEYS:
            problems.append(Problem((*loc, key), f"unknown key {key!r}"
                                    f"{_suggest(key, TOKEN_KEYS)}; a token has "
                                    f"{', '.join(TOKEN_KEYS)}", parent=True))
            bad = True
    digest = value.get("sha256")
    if not isinstance(digest, str) or _DIGEST.fullmatch(digest) is None:
        # not quoted either: a token pasted here in clear would be a secret
        problems.append(Problem((*loc, "sha256"), "expected the sha-256 of the token, 64 hex "
                                "digits in lower case (made by 'fairshare serve-users token')"))
        bad = True
    created = _moment(value.get("created"), (*loc, "created"), problems, required=True)
    expires = _moment(value.get("expires"), (*loc, "expires"), problems, required=False)
    if bad or created is None or (expires is None and value.get("expires") is not None):
        return None
    assert isinstance(digest, str)
    return TokenEntry(digest, created, expires)


def _moment(value: Any, loc: Loc, problems: list[Problem], *, required: bool
            ) -> datetime | None:
    if value is None:
        if required:
            problems.append(Problem(loc, "missing: expected an ISO 8601 time with its offset "
                                    "(2026-12-31T00:00:00Z)"))
        return None
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        problems.append(Problem(loc, f"expected an ISO 8601 time with its offset "
                                f"(2026-12-31T00:00:00Z), got {show(value)}"))
        return None
    return moment


# -- writing -----------------------------------------------------------------------------------

HEADER = ("# fairshare serve --users: made by 'fairshare serve-users' (docs/serve.md, "
          "\"Security: authentication and TLS\").\n"
          "# Passwords are argon2id hashes, tokens sha-256 digests: nothing here is a secret "
          "in clear.\n")


def render_users(users: Users) -> str:
    """The document :func:`read_users` reads back as ``users`` (strings as JSON strings, which
    YAML reads as double-quoted scalars)."""
    lines = [HEADER.rstrip("\n"), "users:"]
    if not users.users:
        lines[-1] = "users: {}"
    for name in sorted(users.users):
        entry = users.users[name]
        fields = []
        if entry.password is not None:
            fields.append(f"    password: {json.dumps(entry.password)}")
        if entry.groups is not None:
            fields.append(f"    groups: [{', '.join(json.dumps(g) for g in entry.groups)}]")
        if entry.tokens:
            fields.append("    tokens:")
            for token in entry.tokens:
                fields.append(f"      - sha256: {token.digest}")
                fields.append(f"        created: {_iso(token.created)}")
                if token.expires is not None:
                    fields.append(f"        expires: {_iso(token.expires)}")
        lines.append(f"  {json.dumps(name)}:" + ("" if fields else " {}"))
        lines += fields
    return "\n".join(lines) + "\n"


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_users(path: Path, users: Users) -> None:
    """``users`` written to ``path`` at once (a new file renamed over the old one), mode 0600."""
    text = render_users(users)
    folder = path.parent if str(path.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def with_password(users: Users, name: str, password: str,
                  groups: tuple[str, ...] | None) -> Users:
    """``users`` with ``name``'s password set (and its groups, when given)."""
    old = users.get(name) or UserEntry(name)
    return users.with_user(replace(old, password=hash_password(password),
                                   groups=old.groups if groups is None else groups))


def with_token(users: Users, name: str, entry: TokenEntry) -> Users:
    old = users.get(name) or UserEntry(name)
    return users.with_user(replace(old, tokens=(*old.tokens, entry)))
