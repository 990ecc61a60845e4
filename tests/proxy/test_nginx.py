"""crdstore behind nginx (deploy/nginx/crdstore.conf): grpcurl, the Python
client and kubectl through it with nginx's basic auth, wrong credentials
refused by nginx (401, UNAUTHENTICATED), lists of a few MiB through both
ports, and watches over gRPC and HTTP that nginx cuts (a fast restart)
resuming from their last resourceVersion without losing or repeating an
event."""

from __future__ import annotations

import base64
import json
import subprocess
import threading
import time
from pathlib import Path

import grpc
import pytest
import requests

import crdstore as client_lib
from crdstore.v1 import definitions_pb2, definitions_pb2_grpc
from conftest import (
    AUTH,
    ROOT,
    TOKEN,
    WAIT,
    WRONG,
    HttpWatch,
    Nginx,
    channel,
    grpcurl,
    register_widgets,
    wait_until,
    widget,
)

# Each object ~64 KiB: 48 of them make a list of 3 MiB.
BIG = "x" * (64 * 1024)


def test_grpcurl_through_nginx(nginx: Nginx):
    auth = ["-plaintext", "-H", f"authorization: {AUTH}"]
    listed = grpcurl(*auth, nginx.grpc, "list")
    assert listed.returncode == 0, listed.stderr
    assert "crdstore.v1.CustomResources" in listed.stdout.split()
    health = grpcurl(*auth, "-d", '{"service": "crdstore.v1.CustomResources"}', nginx.grpc, "grpc.health.v1.Health/Check")
    assert json.loads(health.stdout) == {"status": "SERVING"}, health.stderr
    crd = json.dumps(json.load(open(ROOT / "examples" / "crontab-crd.json"))).encode()
    body = json.dumps({"definition": base64.b64encode(crd).decode()})
    created = grpcurl(*auth, "-d", body, nginx.grpc, "crdstore.v1.CustomResourceDefinitions/Create")
    assert created.returncode == 0, created.stderr
    name = json.loads(base64.b64decode(json.loads(created.stdout)["definition"]))["metadata"]["name"]
    assert name == "crontabs.stable.example.com"
    # A failure's details pass through: NotFound in its ErrorInfo.
    missing = grpcurl(*auth, "-d", '{"name": "none.example.com"}', nginx.grpc, "crdstore.v1.CustomResourceDefinitions/Get")
    assert missing.returncode != 0 and "NotFound" in missing.stdout + missing.stderr
    for refused in (["-plaintext", "-H", f"authorization: {WRONG}"], ["-plaintext"]):
        answer = grpcurl(*refused, nginx.grpc, "list")
        assert answer.returncode != 0
        assert "Unauthenticated" in answer.stderr, answer.stderr


def test_python_client_through_nginx(nginx: Nginx):
    client = register_widgets(nginx.grpc, AUTH)
    widgets = client.resources("example.com", "v1", "widgets", namespace="default")
    created = widgets.create(widget("w", size=3))
    got = widgets.get("w")
    assert got["metadata"]["uid"] == created["metadata"]["uid"]
    updated = widgets.update({**got, "spec": {"size": 4}})
    assert updated["spec"] == {"size": 4}
    with pytest.raises(client_lib.NotFound):
        widgets.get("none")
    for i in range(48):
        widgets.create(widget(f"big-{i:02}", data=BIG))
    page = widgets.list()
    assert len(page.items) == 49
    assert sum(len(json.dumps(o)) for o in page.items) > 3 * 1024 * 1024
    # nginx refuses wrong credentials itself: crdstore never sees them.
    for auth in (None, WRONG):
        stub = definitions_pb2_grpc.CustomResourceDefinitionsStub(channel(nginx.grpc, auth))
        with pytest.raises(grpc.RpcError) as refused:
            stub.Get(definitions_pb2.GetDefinitionRequest(name="widgets.example.com"), timeout=WAIT)
        assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED


def kubectl(kubeconfig: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["kubectl", "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True, timeout=60, cwd=ROOT
    )


def kubeconfig(path: Path, nginx: Nginx, token: str) -> Path:
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "nginx", "cluster": {"server": nginx.http, "certificate-authority": str(nginx.cert)}}],
                "contexts": [{"name": "nginx", "context": {"cluster": "nginx", "user": "me", "namespace": "default"}}],
                "users": [{"name": "me", "user": {"token": token}}],
                "current-context": "nginx",
            }
        )
    )
    return path


