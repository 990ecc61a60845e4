"""The asyncio client (crdstore.aio) against a real crdstore: the calls of
the synchronous tests that matter, each as a coroutine: definitions, every
verb with typed errors and warnings, retries, a watch that resumes after a
restart, and a watch that relists after it expired and reports what was
deleted while it was away."""

from __future__ import annotations

import asyncio
import time

import pytest

import crdstore
from crdstore.aio import AsyncClient, retry_on_conflict

from test_client import WIDGETS, widget


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


async def setup(server, namespace="default"):
    client = AsyncClient(server.grpc_addr, timeout=10)
    await client.definitions.create(WIDGETS)
    await client.definitions.wait_established("widgets.example.com")
    return client, client.resources("example.com", "v1", "widgets", namespace=namespace)


def test_definitions_and_typed_errors(server):
    async def main():
        client, _ = await setup(server)
        async with client:
            with pytest.raises(crdstore.AlreadyExists):
                await client.definitions.create(WIDGETS)
            with pytest.raises(crdstore.NotFound):
                await client.definitions.get("gadgets.example.com")
            with pytest.raises(crdstore.Invalid) as invalid:
                await client.definitions.create({**WIDGETS, "metadata": {"name": "wrong.example.com"}})
            assert any(c.field == "metadata.name" for c in invalid.value.causes), invalid.value.causes
            assert invalid.value.metadata.get("reason") == "Invalid"
            assert [d["metadata"]["name"] for d in (await client.definitions.list()).items] == ["widgets.example.com"]

    run(main())


def test_create_get_update_patch_delete(server):
    async def main():
        client, widgets = await setup(server)
        async with client:
            created = await widgets.create(widget("w1", 3, app="web"))
            assert (await widgets.get("w1"))["spec"] == {"size": 3}
            with pytest.raises(crdstore.Invalid) as invalid:
                await widgets.create(widget("w2", 50))
            assert [c.field for c in invalid.value.causes] == ["spec.size"]
            assert (await widgets.update({**created, "spec": {"size": 4}}))["spec"]["size"] == 4
            with pytest.raises(crdstore.Conflict):
                await widgets.update({**created, "spec": {"size": 5}})
            assert (await widgets.patch("w1", {"spec": {"color": "red"}}))["spec"] == {"size": 4, "color": "red"}
            ops = [{"op": "replace", "path": "/spec/size", "value": 6}]
            assert (await widgets.patch("w1", ops, patch_type="json"))["spec"]["size"] == 6
            with pytest.warns(crdstore.ServerWarning, match='unknown field "spec.extra"'):
                await widgets.patch("w1", {"spec": {"extra": 1}})
            for i in range(3):
                await widgets.create(widget(f"p{i}", tier="a"))
            assert [o["metadata"]["name"] async for o in widgets.list_all(page_size=2, label_selector="tier=a")] == [
                "p0",
                "p1",
                "p2",
            ]
            with pytest.raises(crdstore.BadRequest):
                await widgets.list(label_selector="tier in (")
            assert (await widgets.delete("w1")).deleted
            with pytest.raises(crdstore.NotFound):
                await widgets.get("w1")

    run(main())


def test_retry_on_conflict_rereads_and_retries(server):
    async def main():
        client, widgets = await setup(server)
        async with client:
            await widgets.create(widget("counter", 1))
            attempts = []

            async def bump():
                current = await widgets.get("counter")
                if not attempts:
                    await widgets.patch("counter", {"spec": {"color": "blue"}})
                attempts.append(current["metadata"]["resourceVersion"])
                current["spec"]["size"] += 1
                return await widgets.update(current)

            assert (await retry_on_conflict(bump))["spec"] == {"size": 2, "color": "blue"}
            assert len(attempts) == 2

    run(main())


def test_watch_sees_changes_and_resumes_after_a_restart(server):
    async def main():
        client, widgets = await setup(server)
        async with client:
            first = await widgets.create(widget("before"))
            watch = widgets.watch(resource_version=first["metadata"]["resourceVersion"])
            pending = asyncio.ensure_future(watch.__anext__())
            await widgets.create(widget("w1"))
            event = await pending
            assert (event.type, event.object["metadata"]["name"]) == ("ADDED", "w1")
            await widgets.patch("w1", {"spec": {"size": 2}})
            event = await watch.__anext__()
            assert (event.type, event.object["spec"]["size"]) == ("MODIFIED", 2)

            await asyncio.to_thread(server.restart)
            await widgets.create(widget("w2"))
            await widgets.delete("w1")
            seen = [await watch.__anext__() for _ in range(2)]
            assert [(e.type, e.object["metadata"]["name"]) for e in seen] == [("ADDED", "w2"), ("DELETED", "w1")]
            watch.close()

    run(main())


async def wait_expired(widgets, resource_version: str) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            await widgets.list(resource_version=resource_version, resource_version_match="Exact")
        except crdstore.Expired:
            return
        assert time.monotonic() < deadline, "the history was never compacted"
        await asyncio.sleep(0.2)


def test_watch_that_expires_while_objects_are_deleted_reports_the_deletions(short_history_server):
    async def main():
        client, widgets = await setup(short_history_server, namespace="informer")
        async with client:
            for name in ("keep", "change", "gone1", "gone2"):
                await widgets.create(widget(name))
            watch = widgets.watch()
            initial = [await watch.__anext__() for _ in range(4)]
            assert sorted((e.type, e.object["metadata"]["name"]) for e in initial) == [
                ("ADDED", n) for n in ("change", "gone1", "gone2", "keep")
            ]

            # Away (the server restarts) while objects are deleted, changed and
            # created, until its revision leaves the history.
            await asyncio.to_thread(short_history_server.restart)
            changed = await widgets.patch("change", {"spec": {"size": 2}})
            await widgets.delete("gone1")
            await widgets.delete("gone2")
            await widgets.create(widget("new"))
            await wait_expired(widgets, changed["metadata"]["resourceVersion"])

            relisted = [(e.type, e.object["metadata"]["name"]) for e in [await watch.__anext__() for _ in range(4)]]
            assert sorted(relisted[:2]) == [("ADDED", "new"), ("MODIFIED", "change")]
            assert sorted(relisted[2:]) == [("DELETED", "gone1"), ("DELETED", "gone2")]
            await widgets.delete("keep")
            event = await watch.__anext__()
            assert (event.type, event.object["metadata"]["name"]) == ("DELETED", "keep")
            watch.close()
            assert [o["metadata"]["name"] for o in (await widgets.list()).items] == ["change", "new"]

    run(main())


def test_apply_by_two_managers_conflicts_then_forces(server):
    async def main():
        client, widgets = await setup(server)
        async with client:
            assert (await widgets.apply(widget("a1", 2), field_manager="m1")).created
            with pytest.raises(crdstore.ApplyConflict) as conflict:
                await widgets.apply(widget("a1", 5), field_manager="m2")
            assert conflict.value.conflicts == [crdstore.FieldConflict(".spec.size", "m1", 'conflict with "m1"')]
            forced = await widgets.apply(widget("a1", 5), field_manager="m2", force=True)
            assert not forced.created and forced.object["spec"]["size"] == 5
            assert (await widgets.get("a1"))["spec"]["size"] == 5

    run(main())
