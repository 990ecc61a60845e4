"""The asyncio variant of :mod:`crdstore.client`, over ``grpc.aio``.

``AsyncClient`` mirrors :class:`crdstore.Client` call for call, each a
coroutine: ``await client.definitions.create(...)``,
``await widgets.get("w")``, and ``async for event in widgets.watch()``.
Objects, errors, warnings and the watch's resume and relist contract are
those of the synchronous client.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Iterable, List, Optional, TypeVar

import grpc
import grpc.aio

from crdstore.client import (
    _EVENT_TYPES,
    _FIELD_VALIDATION,
    _PATCH_TYPES,
    _SUBRESOURCES,
    Applied,
    Deleted,
    Event,
    FeatureGate,
    Object,
    Page,
    ServerWarning,
    _decode,
    _encode,
    _key,
    _apply_request,
    _replace,
    _write_options,
)
from crdstore.errors import Conflict, Expired, Unavailable, from_rpc_error
from crdstore.v1 import common_pb2, definitions_pb2, definitions_pb2_grpc, resources_pb2, resources_pb2_grpc

T = TypeVar("T")

_MATCHES = {
    "": common_pb2.RESOURCE_VERSION_MATCH_UNSPECIFIED,
    "NotOlderThan": common_pb2.RESOURCE_VERSION_MATCH_NOT_OLDER_THAN,
    "Exact": common_pb2.RESOURCE_VERSION_MATCH_EXACT,
}


class AsyncClient:
    """A connection to one crdstore server, e.g. ``AsyncClient("localhost:50051")``;
    pass ``channel`` for TLS or interceptors (``grpc.aio.secure_channel``)."""

    def __init__(self, target: str, *, timeout: Optional[float] = 30.0, channel: Optional[grpc.aio.Channel] = None):
        self._channel = channel or grpc.aio.insecure_channel(target)
        self._timeout = timeout
        self._definitions = definitions_pb2_grpc.CustomResourceDefinitionsStub(self._channel)
        self._resources = resources_pb2_grpc.CustomResourcesStub(self._channel)
        self.definitions = AsyncDefinitions(self)

    def resources(self, group: str, version: str, resource: str, namespace: str = "") -> "AsyncResources":
        """The objects of one resource type, at one version; ``namespace`` is the
        default for calls that do not name one."""
        return AsyncResources(self, group, version, resource, namespace)

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, method: Callable[..., Any], request: Any) -> Any:
        """A unary call: errors become crdstore exceptions, warnings Python
        warnings; a call made while the server is away waits for it, up to
        the client's timeout."""
        call = method(request, timeout=self._timeout, wait_for_ready=True)
        try:
            response = await call
            metadata = await call.initial_metadata()
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        for key, value in metadata or ():
            if key == "warning":
                warnings.warn(value, ServerWarning, stacklevel=3)
        return response


