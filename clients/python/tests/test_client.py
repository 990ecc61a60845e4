"""The Python client against a real crdstore: definitions, every verb,
typed errors, pagination, watch with resume across a restart."""

from __future__ import annotations

import re
import threading
import time
import queue
from pathlib import Path

import grpc
import pytest

import crdstore

WIDGETS = {
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
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"size": {"type": "integer", "maximum": 10}, "color": {"type": "string"}},
                            }
                        },
                    }
                },
            }
        ],
    },
}


def widget(name: str, size: int = 1, **labels: str) -> dict:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "labels": labels},
        "spec": {"size": size},
    }


@pytest.fixture
def widgets(server):
    client = crdstore.Client(server.grpc_addr, timeout=10)
    client.definitions.create(WIDGETS)
    client.definitions.wait_established("widgets.example.com")
    yield client.resources("example.com", "v1", "widgets", namespace="default")
    client.close()


def test_definitions_register_and_typed_errors(server):
    client = crdstore.Client(server.grpc_addr)
    created = client.definitions.create(WIDGETS)
    assert created["metadata"]["name"] == "widgets.example.com"
    established = client.definitions.wait_established("widgets.example.com")
    assert any(c["type"] == "Established" for c in established["status"]["conditions"])
    with pytest.raises(crdstore.AlreadyExists):
        client.definitions.create(WIDGETS)
    with pytest.raises(crdstore.NotFound):
        client.definitions.get("gadgets.example.com")
    bad = {**WIDGETS, "metadata": {"name": "wrong.example.com"}}
    with pytest.raises(crdstore.Invalid) as invalid:
        client.definitions.create(bad)
    assert any(c.field == "metadata.name" for c in invalid.value.causes), invalid.value.causes


def test_list_feature_gates(server):
    client = crdstore.Client(server.grpc_addr)
    gated = {**WIDGETS, "metadata": {"name": "gizmos.example.com"}}
    gated["spec"] = {
        **WIDGETS["spec"],
        "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo", "listKind": "GizmoList"},
        "customFeatureGates": {
            "component": "istio",
            "featureGates": [{"name": "SizeGate", "preRelease": "alpha", "fieldPaths": [".spec.size"]}],
        },
    }
    client.definitions.create(gated)
    gates = client.definitions.list_feature_gates(component="istio")
    assert [(g.definition, g.name, g.stage, g.default, g.enabled, g.effective, g.paths) for g in gates] == [
        ("gizmos.example.com", "SizeGate", "alpha", False, None, False, [".spec.size"])
    ]
    assert client.definitions.list_feature_gates(definition="nothing.example.com") == []


def test_create_get_update_patch_delete(widgets):
    created = widgets.create(widget("w1", 3, app="web"))
    assert created["metadata"]["uid"] and created["metadata"]["resourceVersion"]
    assert widgets.get("w1")["spec"] == {"size": 3}

    with pytest.raises(crdstore.Invalid) as invalid:
        widgets.create(widget("w2", 50))
    assert [c.field for c in invalid.value.causes] == ["spec.size"]
    assert "should be less than or equal to 10" in invalid.value.causes[0].message

    stale = dict(created)
    current = widgets.update({**created, "spec": {"size": 4}})
    assert current["spec"]["size"] == 4
    with pytest.raises(crdstore.Conflict):
        widgets.update({**stale, "spec": {"size": 5}})

    patched = widgets.patch("w1", {"spec": {"color": "red"}})
    assert patched["spec"] == {"size": 4, "color": "red"}
    patched = widgets.patch("w1", [{"op": "replace", "path": "/spec/size", "value": 6}], patch_type="json")
    assert patched["spec"]["size"] == 6

    with pytest.warns(crdstore.ServerWarning, match='unknown field "spec.extra"'):
        widgets.patch("w1", {"spec": {"extra": 1}})

    gone = widgets.delete("w1")
    assert gone.deleted
    with pytest.raises(crdstore.NotFound):
        widgets.get("w1")


def owned(name: str, owner: dict) -> dict:
    ref = {"apiVersion": "example.com/v1", "kind": "Widget", "name": owner["metadata"]["name"],
           "uid": owner["metadata"]["uid"], "blockOwnerDeletion": True}
    obj = widget(name)
    obj["metadata"]["ownerReferences"] = [ref]
    return obj


def wait_gone(widgets, name: str) -> None:
    deadline = time.time() + 30
    while True:
        try:
            widgets.get(name)
        except crdstore.NotFound:
            return
        assert time.time() < deadline, f"{name} was never deleted"
        time.sleep(0.02)


