"""Server-side apply with the official Kubernetes Python client: the
dynamic client's ``server_side_apply`` against crdstore's REST gateway
creates, merges by owner, refuses a conflict with Kubernetes' 409 and
takes the field with ``force_conflicts``, exactly as against a cluster
(issue 20)."""

from __future__ import annotations

import json
import time

import pytest
from kubernetes import client as k8s
from kubernetes import dynamic
from kubernetes.dynamic.exceptions import ConflictError

DEFINITION = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "gadgets.ssa.example.com"},
    "spec": {
        "group": "ssa.example.com",
        "scope": "Namespaced",
        "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
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
                            "spec": {
                                "type": "object",
                                "properties": {
                                    "replicas": {"type": "integer"},
                                    "color": {"type": "string"},
                                    "tags": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                                },
                            },
                            "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
                        },
                    }
                },
            }
        ],
    },
}


def gadget(**spec) -> dict:
    return {"apiVersion": "ssa.example.com/v1", "kind": "Gadget", "metadata": {"name": "g1", "namespace": "default"}, "spec": spec}


def managers(obj) -> dict:
    """Each managedFields entry by (manager, operation, subresource): its fields."""
    return {
        (m["manager"], m["operation"], m.get("subresource", "")): m["fieldsV1"]
        for m in obj.to_dict()["metadata"]["managedFields"]
    }


@pytest.fixture
def gadgets(server):
    configuration = k8s.Configuration()
    configuration.host = f"http://{server.http_addr}"
    api = dynamic.DynamicClient(k8s.ApiClient(configuration))
    definitions = api.resources.get(api_version="apiextensions.k8s.io/v1", kind="CustomResourceDefinition")
    definitions.create(body=DEFINITION)
    deadline = time.monotonic() + 20
    while not any(
        c.type == "Established" and c.status == "True"
        for c in (definitions.get(name="gadgets.ssa.example.com").status.conditions or [])
    ):
        assert time.monotonic() < deadline, "the definition was never established"
        time.sleep(0.05)
    api.resources.invalidate_cache()
    return api.resources.get(api_version="ssa.example.com/v1", kind="Gadget")


def test_server_side_apply_merges_by_owner_and_refuses_conflicts(gadgets):
    created = gadgets.server_side_apply(body=gadget(replicas=1, tags=["a"]), field_manager="alice")
    assert created.spec.replicas == 1 and created.metadata.uid
    assert managers(created) == {
        ("alice", "Apply", ""): {"f:spec": {"f:replicas": {}, "f:tags": {'v:"a"': {}}}},
    }

    # A second manager adds its own fields and shares a set value.
    merged = gadgets.server_side_apply(body=gadget(color="blue", tags=["a", "b"]), field_manager="bob")
    assert (merged.spec.replicas, merged.spec.color, sorted(merged.spec.tags)) == (1, "blue", ["a", "b"])
    assert managers(merged)[("bob", "Apply", "")] == {"f:spec": {"f:color": {}, "f:tags": {'v:"a"': {}, 'v:"b"': {}}}}

    # A different value for alice's field: 409, the dynamic client's typed
    # ConflictError, with Kubernetes' message and cause.
    with pytest.raises(ConflictError) as conflict:
        gadgets.server_side_apply(body=gadget(replicas=5), field_manager="bob")
    assert conflict.value.status == 409
    status = json.loads(conflict.value.body)
    assert status["reason"] == "Conflict"
    assert status["message"] == 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas'
    assert status["details"]["causes"] == [
        {"reason": "FieldManagerConflict", "message": 'conflict with "alice"', "field": ".spec.replicas"}
    ]
    assert gadgets.get(name="g1", namespace="default").spec.replicas == 1

    # Forced, bob takes the field (and, omitting color and "b", gives them up).
    forced = gadgets.server_side_apply(body=gadget(replicas=5), field_manager="bob", force_conflicts=True)
    assert forced.spec.replicas == 5 and forced.spec.color is None
    assert managers(forced) == {
        ("alice", "Apply", ""): {"f:spec": {"f:tags": {'v:"a"': {}}}},
        ("bob", "Apply", ""): {"f:spec": {"f:replicas": {}}},
    }

    # Status through /status has its own manager entry.
    status = gadgets.status.server_side_apply(
        body={"apiVersion": "ssa.example.com/v1", "kind": "Gadget", "metadata": {"name": "g1", "namespace": "default"},
              "status": {"phase": "Ready"}},
        field_manager="controller",
    )
    assert status.status.phase == "Ready"
    assert managers(status)[("controller", "Apply", "status")] == {"f:status": {"f:phase": {}}}

    # The server still serves.
    assert gadgets.get(name="g1", namespace="default").spec.replicas == 5
