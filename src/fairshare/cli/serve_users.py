"""``fairshare serve-users``: entries of ``fairshare serve --users FILE`` made without
hand-rolled crypto (docs/serve.md "Security: authentication and TLS").

``add FILE USER [--groups a,b]`` sets a user's password — read from the terminal without echo
(asked twice), or from the first line of stdin when stdin is not a terminal, never from an
argument, which other users of the machine could read in the process list — kept as an argon2id
hash. ``token FILE USER [--expires 30d]`` makes a bearer token, prints it once on stdout, and
keeps only its sha-256. Either creates the file (mode 0600) or rewrites it whole, after reading
it as the server does: a broken file is exit 2 at its ``file:line``, and left as it is.
"""

from __future__ import annotations

import getpass
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated

import typer

from fairshare.cli.common import CommandGroup, err, fail, guarded, out
from fairshare.server.users import (
    Users,
    new_token,
    read_users,
    valid_user_name,
    with_password,
    with_token,
    write_users,
)
from fairshare.web.moments import duration_ms

users_app = typer.Typer(
    cls=CommandGroup, rich_markup_mode=None, no_args_is_help=True,
    help="Make the users file of fairshare serve --users: passwords (argon2 hashes), bearer "
    "tokens (sha-256 digests) and groups.")

FileArg = Annotated[Path, typer.Argument(metavar="FILE", help="The users file (created if it "
                                         "does not exist).", show_default=False)]
UserArg = Annotated[str, typer.Argument(metavar="USER", help="The user's name.",
                                        show_default=False)]


def _load(path: Path, user: str) -> Users:
    if not valid_user_name(user):
        raise fail([f"USER: {user!r} is not a user name (no spaces, colons or control "
                    "characters)"])
    if not path.exists():
        return Users()
    return guarded(lambda: read_users(path))


def _password() -> str:
    if sys.stdin.isatty():
        first = getpass.getpass("Password: ")
        if getpass.getpass("Again: ") != first:
            raise fail(["the two passwords differ: nothing was written"])
        password = first
    else:
        password = sys.stdin.readline().rstrip("\r\n")
    if not password:
        raise fail(["the password is empty (read from stdin when it is not a terminal): "
                    "nothing was written"])
    return password


@users_app.command("add")
def add(
    path: FileArg,
    user: UserArg,
    groups: Annotated[str | None, typer.Option(
        "--groups", help="The user's groups, comma-separated (replacing those listed); "
        "without it they stay as they are.")] = None,
) -> None:
    """Set USER's password (asked on the terminal, or the first line of stdin), kept as an
    argon2id hash."""
    users = _load(path, user)
    listed = None
    if groups is not None:
        listed = tuple(g.strip() for g in groups.split(",") if g.strip())
        bad = [g for g in listed if not valid_user_name(g)]
        if bad:
            raise fail([f"--groups: {bad[0]!r} is not a group name"])
    updated = with_password(users, user, _password(), listed)
    _write(path, updated)
    shown = updated.users[user].groups
    out.print(f"{user}: password set in {path}"
              + (f" (groups: {', '.join(shown) or 'none'})" if shown is not None else ""),
              soft_wrap=True)


@users_app.command("token")
def token(
    path: FileArg,
    user: UserArg,
    expires: Annotated[str | None, typer.Option(
        "--expires", help="The token stops working after this long: 30d, 12h, 90m "
        "(default: never).")] = None,
) -> None:
    """Make a bearer token for USER and print it (once: only its sha-256 is kept)."""
    now = datetime.now(UTC)
    until = None
    if expires is not None:
        try:
            until = now + timedelta(milliseconds=duration_ms(expires))
        except (ValueError, OverflowError) as e:
            raise fail([f"--expires: {e}"]) from None
    users = _load(path, user)
    secret, entry = new_token(now, until)
    _write(path, with_token(users, user, entry))
    out.print(secret, soft_wrap=True)
    err.print(f"{user}: a new token in {path}"
              + (f", expires {entry.expires:%Y-%m-%dT%H:%M:%SZ}" if entry.expires else
                 ", never expires")
              + "; only its sha-256 is kept: it cannot be shown again", soft_wrap=True)


def _write(path: Path, users: Users) -> None:
    try:
        write_users(path, users)
    except OSError as e:
        raise fail([f"{path}: cannot write the users file: {e.strerror or e}"]) from None
