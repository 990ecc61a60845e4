"""Real front ends for the proxy tests (scripts/proxy-test): nginx and
HAProxy, Debian's packages, each started here on 127.0.0.1 with its own
config and prefix in a temporary directory, in front of the crdstore binary
of tests/crdstore_server.py. Every wait has a timeout; a failing test
prints the logs of every process it started."""

from __future__ import annotations

import base64
import json
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, List, Optional

import grpc
import pytest
import requests

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from crdstore_server import Server  # noqa: E402

USER, PASSWORD = "alice", "wonderland"
# kubectl's user: a bearer token (kubectl sends no basic auth).
TOKEN_USER, TOKEN = "bob", "b0b5-t0ken"
AUTH = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
WRONG = "Basic " + base64.b64encode(f"{USER}:guess".encode()).decode()
WAIT = 20.0

# Every log a test's processes wrote, printed when it fails.
LOGS: List[Path] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" and report.failed:
        for log in LOGS:
            if log.exists():
                report.sections.append((f"log {log}", log.read_text(errors="replace")[-20000:]))


@pytest.fixture(autouse=True)
def _fresh_logs():
    LOGS.clear()
    yield


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what: str, check: Callable[[], bool], timeout: float = WAIT, every: float = 0.1) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)


def listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False


def render(template: Path, **values: str) -> str:
    """The template with each `@NAME@` replaced by its value."""
    return re.sub(r"@([A-Z_]+)@", lambda m: values[m.group(1)], template.read_text())


def with_default_timeouts(config: str) -> str:
    """The config without its timeout directives: nginx at its defaults."""
    stripped, count = re.subn(r"^\s*(grpc|proxy)_(read|send)_timeout .*\n", "", config, flags=re.M)
    assert count == 4, count
    return stripped


class Crdstore(Server):
    """The crdstore binary with its log kept for a failing test."""

    def __init__(self, workdir: Path, name: str, *flags: str):
        super().__init__(str(workdir / f"{name}-data"), *flags)
        self.log = workdir / f"{name}.log"
        LOGS.append(self.log)

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "serve", "--data-dir", self.data_dir, "--grpc-addr", self.grpc_addr, "--http-addr", self.http_addr]
            + self.flags,
            stdout=subprocess.PIPE,
            stderr=self.log.open("a"),
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line.startswith("crdstore listening"):
            raise RuntimeError(f"crdstore exited before listening (status {self.process.wait()})")
        fields = dict(part.split("=", 1) for part in line.split()[2:])
        self.grpc_addr, self.http_addr = fields["grpc"], fields["http"]

    def kill(self) -> None:
        assert self.process is not None
        self.process.kill()
        self.process.wait(timeout=10)
        self.process = None


class Nginx:
    """nginx in the foreground (`daemon off`) with a prefix of its own."""

    def __init__(self, workdir: Path, backend: Crdstore, defaults: bool = False):
        self.dir = workdir / "nginx"
        for sub in ("logs", "conf", "temp"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        self.grpc_port, self.http_port = free_port(), free_port()
        # nginx started as root runs its workers as nobody, who must read
        # the password file and write the temporary files.
        for readable in (workdir, self.dir, self.dir / "conf"):
            readable.chmod(0o755)
        (self.dir / "temp").chmod(0o777)
        htpasswd = self.dir / "conf" / "htpasswd"
        hashed = subprocess.run(["openssl", "passwd", "-apr1", PASSWORD], check=True, capture_output=True, text=True)
        htpasswd.write_text(f"{USER}:{hashed.stdout.strip()}\n")
        htpasswd.chmod(0o644)
        self.cert, key = self.dir / "conf" / "tls.crt", self.dir / "conf" / "tls.key"
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
             "-keyout", str(key), "-out", str(self.cert)],
            check=True, capture_output=True,
        )
        key.chmod(0o644)
        tokens = self.dir / "conf" / "tokens"
        tokens.write_text(f'"Bearer {TOKEN}" {TOKEN_USER};\n')
        site = render(
            ROOT / "deploy" / "nginx" / "crdstore.conf",
            CRDSTORE_GRPC=backend.grpc_addr,
            CRDSTORE_HTTP=backend.http_addr,
            LISTEN_GRPC=f"127.0.0.1:{self.grpc_port}",
            LISTEN_HTTP=f"127.0.0.1:{self.http_port}",
            HTPASSWD=str(htpasswd),
            TOKENS=str(tokens),
            TLS_CERT=str(self.cert),
            TLS_KEY=str(key),
        )
        (self.dir / "conf" / "crdstore.conf").write_text(with_default_timeouts(site) if defaults else site)
        temp = self.dir / "temp"
        (self.dir / "conf" / "nginx.conf").write_text(
            f"""worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.dir}/logs/error.log info;
events {{ worker_connections 1024; }}
http {{
    access_log {self.dir}/logs/access.log;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    include crdstore.conf;
}}
"""
        )
        LOGS.extend([self.dir / "logs" / "error.log", self.dir / "stderr.log"])
        self.process: Optional[subprocess.Popen] = None

    @property
    def grpc(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def http(self) -> str:
        return f"https://127.0.0.1:{self.http_port}"

    def start(self) -> None:
        command = ["nginx", "-p", str(self.dir), "-c", "conf/nginx.conf", "-e", "logs/error.log", "-g", "daemon off;"]
        self.process = subprocess.Popen(command, stderr=(self.dir / "stderr.log").open("a"))
        wait_until("nginx to listen", lambda: listening(self.grpc_port) and listening(self.http_port))

    def stop(self) -> None:
        """Fast shutdown (SIGTERM): every connection, watches too, is cut."""
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=WAIT)
            self.process = None