class AsyncDefinitions:
    """Custom resource definitions, as dicts (apiextensions.k8s.io/v1)."""

    def __init__(self, client: AsyncClient):
        self._client = client

    async def create(
        self, definition: Object, *, dry_run: bool = False, field_validation: Optional[str] = None
    ) -> Object:
        request = definitions_pb2.CreateDefinitionRequest(
            definition=_encode(definition), options=_write_options(dry_run, field_validation, "")
        )
        return _decode((await self._client._call(self._client._definitions.Create, request)).definition)

    async def get(self, name: str) -> Object:
        request = definitions_pb2.GetDefinitionRequest(name=name)
        return _decode((await self._client._call(self._client._definitions.Get, request)).definition)

    async def list(self, *, label_selector: str = "", limit: int = 0, continue_token: str = "") -> Page:
        options = common_pb2.ListOptions(label_selector=label_selector, limit=limit, continue_token=continue_token)
        request = definitions_pb2.ListDefinitionsRequest(options=options)
        response = await self._client._call(self._client._definitions.List, request)
        items = [_decode(i) for i in response.items]
        return Page(items, response.resource_version, response.continue_token, response.remaining_item_count)

    async def update(self, definition: Object, *, dry_run: bool = False) -> Object:
        request = definitions_pb2.UpdateDefinitionRequest(
            definition=_encode(definition), options=_write_options(dry_run, None, "")
        )
        return _decode((await self._client._call(self._client._definitions.Update, request)).definition)

    async def delete(self, name: str) -> Deleted:
        request = definitions_pb2.DeleteDefinitionRequest(name=name)
        response = await self._client._call(self._client._definitions.Delete, request)
        return Deleted(_decode(response.definition), response.deleted)

    async def list_feature_gates(self, *, definition: str = "", component: str = "") -> List[FeatureGate]:
        """The field-level feature gates of every definition, or only those of
        one definition or component."""
        request = definitions_pb2.ListFeatureGatesRequest(definition=definition, component=component)
        response = await self._client._call(self._client._definitions.ListFeatureGates, request)
        return [
            FeatureGate(
                g.definition,
                g.component,
                g.name,
                g.stage,
                g.default,
                g.enabled if g.HasField("enabled") else None,
                g.effective,
                list(g.paths),
            )
            for g in response.gates
        ]

    async def wait_established(self, name: str, timeout: float = 30.0) -> Object:
        """Waits until the definition's ``Established`` condition is True, and
        returns it; raises TimeoutError when it is not by then."""
        deadline = time.monotonic() + timeout
        while True:
            definition = await self.get(name)
            conditions = definition.get("status", {}).get("conditions", [])
            if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                return definition
            if time.monotonic() > deadline:
                raise TimeoutError(f"definition {name} is not established after {timeout}s: {conditions}")
            await asyncio.sleep(0.05)