def test_kubectl_and_http_through_nginx(nginx: Nginx, workdir: Path):
    config = kubeconfig(workdir / "kubeconfig", nginx, TOKEN)
    for step in (
        ["create", "-f", "examples/crontab-crd.json"],
        ["wait", "--for", "condition=established", "--timeout=30s", "crd/crontabs.stable.example.com"],
        ["apply", "-f", "examples/crontab.yaml"],
        ["apply", "--server-side", "-f", "examples/crontab.yaml"],
    ):
        done = kubectl(config, *step)
        assert done.returncode == 0, done.stderr
    got = kubectl(config, "get", "crontabs", "-o", "name")
    assert got.stdout.split() == ["crontab.stable.example.com/my-new-cron-object"], got.stderr
    wrong = kubectl(kubeconfig(workdir / "wrong", nginx, "guess"), "get", "crontabs")
    # kubectl words a 401 so.
    assert wrong.returncode != 0 and "You must be logged in" in wrong.stderr, wrong.stderr

    # A list of 3 MiB streams through proxy_pass whole.
    collection = f"{nginx.http}/apis/stable.example.com/v1/namespaces/default/crontabs"
    headers = {"Authorization": AUTH}
    for i in range(48):
        body = {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": f"big-{i:02}"},
                "spec": {"cronSpec": "* * * * */5", "image": BIG}}
        assert requests.post(collection, json=body, headers=headers, timeout=WAIT, verify=nginx.cert).status_code == 201
    listed = requests.get(collection, headers=headers, timeout=WAIT, verify=nginx.cert)
    assert listed.status_code == 200 and len(listed.content) > 3 * 1024 * 1024
    assert len(listed.json()["items"]) == 49
    assert requests.get(collection, timeout=WAIT, verify=nginx.cert).status_code == 401
    refused = requests.get(collection, headers={"Authorization": WRONG}, timeout=WAIT, verify=nginx.cert)
    assert refused.status_code == 401


def test_watches_cut_by_nginx_resume_without_losing_an_event(crdstore, nginx: Nginx):
    client = register_widgets(nginx.grpc, AUTH)
    widgets = client.resources("example.com", "v1", "widgets", namespace="default")
    start = widgets.list().resource_version
    # The Python client's watch over gRPC, which resumes by itself.
    watch = widgets.watch(resource_version=start, bookmarks=True, retry_for=60)
    seen: list = []
    reader = threading.Thread(target=lambda: [seen.append(e) for e in watch], daemon=True)
    reader.start()
    # A Kubernetes HTTP watch, resumed here as client-go's reflector does.
    url = f"{nginx.http}/apis/example.com/v1/namespaces/default/widgets"
    http = HttpWatch(url, {"Authorization": AUTH}, bookmarks=True, resource_version=start, verify=nginx.cert)

    direct = client_lib.Client(crdstore.grpc_addr).resources("example.com", "v1", "widgets", namespace="default")
    direct.create(widget("a"))
    added = lambda: [e.object["metadata"]["name"] for e in seen if e.type == "ADDED"]  # noqa: E731
    wait_until("both watches to see a", lambda: added() == ["a"] and http.names() == ["a"])

    nginx.stop()
    wait_until("nginx's restart to cut the HTTP watch", lambda: http.ended_after is not None)
    direct.create(widget("b"))
    direct.create(widget("c"))
    time.sleep(1)
    nginx.start()

    resumed = HttpWatch(
        url, {"Authorization": AUTH}, bookmarks=True, resource_version=http.last_resource_version(), verify=nginx.cert
    )
    direct.create(widget("d"))
    wait_until("the resumed HTTP watch", lambda: resumed.names() == ["b", "c", "d"], timeout=30)
    wait_until("the gRPC watch to resume", lambda: added() == ["a", "b", "c", "d"], timeout=60)
    watch.close()
    resumed.close()
    assert added() == ["a", "b", "c", "d"], "nothing lost, nothing repeated"