def test_delete_takes_the_propagation_policy(widgets):
    owner = widgets.create(widget("orphaner"))
    widgets.create(owned("orphan", owner))
    answer = widgets.delete("orphaner", propagation_policy="Orphan")
    assert not answer.deleted and answer.object["metadata"]["finalizers"] == ["orphan"]
    wait_gone(widgets, "orphaner")
    assert "ownerReferences" not in widgets.get("orphan")["metadata"]

    owner = widgets.create(widget("parent"))
    widgets.create(owned("child", owner))
    answer = widgets.delete("parent", propagation_policy="Foreground")
    assert not answer.deleted and answer.object["metadata"]["finalizers"] == ["foregroundDeletion"]
    wait_gone(widgets, "parent")
    wait_gone(widgets, "child")


def test_list_with_selector_and_pages(widgets):
    for i in range(7):
        widgets.create(widget(f"w{i}", tier="a" if i % 2 else "b"))
    page = widgets.list(label_selector="tier=a", limit=2)
    names = [o["metadata"]["name"] for o in page.items]
    assert names == ["w1", "w3"] and page.continue_token
    rest = widgets.list(label_selector="tier=a", limit=2, continue_token=page.continue_token)
    assert [o["metadata"]["name"] for o in rest.items] == ["w5"] and not rest.continue_token
    assert [o["metadata"]["name"] for o in widgets.list_all(page_size=3)] == [f"w{i}" for i in range(7)]
    with pytest.raises(crdstore.BadRequest):
        widgets.list(label_selector="tier in (")


def test_retry_on_conflict_rereads_and_retries(widgets):
    widgets.create(widget("counter", 1))
    attempts = []

    def bump():
        current = widgets.get("counter")
        if not attempts:
            # Someone else writes between our read and our write.
            widgets.patch("counter", {"spec": {"color": "blue"}})
        attempts.append(current["metadata"]["resourceVersion"])
        current["spec"]["size"] += 1
        return widgets.update(current)

    result = crdstore.retry_on_conflict(bump)
    assert result["spec"] == {"size": 2, "color": "blue"}
    assert len(attempts) == 2


def next_event(events: "queue.Queue", timeout: float = 20.0):
    item = events.get(timeout=timeout)
    if isinstance(item, Exception):
        raise item
    return item


def test_watch_sees_changes_and_resumes_after_a_restart(server, widgets):
    first = widgets.create(widget("before"))
    watch = widgets.watch(resource_version=first["metadata"]["resourceVersion"])
    events: "queue.Queue" = queue.Queue()

    def pump():
        try:
            for event in watch:
                events.put(event)
        except Exception as error:  # handed to the test thread
            events.put(error)

    threading.Thread(target=pump, daemon=True).start()
    widgets.create(widget("w1"))
    event = next_event(events)
    assert (event.type, event.object["metadata"]["name"]) == ("ADDED", "w1")
    widgets.patch("w1", {"spec": {"size": 2}})
    event = next_event(events)
    assert (event.type, event.object["spec"]["size"]) == ("MODIFIED", 2)

    server.restart()
    widgets.create(widget("w2"))
    widgets.delete("w1")
    seen = [next_event(events) for _ in range(2)]
    assert [(e.type, e.object["metadata"]["name"]) for e in seen] == [("ADDED", "w2"), ("DELETED", "w1")]
    watch.close()
    assert events.empty(), "no event is repeated after resuming"


def test_watch_lists_again_when_its_revision_has_expired(short_history_server):
    client = crdstore.Client(short_history_server.grpc_addr, timeout=10)
    client.definitions.create(WIDGETS)
    client.definitions.wait_established("widgets.example.com")
    widgets = client.resources("example.com", "v1", "widgets", namespace="default")
    first = widgets.create(widget("w0"))
    for i in range(1, 4):
        widgets.create(widget(f"w{i}"))
    # The first create's revision leaves the history at the next compaction.
    deadline = time.monotonic() + 20
    while True:
        try:
            widgets.list(resource_version=first["metadata"]["resourceVersion"], resource_version_match="Exact")
        except crdstore.Expired:
            break
        assert time.monotonic() < deadline, "the history was never compacted"
        time.sleep(0.2)
    watch = widgets.watch(resource_version=first["metadata"]["resourceVersion"])
    relisted = [next(watch) for _ in range(4)]
    assert [(e.type, e.object["metadata"]["name"]) for e in relisted] == [("ADDED", f"w{i}") for i in range(4)]
    widgets.create(widget("w4"))
    event = next(watch)
    assert (event.type, event.object["metadata"]["name"]) == ("ADDED", "w4")
    watch.close()