class AsyncResources:
    """The objects of one resource type, at one version, as dicts."""

    def __init__(self, client: AsyncClient, group: str, version: str, resource: str, namespace: str):
        self._client = client
        self.group, self.version, self.resource, self.namespace = group, version, resource, namespace

    def _ref(self, namespace: Optional[str] = None, name: str = "") -> resources_pb2.ResourceRef:
        return resources_pb2.ResourceRef(
            group=self.group,
            version=self.version,
            resource=self.resource,
            namespace=self.namespace if namespace is None else namespace,
            name=name,
        )

    def _of(self, obj: Object, namespace: Optional[str]) -> resources_pb2.ResourceRef:
        meta = obj.get("metadata", {})
        return self._ref(namespace if namespace is not None else meta.get("namespace", self.namespace), meta.get("name", ""))

    async def create(
        self,
        obj: Object,
        *,
        namespace: Optional[str] = None,
        dry_run: bool = False,
        field_validation: Optional[str] = None,
        field_manager: str = "",
    ) -> Object:
        ref = self._of(obj, namespace)
        ref.name = ""
        request = resources_pb2.CreateResourceRequest(
            ref=ref, object=_encode(obj), options=_write_options(dry_run, field_validation, field_manager)
        )
        return _decode((await self._client._call(self._client._resources.Create, request)).object)

    async def get(self, name: str, *, namespace: Optional[str] = None) -> Object:
        request = resources_pb2.GetResourceRequest(ref=self._ref(namespace, name))
        return _decode((await self._client._call(self._client._resources.Get, request)).object)

    async def list(
        self,
        *,
        namespace: Optional[str] = None,
        label_selector: str = "",
        field_selector: str = "",
        limit: int = 0,
        continue_token: str = "",
        resource_version: str = "",
        resource_version_match: str = "",
    ) -> Page:
        """One page; pass the returned ``continue_token`` for the next."""
        if resource_version_match not in _MATCHES:
            raise ValueError(f"resource_version_match must be NotOlderThan or Exact, not {resource_version_match!r}")
        options = common_pb2.ListOptions(
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit,
            continue_token=continue_token,
            resource_version=resource_version,
            resource_version_match=_MATCHES[resource_version_match],
        )
        request = resources_pb2.ListResourcesRequest(ref=self._ref(namespace), options=options)
        response = await self._client._call(self._client._resources.List, request)
        items = [_decode(i) for i in response.items]
        return Page(items, response.resource_version, response.continue_token, response.remaining_item_count)

    async def list_all(self, *, page_size: int = 500, **selectors: Any) -> AsyncIterator[Object]:
        """Every matching object, fetched a page at a time."""
        token = ""
        while True:
            page = await self.list(limit=page_size, continue_token=token, **selectors)
            for item in page.items:
                yield item
            token = page.continue_token
            if not token:
                return

    async def update(
        self, obj: Object, *, dry_run: bool = False, field_validation: Optional[str] = None, field_manager: str = ""
    ) -> Object:
        """Replaces the object; a stale ``metadata.resourceVersion`` raises :class:`Conflict`."""
        request = resources_pb2.UpdateResourceRequest(
            ref=self._of(obj, None), object=_encode(obj), options=_write_options(dry_run, field_validation, field_manager)
        )
        return _decode((await self._client._call(self._client._resources.Update, request)).object)

    async def update_status(self, obj: Object, *, dry_run: bool = False) -> Object:
        request = resources_pb2.UpdateStatusRequest(
            ref=self._of(obj, None), object=_encode(obj), options=_write_options(dry_run, None, "")
        )
        return _decode((await self._client._call(self._client._resources.UpdateStatus, request)).object)

    async def patch(
        self,
        name: str,
        patch: Any,
        *,
        patch_type: str = "merge",
        subresource: Optional[str] = None,
        namespace: Optional[str] = None,
        dry_run: bool = False,
        field_validation: Optional[str] = None,
    ) -> Object:
        """A JSON merge patch (a dict) or a JSON patch (a list, ``patch_type="json"``)."""
        if patch_type not in _PATCH_TYPES:
            raise ValueError(f"patch_type must be 'merge' or 'json', not {patch_type!r}")
        if subresource not in _SUBRESOURCES:
            raise ValueError(f"subresource must be 'status' or 'scale', not {subresource!r}")
        request = resources_pb2.PatchResourceRequest(
            ref=self._ref(namespace, name),
            patch_type=_PATCH_TYPES[patch_type],
            patch=_encode(patch),
            subresource=_SUBRESOURCES[subresource],
            options=_write_options(dry_run, field_validation, ""),
        )
        return _decode((await self._client._call(self._client._resources.Patch, request)).object)

    async def apply(
        self,
        obj: Object,
        *,
        field_manager: str,
        force: bool = False,
        dry_run: bool = False,
        subresource: Optional[str] = None,
        namespace: Optional[str] = None,
    ) -> Applied:
        """Server-side apply, as :meth:`crdstore.Resources.apply`: conflicts
        with other managers raise :class:`ApplyConflict` unless ``force``."""
        request = _apply_request(self._of(obj, namespace), obj, field_manager, force, dry_run, subresource)
        response = await self._client._call(self._client._resources.Apply, request)
        return Applied(_decode(response.object), response.created)

    async def delete(
        self,
        name: str,
        *,
        namespace: Optional[str] = None,
        resource_version: str = "",
        uid: str = "",
        propagation_policy: str = "",
        dry_run: bool = False,
    ) -> Deleted:
        options = common_pb2.DeleteOptions(
            precondition_uid=uid,
            precondition_resource_version=resource_version,
            propagation_policy=propagation_policy,
            dry_run=dry_run,
        )
        request = resources_pb2.DeleteResourceRequest(ref=self._ref(namespace, name), options=options)
        response = await self._client._call(self._client._resources.Delete, request)
        return Deleted(_decode(response.object), response.deleted)

    def watch(
        self,
        *,
        namespace: Optional[str] = None,
        label_selector: str = "",
        field_selector: str = "",
        resource_version: str = "",
        bookmarks: bool = False,
        retry_for: float = 60.0,
        objects: Iterable[Object] = (),
    ) -> "AsyncWatch":
        """Changes after ``resource_version``, as :meth:`crdstore.Resources.watch`."""
        return AsyncWatch(self, namespace, label_selector, field_selector, resource_version, bookmarks, retry_for, objects)


