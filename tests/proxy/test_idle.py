"""Watches through each proxy, at the proxies' default timeouts (nginx's
60 s read timeouts, Debian's HAProxy's 50 s), stay open for ten minutes
with nothing to report: crdstore sends a bookmark after every 30 s of
silence to a watch that asks for bookmarks. The same watches without
bookmarks are cut by the proxies within a minute or so, which shows that
the defaults are in force and that the bookmarks are what keeps the others
open. After the idle time one write reaches every surviving watch.

scripts/proxy-test runs this file alone (`scripts/proxy-test idle`), and
scripts/test starts it first, in the background, and waits for it at the
end, so that its ten minutes overlap the rest of the run.
CRDSTORE_PROXY_IDLE_SECONDS shortens the idle time for a quick try."""

from __future__ import annotations

import json
import os
import threading
import time
from typing import List, Optional

import grpc

import crdstore as client_lib
from crdstore.v1 import common_pb2, resources_pb2, resources_pb2_grpc
from conftest import AUTH, Crdstore, Haproxy, HttpWatch, Nginx, channel, register_widgets, wait_until, widget

IDLE = float(os.environ.get("CRDSTORE_PROXY_IDLE_SECONDS", "600"))


class GrpcWatch:
    """A gRPC watch of widgets read on a thread, as HttpWatch."""

    def __init__(self, target: str, auth: Optional[str], bookmarks: bool, resource_version: str):
        stub = resources_pb2_grpc.CustomResourcesStub(channel(target, auth))
        ref = resources_pb2.ResourceRef(group="example.com", version="v1", resource="widgets", namespace="default")
        options = common_pb2.WatchOptions(resource_version=resource_version, allow_bookmarks=bookmarks)
        self.started = time.monotonic()
        self.call = stub.Watch(resources_pb2.WatchResourcesRequest(ref=ref, options=options))
        self.events: List[dict] = []
        self.arrivals: List[float] = []
        self.ended_after: Optional[float] = None
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for message in self.call:
                self.arrivals.append(time.monotonic())
                kind = common_pb2.EventType.Name(message.type).removeprefix("EVENT_TYPE_")
                self.events.append({"type": kind, "object": json.loads(message.object)})
        except grpc.RpcError:
            pass
        self.ended_after = time.monotonic() - self.started

    def names(self, kind: str = "ADDED") -> List[str]:
        return [e["object"]["metadata"]["name"] for e in self.events if e["type"] == kind]

    def count(self, kind: str) -> int:
        return sum(e["type"] == kind for e in self.events)

    def close(self) -> None:
        self.call.cancel()


def test_watches_through_each_proxy_survive_ten_idle_minutes(workdir):
    server = Crdstore(workdir, "crdstore")
    server.start()
    nginx = Nginx(workdir, server, defaults=True)
    nginx.start()
    haproxy = Haproxy(workdir, [server])
    haproxy.start()
    try:
        wait_until("HAProxy's check to pass", lambda: haproxy.status("r0") == "UP")
        widgets = register_widgets(server.grpc_addr).resources("example.com", "v1", "widgets", namespace="default")
        start = widgets.list().resource_version
        url = f"{nginx.http}/apis/example.com/v1/namespaces/default/widgets"
        auth = {"Authorization": AUTH}
        kept = {
            "nginx proxy_pass": HttpWatch(url, auth, bookmarks=True, resource_version=start, verify=nginx.cert),
            "nginx grpc_pass": GrpcWatch(nginx.grpc, AUTH, bookmarks=True, resource_version=start),
            "HAProxy": GrpcWatch(haproxy.grpc, None, bookmarks=True, resource_version=start),
        }
        silent = {
            "nginx proxy_pass": HttpWatch(url, auth, bookmarks=False, resource_version=start, verify=nginx.cert),
            "nginx grpc_pass": GrpcWatch(nginx.grpc, AUTH, bookmarks=False, resource_version=start),
            "HAProxy": GrpcWatch(haproxy.grpc, None, bookmarks=False, resource_version=start),
        }
        began = time.monotonic()
        # nginx's grpc_pass resets the client's stream some 30 s after its
        # read timeout has ended the upstream one.
        wait_until("the proxies to cut the silent watches", lambda: all(w.ended_after for w in silent.values()),
                   timeout=150, every=1)
        for name, watch in silent.items():
            assert 45 <= watch.ended_after <= 150, f"{name} cut a silent watch after {watch.ended_after:.0f}s"
            print(f"{name} cut a silent watch after {watch.ended_after:.0f}s")
        time.sleep(max(0.0, IDLE - (time.monotonic() - began)))
        for name, watch in kept.items():
            assert watch.ended_after is None, f"{name} cut a watch with bookmarks after {watch.ended_after:.0f}s"
            assert watch.names() == [], name
            bookmarks = watch.count("BOOKMARK")
            assert bookmarks >= IDLE / 30 - 2, f"{name}: {bookmarks} bookmarks in {IDLE:.0f}s"
        client_lib.Client(server.grpc_addr).resources("example.com", "v1", "widgets", namespace="default").create(
            widget("after-the-quiet")
        )
        wait_until("every watch to see the write", lambda: all(w.names() == ["after-the-quiet"] for w in kept.values()))
        for watch in kept.values():
            watch.close()
    finally:
        haproxy.stop()
        nginx.stop()
        server.stop()
