"""A real crdstore for the Python tests (the Python client's and the
end-to-end tests with the official Kubernetes client): the binary cargo
built, on free loopback ports, with a temporary data directory,
restartable in place. Each test directory's conftest.py exposes its
fixtures."""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator, Optional

import pytest

ROOT = Path(__file__).resolve().parents[1]


class Server:
    """One crdstore process; ``restart()`` keeps its ports and its data."""

    def __init__(self, data_dir: str, *flags: str):
        self.data_dir = data_dir
        self.flags = list(flags)
        self.binary = os.environ.get("CRDSTORE_BIN", str(ROOT / "target" / "debug" / "crdstore"))
        self.grpc_addr = "127.0.0.1:0"
        self.http_addr = "127.0.0.1:0"
        self.process: Optional[subprocess.Popen] = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "serve", "--data-dir", self.data_dir, "--grpc-addr", self.grpc_addr, "--http-addr", self.http_addr]
            + self.flags,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("crdstore listening"):
                fields = dict(part.split("=", 1) for part in line.split()[2:])
                self.grpc_addr, self.http_addr = fields["grpc"], fields["http"]
                return
        raise RuntimeError(f"crdstore exited before listening (status {self.process.wait()})")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()


def running(*flags: str) -> Iterator[Server]:
    with tempfile.TemporaryDirectory() as data_dir:
        s = Server(data_dir, *flags)
        s.start()
        try:
            yield s
        finally:
            s.stop()


@pytest.fixture
def server() -> Iterator[Server]:
    yield from running()


# Keeps history for one revision and compacts every second, so a watch
# from an old revision finds it expired.
SHORT_HISTORY = ("--history-seconds", "0", "--history-revisions", "1", "--compaction-seconds", "1")


@pytest.fixture
def short_history_server() -> Iterator[Server]:
    yield from running(*SHORT_HISTORY)