def wait_expired(widgets, resource_version: str) -> None:
    """Waits until ``resource_version`` has left the server's history."""
    deadline = time.monotonic() + 20
    while True:
        try:
            widgets.list(resource_version=resource_version, resource_version_match="Exact")
        except crdstore.Expired:
            return
        assert time.monotonic() < deadline, "the history was never compacted"
        time.sleep(0.2)


def test_watch_that_expires_while_objects_are_deleted_reports_the_deletions(short_history_server):
    client = crdstore.Client(short_history_server.grpc_addr, timeout=10)
    client.definitions.create(WIDGETS)
    client.definitions.wait_established("widgets.example.com")
    widgets = client.resources("example.com", "v1", "widgets", namespace="informer")
    for name in ("keep", "change", "gone1", "gone2"):
        widgets.create(widget(name))
    # From no revision: the current objects as ADDED, then every change.
    watch = widgets.watch()
    initial = [next(watch) for _ in range(4)]
    assert sorted((e.type, e.object["metadata"]["name"]) for e in initial) == [
        ("ADDED", n) for n in ("change", "gone1", "gone2", "keep")
    ]

    # The watch is away (the server restarts) while two objects are deleted,
    # one changes and one is created, and its revision leaves the history.
    short_history_server.restart()
    changed = widgets.patch("change", {"spec": {"size": 2}})
    widgets.delete("gone1")
    widgets.delete("gone2")
    widgets.create(widget("new"))
    wait_expired(widgets, changed["metadata"]["resourceVersion"])

    # Replace: the list's changes, then the deletions with their last state.
    relisted = [(e.type, e.object["metadata"]["name"]) for e in (next(watch) for _ in range(4))]
    assert sorted(relisted[:2]) == [("ADDED", "new"), ("MODIFIED", "change")]
    assert sorted(relisted[2:]) == [("DELETED", "gone1"), ("DELETED", "gone2")]
    # And it watches on from the list's revision.
    widgets.delete("keep")
    event = next(watch)
    assert (event.type, event.object["metadata"]["name"]) == ("DELETED", "keep")
    watch.close()
    assert [o["metadata"]["name"] for o in widgets.list().items] == ["change", "new"]


def test_watch_reports_deletions_of_the_objects_it_was_given(short_history_server):
    client = crdstore.Client(short_history_server.grpc_addr, timeout=10)
    client.definitions.create(WIDGETS)
    client.definitions.wait_established("widgets.example.com")
    widgets = client.resources("example.com", "v1", "widgets", namespace="given")
    for name in ("a", "b"):
        widgets.create(widget(name))
    listed = widgets.list()
    widgets.delete("a")
    widgets.create(widget("c"))
    widgets.create(widget("d"))
    wait_expired(widgets, listed.resource_version)
    watch = widgets.watch(resource_version=listed.resource_version, objects=listed.items)
    got = [(e.type, e.object["metadata"]["name"]) for e in (next(watch) for _ in range(3))]
    assert got == [("ADDED", "c"), ("ADDED", "d"), ("DELETED", "a")]
    watch.close()


def test_readme_example_runs(server):
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    example = re.search(r"```python\n(.*?)```", readme, re.S)
    assert example, "README.md has a Python example"
    code = example.group(1).replace('"localhost:50051"', repr(server.grpc_addr))
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["widget"]["spec"]["size"] == 4


def test_a_migration_brings_every_object_to_the_new_storage_version(server):
    client = crdstore.Client(server.grpc_addr, timeout=10)
    client.definitions.create(WIDGETS)
    client.definitions.wait_established("widgets.example.com")
    widgets = client.resources("example.com", "v1", "widgets", namespace="default")
    for i in range(20):
        widgets.create(widget(f"w{i}", size=i % 10))
    definition = client.definitions.get("widgets.example.com")
    v1 = definition["spec"]["versions"][0]
    definition["spec"]["versions"] = [dict(v1, storage=False), dict(v1, name="v2", storage=True)]
    assert client.definitions.update(definition)["status"]["storedVersions"] == ["v1", "v2"]

    seen = []
    done = client.migrations.run("widgets.example.com", name="to-v2", progress=seen.append)
    assert (done.phase, done.target_version, done.migrated) == ("Succeeded", "v2", 20)
    assert seen and seen[-1].done
    assert done.object["kind"] == "StorageVersionMigration"
    assert [m.name for m in client.migrations.list()] == ["to-v2"]
    assert client.definitions.get("widgets.example.com")["status"]["storedVersions"] == ["v2"]
    assert widgets.get("w3")["spec"]["size"] == 3
    with pytest.raises(crdstore.AlreadyExists):
        client.migrations.start("widgets.example.com", name="to-v2")
    with pytest.raises(crdstore.NotFound):
        client.migrations.get("nope")


