"""The official Kubernetes Python client (its dynamic client) against
crdstore's REST gateway: create, get, list with a label selector, watch,
patch, status update and delete, exactly as against a cluster."""

from __future__ import annotations

import threading
import time

import pytest
from kubernetes import client as k8s
from kubernetes import dynamic
from kubernetes.client.rest import ApiException

DEFINITION = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.com"},
    "spec": {
        "group": "example.com",
        "scope": "Namespaced",
        "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {"type": "object", "properties": {"size": {"type": "integer", "maximum": 10}}},
                            "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
                        },
                    }
                },
            }
        ],
    },
}


def widget(name: str, size: int = 1, **labels: str) -> dict:
    return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name, "labels": labels}, "spec": {"size": size}}


@pytest.fixture
def widgets(server):
    configuration = k8s.Configuration()
    configuration.host = f"http://{server.http_addr}"
    api = dynamic.DynamicClient(k8s.ApiClient(configuration))
    definitions = api.resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    definitions.create(body=DEFINITION)
    deadline = time.monotonic() + 20
    while not any(
        c.type == "Established" and c.status == "True"
        for c in (definitions.get(name="widgets.example.com").status.conditions or [])
    ):
        assert time.monotonic() < deadline, "the definition was never established"
        time.sleep(0.05)
    api.resources.invalidate_cache()
    return api.resources.get(api_version="example.com/v1", kind="Widget")


def test_the_dynamic_client_goes_through_every_verb(widgets):
    created = widgets.create(body=widget("w1", 3, app="web"), namespace="default")
    assert created.metadata.uid and created.spec.size == 3
    widgets.create(body=widget("w2", 1, app="db"), namespace="default")

    got = widgets.get(name="w1", namespace="default")
    assert got.metadata.labels.app == "web"
    listed = widgets.get(namespace="default", label_selector="app=web")
    assert [item.metadata.name for item in listed.items] == ["w1"]

    with pytest.raises(ApiException) as invalid:
        widgets.create(body=widget("w3", 50), namespace="default")
    assert invalid.value.status == 422 and "spec.size" in invalid.value.body

    patched = widgets.patch(
        name="w1", namespace="default", body={"spec": {"size": 4}}, content_type="application/merge-patch+json"
    )
    assert patched.spec.size == 4 and patched.metadata.generation == 2

    current = widgets.get(name="w1", namespace="default").to_dict()
    current["status"] = {"phase": "Ready"}
    status = widgets.status.replace(body=current, namespace="default")
    assert status.status.phase == "Ready" and status.metadata.generation == 2

    widgets.delete(name="w1", namespace="default")
    with pytest.raises(ApiException) as gone:
        widgets.get(name="w1", namespace="default")
    assert gone.value.status == 404


def test_the_dynamic_client_watches_changes(widgets):
    first = widgets.create(body=widget("w1"), namespace="default")
    seen = []
    started = threading.Event()

    def watch():
        started.set()
        for event in widgets.watch(
            namespace="default", resource_version=first.metadata.resourceVersion, timeout=10
        ):
            seen.append((event["type"], event["object"].metadata.name))
            if len(seen) == 2:
                return

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    started.wait()
    time.sleep(0.3)
    widgets.patch(name="w1", namespace="default", body={"spec": {"size": 2}}, content_type="application/merge-patch+json")
    widgets.delete(name="w1", namespace="default")
    thread.join(timeout=15)
    assert seen == [("MODIFIED", "w1"), ("DELETED", "w1")]


def test_the_typed_core_api_creates_and_patches_namespaces_and_events(server):
    """The typed CoreV1Api as a new user writes it: models without
    apiVersion and kind, and patch_namespace's strategic merge patch."""
    configuration = k8s.Configuration()
    configuration.host = f"http://{server.http_addr}"
    core = k8s.CoreV1Api(k8s.ApiClient(configuration))
    created = core.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name="typed")))
    assert (created.api_version, created.kind, created.status.phase) == ("v1", "Namespace", "Active")
    patched = core.patch_namespace("typed", {"metadata": {"labels": {"tier": "gold"}}})
    assert patched.metadata.labels["tier"] == "gold"
    assert patched.metadata.labels["kubernetes.io/metadata.name"] == "typed"

    event = k8s.CoreV1Event(
        metadata=k8s.V1ObjectMeta(name="seen"),
        involved_object=k8s.V1ObjectReference(kind="Pod", name="p", namespace="typed"),
        reason="Checked",
        message="first",
        type="Normal",
        count=1,
    )
    core.create_namespaced_event("typed", event)
    bumped = core.patch_namespaced_event("seen", "typed", {"count": 2, "message": "again"})
    assert (bumped.count, bumped.message, bumped.reason) == (2, "again", "Checked")
