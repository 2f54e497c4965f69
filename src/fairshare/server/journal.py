"""A server session's journal: every command the engine loop applied, in order, written as a
scenario (docs/scenario-format.md) whose steps are those commands in their JSON form
(``command`` steps), so that ``fairshare run session.yaml`` replays the session and gives the
same events as the server did.

The scenario starts from the allocation file and yarn-site the server started with and no
nodes (the server's nodes are its first command); a reload is journaled with the text YARN
read. A request's command (a submission, a kill, a move, a node's change, an AM's asks…)
is flushed when written, with every line before it; the clock's own — heartbeats (thousands
a second on a large cluster), update passes and the clock's moves — go out with the next
request's or once the file's buffer fills (each write a system call, which a busy engine
thread pays for in the GIL). A server that is killed leaves the journal complete up to its
last request; a replay of it ends there or a little later, not where the server stopped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from fairshare.core import AdvanceTo, Command, Heartbeat, Update, command_to_json
from fairshare.resources.vector import ResourceTypes

BUFFER_BYTES = 1 << 20  # the clock's lines of a few seconds of 5,000 nodes
_CLOCK = (AdvanceTo, Update)  # with Heartbeat: what the clock applies by itself


class Journal:
    def __init__(self, path: Path, types: ResourceTypes, allocations_text: str,
                 site_file: Path | None, site: Mapping[str, str] | None = None) -> None:
        self.path = path
        self.types = types
        self._f: TextIO = path.open("w", encoding="utf-8", buffering=BUFFER_BYTES)
        self._heartbeats: dict[str, str] = {}  # a node's heartbeat line, by node
        head = ["# fairshare serve: a session's commands, replayed by `fairshare run`",
                "version: 1", "name: serve session"]
        if site_file is not None:
            head.append(f"site-file: {json.dumps(str(site_file.resolve()))}")
        if site:
            head.append("site:")
            head.extend(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in site.items())
        head.append("allocations: |")
        head.extend(f"  {line}" if line else "" for line in
                    (allocations_text or "<allocations/>").splitlines())
        head.append("steps:")
        self._f.write("\n".join(head) + "\n")
        self._f.flush()

    def __call__(self, command: Command) -> None:
        if type(command) is Heartbeat:  # every node every interval: its line written once
            line = self._heartbeats.get(command.node)
            if line is None:
                line = self._heartbeats[command.node] = self._line(command)
            self._f.write(line)
            return
        self._f.write(self._line(command))
        if type(command) not in _CLOCK:
            self._f.flush()

    def _line(self, command: Command) -> str:
        text = json.dumps(command_to_json(command, self.types), separators=(", ", ": "))
        return f"  - command: {text}\n"

    def close(self) -> None:
        self._f.close()
