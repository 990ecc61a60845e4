"""crdstore's gRPC port behind HAProxy (deploy/haproxy/crdstore.cfg): its
grpc.health.v1 check marks a replica killed with -9 down and, once it is
back, up; calls go on succeeding throughout, through the other replica and
then through both; and a watch cut by an HAProxy restart resumes from its
last resourceVersion without losing or repeating an event. Until the etcd
backend lands the two replicas have stores of their own: the test writes
the same definition to both."""

from __future__ import annotations

import threading
import time

import grpc

import crdstore as client_lib
from crdstore.v1 import definitions_pb2, definitions_pb2_grpc
from conftest import Crdstore, Haproxy, register_widgets, wait_until, widget


def test_health_check_marks_a_replica_down_then_up_while_calls_succeed(workdir):
    replicas = [Crdstore(workdir, "a"), Crdstore(workdir, "b")]
    for replica in replicas:
        replica.start()
        register_widgets(replica.grpc_addr)
    proxy = Haproxy(workdir, replicas, check_interval="300ms")
    proxy.start()
    try:
        wait_until("both replicas up", lambda: proxy.status("r0") == "UP" and proxy.status("r1") == "UP")
        stub = definitions_pb2_grpc.CustomResourceDefinitionsStub(grpc.insecure_channel(proxy.grpc))
        calls, failures = [0], []

        def call() -> None:
            try:
                got = stub.Get(definitions_pb2.GetDefinitionRequest(name="widgets.example.com"), timeout=5)
                assert got.definition
            except grpc.RpcError as error:
                failures.append((time.monotonic(), error.code(), error.details()))
            calls[0] += 1

        for _ in range(20):
            call()
        assert proxy.sessions("r0") > 0 and proxy.sessions("r1") > 0, "calls go to both"

        replicas[0].kill()
        wait_until("r0 down", lambda: (call(), proxy.status("r0").startswith("DOWN"))[1], every=0.05)
        for _ in range(20):
            call()
        replicas[0].start()
        before = proxy.sessions("r0")
        wait_until("r0 up again", lambda: (call(), proxy.status("r0") == "UP")[1], every=0.05)
        for _ in range(20):
            call()
        assert proxy.sessions("r0") > before, "the revived replica serves again"
        assert not failures, f"{len(failures)} of {calls[0]} calls failed: {failures[:5]}"
    finally:
        proxy.stop()
        for replica in replicas:
            replica.stop()


def test_a_watch_cut_by_haproxy_resumes_without_losing_an_event(workdir):
    replica = Crdstore(workdir, "a")
    replica.start()
    proxy = Haproxy(workdir, [replica])
    proxy.start()
    try:
        wait_until("the replica up", lambda: proxy.status("r0") == "UP")
        widgets = register_widgets(proxy.grpc).resources("example.com", "v1", "widgets", namespace="default")
        watch = widgets.watch(resource_version=widgets.list().resource_version, bookmarks=True, retry_for=60)
        seen: list = []
        threading.Thread(target=lambda: [seen.append(e) for e in watch], daemon=True).start()
        direct = client_lib.Client(replica.grpc_addr).resources("example.com", "v1", "widgets", namespace="default")
        added = lambda: [e.object["metadata"]["name"] for e in seen if e.type == "ADDED"]  # noqa: E731
        direct.create(widget("a"))
        wait_until("the watch to see a", lambda: added() == ["a"])
        proxy.stop()
        direct.create(widget("b"))
        direct.create(widget("c"))
        proxy.start()
        wait_until("the watch to resume", lambda: added() == ["a", "b", "c"], timeout=60)
        watch.close()
        assert added() == ["a", "b", "c"]
    finally:
        proxy.stop()
        replica.stop()
