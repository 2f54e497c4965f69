"""A server session's journal: every command the engine loop applied, in order, written as a
scenario (docs/scenario-format.md) whose steps are those commands in their JSON form
(``command`` steps), so that ``fairshare run session.yaml`` replays the session and gives the
same events as the server did.

The scenario starts from the allocation file and yarn-site the server started with and no
nodes (the server's nodes are its first command); a reload is journaled with the text YARN
read. Each line is flushed when written: a server that is killed leaves the journal up to its
last command.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TextIO

from fairshare.core import Command, command_to_json
from fairshare.resources.vector import ResourceTypes


class Journal:
    def __init__(self, path: Path, types: ResourceTypes, allocations_text: str,
                 site_file: Path | None, site: Mapping[str, str] | None = None) -> None:
        self.path = path
        self.types = types
        self._f: TextIO = path.open("w", encoding="utf-8")
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
        text = json.dumps(command_to_json(command, self.types), separators=(", ", ": "))
        self._f.write(f"  - command: {text}\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()