class AsyncWatch:
    """An endless async iterator of :class:`Event` that survives the stream,
    as :class:`crdstore.Watch`: it resumes from the last resourceVersion it
    saw, and after :class:`Expired` relists and reports what changed,
    deletions included (client-go's ``Replace``). ``close()`` ends it."""

    def __init__(
        self,
        resources: AsyncResources,
        namespace: Optional[str],
        label_selector: str,
        field_selector: str,
        resource_version: str,
        bookmarks: bool,
        retry_for: float,
        objects: Iterable[Object] = (),
    ):
        self._resources = resources
        self._namespace = namespace
        self._label_selector = label_selector
        self._field_selector = field_selector
        self.resource_version = resource_version
        self._bookmarks = bookmarks
        self._retry_for = retry_for
        self._call: Any = None
        self._closed = False
        self._known: Dict[str, Object] = {_key(o): o for o in objects}
        self._events = self._run()

    def __aiter__(self) -> "AsyncWatch":
        return self

    async def __anext__(self) -> Event:
        return await self._events.__anext__()

    def close(self) -> None:
        self._closed = True
        if self._call is not None:
            self._call.cancel()

    def _open(self) -> Any:
        options = common_pb2.WatchOptions(
            label_selector=self._label_selector,
            field_selector=self._field_selector,
            resource_version=self.resource_version,
            allow_bookmarks=self._bookmarks,
        )
        request = resources_pb2.WatchResourcesRequest(ref=self._resources._ref(self._namespace), options=options)
        return self._resources._client._resources.Watch(request, wait_for_ready=True)

    async def _run(self) -> AsyncIterator[Event]:
        failing_since: Optional[float] = None
        delay = 0.05
        while not self._closed:
            try:
                self._call = self._open()
                async for message in self._call:
                    failing_since, delay = None, 0.05
                    event = Event(_EVENT_TYPES.get(message.type, "UNKNOWN"), _decode(message.object))
                    version = event.object.get("metadata", {}).get("resourceVersion")
                    if version:
                        self.resource_version = version
                    if event.type == "DELETED":
                        self._known.pop(_key(event.object), None)
                    elif event.type != "BOOKMARK":
                        self._known[_key(event.object)] = event.object
                    if event.type != "BOOKMARK" or self._bookmarks:
                        yield event
            except asyncio.CancelledError:
                if self._closed:
                    return
                raise
            except grpc.RpcError as rpc_error:
                if self._closed:
                    return
                error = from_rpc_error(rpc_error)
                if isinstance(error, Expired):
                    for event in await self._relist():
                        yield event
                    continue
                if not isinstance(error, Unavailable):
                    raise error from None
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > self._retry_for:
                    raise error from None
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _relist(self) -> List[Event]:
        items: List[Object] = []
        token, version = "", ""
        while True:
            page = await self._resources.list(
                namespace=self._namespace,
                label_selector=self._label_selector,
                field_selector=self._field_selector,
                limit=500,
                continue_token=token,
            )
            items.extend(page.items)
            version = version or page.resource_version
            token = page.continue_token
            if not token:
                break
        self.resource_version = version
        return _replace(self._known, items)


async def retry_on_conflict(update: Callable[[], Awaitable[T]], *, attempts: int = 5, backoff: float = 0.01) -> T:
    """Awaits a read-modify-write ``update`` again while it fails with
    :class:`Conflict`, up to ``attempts`` times; ``update`` must read the
    object afresh each time."""
    for attempt in range(attempts):
        try:
            return await update()
        except Conflict:
            if attempt == attempts - 1:
                raise
            await asyncio.sleep(backoff * (2**attempt))
    raise AssertionError("unreachable")
