"""The Python client's tests run against their own `npm start` (the whole local stack, on free
ports, in a state folder of their own) and, for the faults, through a proxy in front of it that
loses answers or answers for the API.

PMAIL_NODE names the Node 22 to run the stack with (default: `node` on PATH).
"""

import http.client
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, List, Optional

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(PACKAGE))
sys.path.insert(0, PACKAGE)

from pmail import Pmail  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Stack:
    def __init__(self, process: subprocess.Popen, state_dir: str, local: dict, output: List[str]) -> None:
        self.process = process
        self.state_dir = state_dir
        self.local = local
        self.output = output
        self.url = local["api"]
        self.api_key = local["apiKey"]
        self.tenant_id = local["tenantId"]
        self.agent = local["identities"][0]
        self.peer = local["identities"][1]

    def client(self, **opts) -> Pmail:
        return Pmail(api_key=self.api_key, base_url=opts.pop("base_url", self.url), **opts)


@pytest.fixture(scope="session")
def stack():
    node = os.environ.get("PMAIL_NODE") or shutil.which("node") or "node"
    state_dir = tempfile.mkdtemp(prefix="pmail-python-")
    env = dict(
        os.environ,
        PMAIL_STATE_DIR=state_dir,
        PMAIL_PORT=str(free_port()),
        PMAIL_SES_PORT=str(free_port()),
        PMAIL_MX_PORT=str(free_port()),
    )
    process = subprocess.Popen(
        [node, "--import", "tsx", "bin/pmail-cli.ts", "start"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    output: List[str] = []
    ready = threading.Event()

    def read() -> None:
        for raw in iter(process.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            output.append(line)
            if "Ctrl-C stops everything" in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.time() + 120
    while not ready.wait(0.2):
        if process.poll() is not None or time.time() > deadline:
            process.kill()
            raise RuntimeError("npm start did not come up:\n" + "".join(output))
    with open(os.path.join(state_dir, "local.json"), encoding="utf-8") as f:
        local = json.load(f)
    yield Stack(process, state_dir, local, output)
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
    shutil.rmtree(state_dir, ignore_errors=True)


class FaultProxy:
    """An HTTP proxy in front of the API. Each request is passed on and its answer given back,
    unless a rule says otherwise: `lose(match)` passes the next matching request on and then
    closes the connection without its answer (the server did the work, the caller never hears);
    `answer(match, status, body, headers)` answers the next matching request itself, without
    passing it on. `seen` lists every request as (method, path, idempotency key)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.split("//", 1)[1]
        self.seen: List[tuple] = []
        self.rules: List[dict] = []
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def handle_one(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                key = self.headers.get("idempotency-key")
                proxy.seen.append((self.command, self.path, key))
                rule = proxy.take(self.command, self.path)
                if rule and rule["kind"] == "answer":
                    data = json.dumps(rule["body"]).encode("utf-8")
                    self.send_response(rule["status"])
                    for k, v in rule["headers"].items():
                        self.send_header(k, v)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                conn = http.client.HTTPConnection(proxy.upstream, timeout=60)
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                conn.request(self.command, self.path, body=body, headers=headers)
                res = conn.getresponse()
                data = res.read()
                conn.close()
                if rule and rule["kind"] == "lose":
                    # The answer is lost: the connection closes before any byte of it.
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                self.send_response(res.status)
                for k, v in res.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = handle_one

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self, method: str, path: str) -> Optional[dict]:
        for rule in self.rules:
            if not rule["fired"] and rule["match"](method, path):
                rule["fired"] = True
                return rule
        return None

    def lose(self, match: Callable[[str, str], bool]) -> None:
        self.rules.append({"kind": "lose", "match": match, "fired": False})

    def answer(self, match: Callable[[str, str], bool], status: int, body: dict, headers: Optional[dict] = None) -> None:
        self.rules.append(
            {"kind": "answer", "match": match, "status": status, "body": body, "headers": headers or {}, "fired": False}
        )

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxy(stack):
    p = FaultProxy(stack.url)
    yield p
    p.close()
