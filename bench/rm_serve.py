"""A stand-in ResourceManager for bench/watch.py: serves generated answers (bench/rm_answers.py)
on 127.0.0.1 from a process of its own, so that the watcher's CPU and memory are measured
alone. Each GET of ``/ws/v1/cluster/scheduler`` moves to the next tick's answers.

    python bench/rm_serve.py PARENTS LEAVES NODES APPS TICKS  # prints "PORT n"; until killed
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rm_answers import Cluster, answers

ROUTES = {"/ws/v1/cluster/info": "info.json", "/ws/v1/cluster": "info.json",
          "/ws/v1/cluster/scheduler": "scheduler.json", "/ws/v1/cluster/nodes": "nodes.json",
          "/ws/v1/cluster/apps": "apps.json", "/ws/v1/cluster/metrics": "metrics.json"}


def main() -> None:
    parents, leaves, nodes, apps, ticks = (int(a) for a in sys.argv[1:6])
    cluster = Cluster(parents, leaves, nodes, apps)
    bodies = [{k: v.encode() for k, v in answers(cluster, t).items()} for t in range(ticks)]
    state = {"tick": 0}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            name = ROUTES.get(path)
            if name is None:
                self.send_error(404)
                return
            if name == "scheduler.json":
                state["tick"] = (state["tick"] + 1) % ticks
            body = bodies[state["tick"]][name]
            if name == "apps.json" and "FINISHED" in self.path:
                body = b'{"apps":null}'  # the generated apps all run: none finished
            self.send_response(200)
            self.send_header("Content-Type", "application/json;charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