class Haproxy:
    """HAProxy in the foreground in front of `backends`' gRPC ports."""

    def __init__(self, workdir: Path, backends: List[Crdstore], check_interval: str = "500ms"):
        self.dir = workdir / "haproxy"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.socket = self.dir / "admin.sock"
        servers = "\n".join(f"    server r{i} {b.grpc_addr}" for i, b in enumerate(backends))
        config = render(
            ROOT / "deploy" / "haproxy" / "crdstore.cfg",
            ADMIN_SOCKET=str(self.socket),
            LISTEN_GRPC=f"127.0.0.1:{self.port}",
            CHECK_INTERVAL=check_interval,
            SERVERS=servers,
        )
        (self.dir / "haproxy.cfg").write_text(config)
        self.log = self.dir / "haproxy.log"
        LOGS.append(self.log)
        self.process: Optional[subprocess.Popen] = None

    @property
    def grpc(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        subprocess.run(["haproxy", "-c", "-q", "-f", str(self.dir / "haproxy.cfg")], check=True)
        out = self.log.open("a")
        self.process = subprocess.Popen(["haproxy", "-db", "-f", str(self.dir / "haproxy.cfg")], stdout=out, stderr=out)
        wait_until("haproxy to listen", lambda: listening(self.port))

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=WAIT)
            self.process = None

    def stat(self, server: str) -> dict:
        """The server's row of `show stat` on the admin socket."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(str(self.socket))
            s.sendall(b"show stat\n")
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        lines = data.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
        return next(row for row in rows if row["pxname"] == "crdstore" and row["svname"] == server)

    def status(self, server: str) -> str:
        """UP, DOWN, or a transition (`UP 1/2`)."""
        return self.stat(server)["status"]

    def sessions(self, server: str) -> int:
        """Calls sent to the server so far."""
        return int(self.stat(server)["stot"])


@pytest.fixture
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="crdstore-proxy-") as d:
        yield Path(d)


@pytest.fixture
def crdstore(workdir: Path) -> Iterator[Crdstore]:
    server = Crdstore(workdir, "crdstore")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def nginx(workdir: Path, crdstore: Crdstore) -> Iterator[Nginx]:
    proxy = Nginx(workdir, crdstore)
    proxy.start()
    yield proxy
    proxy.stop()


class Auth(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds an Authorization header to every call, as a gateway's users do."""

    def __init__(self, value: str):
        self.value = value

    def _with(self, details):
        metadata = list(details.metadata or []) + [("authorization", self.value)]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._with(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._with(details), request)


def channel(target: str, auth: Optional[str] = AUTH) -> grpc.Channel:
    plain = grpc.insecure_channel(target)
    return grpc.intercept_channel(plain, Auth(auth)) if auth else plain


WIDGETS = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "kind": "Widget"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}},
            }
        ],
    },
}


def widget(name: str, **spec) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def register_widgets(target: str, auth: Optional[str] = None):
    import crdstore as client_lib

    client = client_lib.Client(target, channel=channel(target, auth))
    client.definitions.create(WIDGETS)
    client.definitions.wait_established("widgets.example.com")
    return client


class HttpWatch:
    """A Kubernetes HTTP watch read on a thread: its events, and whether
    its stream has ended (and when)."""

    def __init__(self, url: str, headers: dict, bookmarks: bool, resource_version: str = "", verify=True):
        params = {"watch": "true", "allowWatchBookmarks": "true" if bookmarks else "false"}
        if resource_version:
            params["resourceVersion"] = resource_version
        self.started = time.monotonic()
        self.response = requests.get(
            url, params=params, headers=headers, stream=True, timeout=(5, None), verify=str(verify) if verify is not True else True
        )
        assert self.response.status_code == 200, self.response.text
        self.events: List[dict] = []
        self.ended_after: Optional[float] = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for line in self.response.iter_lines():
                if line:
                    self.events.append(json.loads(line))
        except Exception:  # noqa: BLE001 - a cut stream ends the watch, however it is cut
            pass
        self.ended_after = time.monotonic() - self.started

    def names(self, kind: str = "ADDED") -> List[str]:
        return [e["object"]["metadata"]["name"] for e in self.events if e["type"] == kind]

    def count(self, kind: str) -> int:
        return sum(e["type"] == kind for e in self.events)

    def last_resource_version(self) -> str:
        return self.events[-1]["object"]["metadata"]["resourceVersion"]

    def close(self) -> None:
        self.response.close()


def grpcurl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["grpcurl", *args], capture_output=True, text=True, timeout=WAIT)