def test_convert_between_versions(server):
    client = crdstore.Client(server.grpc_addr, timeout=10)
    gadgets = {
        **WIDGETS,
        "metadata": {"name": "gadgets.example.com"},
        "spec": {
            **WIDGETS["spec"],
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget", "listKind": "GadgetList"},
            "versions": [WIDGETS["spec"]["versions"][0], {**WIDGETS["spec"]["versions"][0], "name": "v2", "storage": False}],
            "conversion": {"strategy": "None"},
        },
    }
    client.definitions.create(gadgets)
    client.definitions.wait_established("gadgets.example.com")

    def at(version: str, name: str) -> dict:
        return {"apiVersion": f"example.com/{version}", "kind": "Gadget", "metadata": {"name": name}, "spec": {"size": 1}}

    out = client.resources("example.com", "v2", "gadgets").convert([at("v1", "a"), at("v2", "b")])
    assert [o["apiVersion"] for o in out] == ["example.com/v2", "example.com/v2"]
    assert [o["metadata"]["name"] for o in out] == ["a", "b"]
    with pytest.raises(crdstore.BadRequest) as refused:
        client.resources("example.com", "v1", "gadgets").convert([at("v1", "a"), at("v9", "b")])
    assert str(refused.value.message).startswith("objects[1]: ")


def test_apply_by_two_managers_conflicts_then_forces(widgets):
    applied = widgets.apply(widget("a1", 2), field_manager="m1")
    assert applied.created and applied.object["spec"] == {"size": 2}
    assert not widgets.apply(widget("a1", 2), field_manager="m1").created
    # A second manager with an opinion on another field shares the object.
    color = {**widget("a1"), "spec": {"color": "red"}}
    assert widgets.apply(color, field_manager="m2").object["spec"] == {"size": 2, "color": "red"}
    with pytest.raises(crdstore.ApplyConflict) as conflict:
        widgets.apply(widget("a1", 5), field_manager="m2")
    assert isinstance(conflict.value, crdstore.Conflict), "an apply conflict is a Conflict too"
    assert conflict.value.conflicts == [crdstore.FieldConflict(".spec.size", "m1", 'conflict with "m1"')]
    assert widgets.get("a1")["spec"]["size"] == 2
    dry = widgets.apply(widget("a1", 5), field_manager="m2", force=True, dry_run=True)
    assert dry.object["spec"]["size"] == 5 and widgets.get("a1")["spec"]["size"] == 2
    forced = widgets.apply(widget("a1", 5), field_manager="m2", force=True)
    # m2 took size and no longer applies color, which only it owned: gone.
    assert forced.object["spec"] == {"size": 5}
    assert "m2" in [e["manager"] for e in forced.object["metadata"]["managedFields"]]
    with pytest.raises(crdstore.Invalid) as invalid:
        widgets.apply(widget("a1", 5), field_manager="")
    assert [c.field for c in invalid.value.causes] == ["fieldManager"]
    with pytest.raises(ValueError):
        widgets.apply(widget("a1", 5), field_manager="m2", subresource="scale")
    # A stale update is still a plain Conflict.
    with pytest.raises(crdstore.Conflict) as stale:
        widgets.update({**forced.object, "metadata": {**forced.object["metadata"], "resourceVersion": "1"}})
    assert not isinstance(stale.value, crdstore.ApplyConflict)


def test_a_name_of_ten_thousand_characters_is_invalid_with_a_short_message(widgets, server):
    # The gRPC C core refuses trailers over 16 KiB as RESOURCE_EXHAUSTED
    # "received metadata size exceeds hard limit": the error must fit them
    # to reach this client with its own code.
    name = "n" * 10_000
    for call in (lambda: widgets.get(name), lambda: widgets.delete(name)):
        with pytest.raises(crdstore.Invalid) as invalid:
            call()
        assert invalid.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert len(invalid.value.message.encode()) < 1024, len(invalid.value.message)
        assert "metadata.name: Too long: must have at most 253 bytes" in invalid.value.message
        assert [c.field for c in invalid.value.causes] == ["metadata.name"]
    client = crdstore.Client(server.grpc_addr, timeout=10)
    with pytest.raises(crdstore.Invalid) as invalid:
        client.definitions.get(name)
    assert len(invalid.value.message.encode()) < 1024
    with pytest.raises(crdstore.Invalid) as invalid:
        widgets.create(widget(name))
    assert invalid.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert len(invalid.value.message.encode()) < 1024, invalid.value.message
    client.close()
