"""A Python client for crdstore's gRPC services, objects in and out as dicts.

``Client`` holds one channel; ``client.definitions`` manages definitions and
``client.resources(group, version, plural)`` one resource type. Failures
raise the exceptions of :mod:`crdstore.errors`; warnings the server returns
(unknown fields, deprecated versions) are issued as :class:`ServerWarning`.
"""

from __future__ import annotations

import json
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, TypeVar

import grpc

from crdstore.errors import Conflict, CrdstoreError, Expired, NotFound, Unavailable, from_rpc_error
from crdstore.v1 import (
    common_pb2,
    definitions_pb2,
    definitions_pb2_grpc,
    migrations_pb2,
    migrations_pb2_grpc,
    resources_pb2,
    resources_pb2_grpc,
)

Object = Dict[str, Any]
T = TypeVar("T")

_FIELD_VALIDATION = {
    None: common_pb2.FIELD_VALIDATION_UNSPECIFIED,
    "Ignore": common_pb2.FIELD_VALIDATION_IGNORE,
    "Warn": common_pb2.FIELD_VALIDATION_WARN,
    "Strict": common_pb2.FIELD_VALIDATION_STRICT,
}
_PATCH_TYPES = {"merge": resources_pb2.PATCH_TYPE_MERGE, "json": resources_pb2.PATCH_TYPE_JSON}
_SUBRESOURCES = {
    None: resources_pb2.SUBRESOURCE_UNSPECIFIED,
    "status": resources_pb2.SUBRESOURCE_STATUS,
    "scale": resources_pb2.SUBRESOURCE_SCALE,
}
_EVENT_TYPES = {
    common_pb2.EVENT_TYPE_ADDED: "ADDED",
    common_pb2.EVENT_TYPE_MODIFIED: "MODIFIED",
    common_pb2.EVENT_TYPE_DELETED: "DELETED",
    common_pb2.EVENT_TYPE_BOOKMARK: "BOOKMARK",
}


class ServerWarning(UserWarning):
    """A warning the server returned with a successful write."""


@dataclass
class Page:
    """One page of a list: the objects, the revision it was read at, and the
    token for the next page (empty on the last page)."""

    items: List[Object]
    resource_version: str
    continue_token: str
    remaining_item_count: int


@dataclass
class FeatureGate:
    """A field-level feature gate of a definition (``spec.customFeatureGates``):
    ``enabled`` is None when it falls back to ``default``; ``effective`` is
    whether the gate lets its fields through now."""

    definition: str
    component: str
    name: str
    stage: str
    default: bool
    enabled: Optional[bool]
    effective: bool
    paths: List[str]


@dataclass
class Deleted:
    """A delete's outcome: the object's last state, and whether it is gone
    (False while finalizers hold it)."""

    object: Object
    deleted: bool


@dataclass
class Applied:
    """A server-side apply's outcome: the object as stored (or as it would
    be, on a dry run), and whether the apply created it."""

    object: Object
    created: bool


@dataclass
class Migration:
    """A storage-version migration: ``phase`` is Running, Succeeded or Failed;
    ``migrated`` objects rewritten at ``target_version``; ``scanned`` of
    ``total`` objects looked at in the current pass; ``object`` the
    ``storagemigration.k8s.io/v1`` ``StorageVersionMigration``."""

    name: str
    definition: str
    phase: str
    target_version: str
    migrated: int
    scanned: int
    total: int
    message: str
    object: Object

    @property
    def done(self) -> bool:
        return self.phase in ("Succeeded", "Failed")


def _migration(m: Any) -> Migration:
    return Migration(
        m.name, m.definition, m.phase, m.target_version, m.migrated, m.scanned, m.total, m.message, _decode(m.object)
    )


@dataclass
class Event:
    """A watch event: ADDED, MODIFIED, DELETED or BOOKMARK, and the object."""

    type: str
    object: Object


def _encode(obj: Object) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _decode(data: bytes) -> Object:
    return json.loads(data)


def _write_options(dry_run: bool, field_validation: Optional[str], field_manager: str) -> common_pb2.WriteOptions:
    if field_validation not in _FIELD_VALIDATION:
        raise ValueError(f"field_validation must be one of Ignore, Warn, Strict, not {field_validation!r}")
    return common_pb2.WriteOptions(
        dry_run=dry_run, field_validation=_FIELD_VALIDATION[field_validation], field_manager=field_manager
    )


class Client:
    """A connection to one crdstore server, e.g. ``Client("localhost:50051")``."""

    def __init__(self, target: str, *, timeout: Optional[float] = 30.0, channel: Optional[grpc.Channel] = None):
        self._channel = channel or grpc.insecure_channel(target)
        self._timeout = timeout
        self._definitions = definitions_pb2_grpc.CustomResourceDefinitionsStub(self._channel)
        self._resources = resources_pb2_grpc.CustomResourcesStub(self._channel)
        self._migrations = migrations_pb2_grpc.StorageVersionMigrationsStub(self._channel)
        self.definitions = Definitions(self)
        self.migrations = Migrations(self)

    def resources(self, group: str, version: str, resource: str, namespace: str = "") -> "Resources":
        """The objects of one resource type, at one version; ``namespace`` is the
        default for calls that do not name one."""
        return Resources(self, group, version, resource, namespace)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: Callable[..., Any], request: Any) -> Any:
        """A unary call: errors become crdstore exceptions, warnings Python
        warnings. A call made while the server is away (restarting, say)
        waits for it, up to the client's timeout, rather than failing at once."""
        try:
            response, call = method.with_call(request, timeout=self._timeout, wait_for_ready=True)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None
        for key, value in call.initial_metadata() or ():
            if key == "warning":
                warnings.warn(value, ServerWarning, stacklevel=3)
        return response


class Definitions:
    """Custom resource definitions, as dicts (apiextensions.k8s.io/v1)."""

    def __init__(self, client: Client):
        self._client = client

    def create(
        self, definition: Object, *, dry_run: bool = False, field_validation: Optional[str] = None
    ) -> Object:
        request = definitions_pb2.CreateDefinitionRequest(
            definition=_encode(definition), options=_write_options(dry_run, field_validation, "")
        )
        return _decode(self._client._call(self._client._definitions.Create, request).definition)

    def get(self, name: str) -> Object:
        request = definitions_pb2.GetDefinitionRequest(name=name)
        return _decode(self._client._call(self._client._definitions.Get, request).definition)

    def list(self, *, label_selector: str = "", limit: int = 0, continue_token: str = "") -> Page:
        options = common_pb2.ListOptions(label_selector=label_selector, limit=limit, continue_token=continue_token)
        response = self._client._call(self._client._definitions.List, definitions_pb2.ListDefinitionsRequest(options=options))
        items = [_decode(i) for i in response.items]
        return Page(items, response.resource_version, response.continue_token, response.remaining_item_count)

    def update(self, definition: Object, *, dry_run: bool = False) -> Object:
        request = definitions_pb2.UpdateDefinitionRequest(
            definition=_encode(definition), options=_write_options(dry_run, None, "")
        )
        return _decode(self._client._call(self._client._definitions.Update, request).definition)

    def delete(self, name: str) -> Deleted:
        response = self._client._call(self._client._definitions.Delete, definitions_pb2.DeleteDefinitionRequest(name=name))
        return Deleted(_decode(response.definition), response.deleted)

    def list_feature_gates(self, *, definition: str = "", component: str = "") -> List[FeatureGate]:
        """The field-level feature gates of every definition, or only those of
        one definition or component."""
        request = definitions_pb2.ListFeatureGatesRequest(definition=definition, component=component)
        response = self._client._call(self._client._definitions.ListFeatureGates, request)
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

    def wait_established(self, name: str, timeout: float = 30.0) -> Object:
        """Waits until the definition's ``Established`` condition is True, and
        returns it; raises TimeoutError when it is not by then."""
        deadline = time.monotonic() + timeout
        while True:
            definition = self.get(name)
            conditions = definition.get("status", {}).get("conditions", [])
            if any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions):
                return definition
            if time.monotonic() > deadline:
                raise TimeoutError(f"definition {name} is not established after {timeout}s: {conditions}")
            time.sleep(0.05)


class Migrations:
    """Storage-version migrations: rewrite a definition's stored objects at its
    current storage version, then trim ``status.storedVersions`` to it."""

    def __init__(self, client: Client):
        self._client = client

    def start(self, definition: str, *, name: str = "") -> Migration:
        """Starts migrating ``definition`` (``<plural>.<group>``); ``name`` is
        generated when empty."""
        request = migrations_pb2.StartMigrationRequest(definition=definition, name=name)
        return _migration(self._client._call(self._client._migrations.Start, request))

    def get(self, name: str) -> Migration:
        return _migration(self._client._call(self._client._migrations.Get, migrations_pb2.GetMigrationRequest(name=name)))

    def list(self) -> List[Migration]:
        response = self._client._call(self._client._migrations.List, migrations_pb2.ListMigrationsRequest())
        return [_migration(m) for m in response.migrations]

    def follow(self, name: str) -> Iterator[Migration]:
        """The migration now, then after every step, until it has succeeded
        or failed."""
        try:
            for m in self._client._migrations.Watch(migrations_pb2.WatchMigrationRequest(name=name)):
                yield _migration(m)
        except grpc.RpcError as error:
            raise from_rpc_error(error) from None

    def run(self, definition: str, *, name: str = "", progress: Optional[Callable[[Migration], None]] = None) -> Migration:
        """Starts a migration and follows it to its end; ``progress`` sees
        every step. Returns the last state (Succeeded or Failed)."""
        last = self.start(definition, name=name)
        for last in self.follow(last.name):
            if progress:
                progress(last)
        return last


class Resources:
    """The objects of one resource type, at one version, as dicts."""

    def __init__(self, client: Client, group: str, version: str, resource: str, namespace: str):
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

    def create(
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
        return _decode(self._client._call(self._client._resources.Create, request).object)

    def get(self, name: str, *, namespace: Optional[str] = None) -> Object:
        request = resources_pb2.GetResourceRequest(ref=self._ref(namespace, name))
        return _decode(self._client._call(self._client._resources.Get, request).object)

    def list(
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
        """One page; pass the returned ``continue_token`` for the next.
        ``resource_version_match`` is "", "NotOlderThan" or "Exact", as in
        Kubernetes."""
        matches = {
            "": common_pb2.RESOURCE_VERSION_MATCH_UNSPECIFIED,
            "NotOlderThan": common_pb2.RESOURCE_VERSION_MATCH_NOT_OLDER_THAN,
            "Exact": common_pb2.RESOURCE_VERSION_MATCH_EXACT,
        }
        if resource_version_match not in matches:
            raise ValueError(f"resource_version_match must be NotOlderThan or Exact, not {resource_version_match!r}")
        options = common_pb2.ListOptions(
            label_selector=label_selector,
            field_selector=field_selector,
            limit=limit,
            continue_token=continue_token,
            resource_version=resource_version,
            resource_version_match=matches[resource_version_match],
        )
        request = resources_pb2.ListResourcesRequest(ref=self._ref(namespace), options=options)
        response = self._client._call(self._client._resources.List, request)
        items = [_decode(i) for i in response.items]
        return Page(items, response.resource_version, response.continue_token, response.remaining_item_count)

    def list_all(self, *, page_size: int = 500, **selectors: Any) -> Iterator[Object]:
        """Every matching object, fetched a page at a time."""
        token = ""
        while True:
            page = self.list(limit=page_size, continue_token=token, **selectors)
            yield from page.items
            token = page.continue_token
            if not token:
                return

    def update(
        self, obj: Object, *, dry_run: bool = False, field_validation: Optional[str] = None, field_manager: str = ""
    ) -> Object:
        """Replaces the object; its ``metadata.resourceVersion`` must be current,
        else :class:`Conflict`."""
        request = resources_pb2.UpdateResourceRequest(
            ref=self._of(obj, None), object=_encode(obj), options=_write_options(dry_run, field_validation, field_manager)
        )
        return _decode(self._client._call(self._client._resources.Update, request).object)

    def update_status(self, obj: Object, *, dry_run: bool = False) -> Object:
        request = resources_pb2.UpdateStatusRequest(
            ref=self._of(obj, None), object=_encode(obj), options=_write_options(dry_run, None, "")
        )
        return _decode(self._client._call(self._client._resources.UpdateStatus, request).object)

    def patch(
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
        """Applies a JSON merge patch (a dict) or a JSON patch (a list of
        operations, ``patch_type="json"``) to the object or its ``status`` or
        ``scale`` subresource."""
        if patch_type not in _PATCH_TYPES:
            raise ValueError(f"patch_type must be 'merge' or 'json', not {patch_type!r}")
        if subresource not in _SUBRESOURCES:
            raise ValueError(f"subresource must be 'status' or 'scale', not {subresource!r}")
        request = resources_pb2.PatchResourceRequest(
            ref=self._ref(namespace, name),
            patch_type=_PATCH_TYPES[patch_type],
            patch=json.dumps(patch).encode(),
            subresource=_SUBRESOURCES[subresource],
            options=_write_options(dry_run, field_validation, ""),
        )
        return _decode(self._client._call(self._client._resources.Patch, request).object)

    def apply(
        self,
        obj: Object,
        *,
        field_manager: str,
        force: bool = False,
        dry_run: bool = False,
        subresource: Optional[str] = None,
        namespace: Optional[str] = None,
    ) -> Applied:
        """Server-side apply of ``obj`` (the fields ``field_manager`` has an
        opinion on) to the object or its ``status``; creates the object when
        it does not exist. Changing fields another manager owns raises
        :class:`ApplyConflict` listing them, unless ``force`` takes them over."""
        request = _apply_request(self._of(obj, namespace), obj, field_manager, force, dry_run, subresource)
        response = self._client._call(self._client._resources.Apply, request)
        return Applied(_decode(response.object), response.created)

    def delete(
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
        response = self._client._call(self._client._resources.Delete, request)
        return Deleted(_decode(response.object), response.deleted)

    def convert(self, objects: List[Object]) -> List[Object]:
        """Converts ``objects``, each at any version of this resource's
        definition, to this handle's version with the definition's strategy
        (one webhook review for all of them), in order. An error about one
        object names its index (``objects[i]``)."""
        request = resources_pb2.ConvertRequest(
            group=self.group,
            resource=self.resource,
            desired_version=self.version,
            objects=[_encode(obj) for obj in objects],
        )
        response = self._client._call(self._client._resources.Convert, request)
        return [_decode(obj) for obj in response.objects]

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
    ) -> "Watch":
        """Changes after ``resource_version`` (empty: the current objects as
        ADDED, then every change). ``objects`` are those the caller already
        has (the items of the list whose revision it watches from). See
        :class:`Watch` for resuming."""
        return Watch(
            self, namespace, label_selector, field_selector, resource_version, bookmarks, retry_for, objects
        )


class Watch:
    """An endless iterator of :class:`Event` that survives the stream.

    When the stream drops (the server restarts, the network fails, the
    server's timeout ends it), the watch reopens it from the last
    resourceVersion it saw, so no change is missed or repeated. When that
    revision has left the server's history (:class:`Expired`), it lists the
    objects again and brings its consumer up to date as client-go's reflector
    does (DeltaFIFO's ``Replace``): ADDED for each object it had not seen,
    MODIFIED for each whose resourceVersion changed, then DELETED, with the
    last state it saw, for each object it had seen that the list no longer
    has; then it watches on from the list's revision. The objects it has
    seen are those it yielded and the ``objects`` it was given. It gives up
    with :class:`Unavailable` after ``retry_for`` seconds without reaching
    the server. ``close()`` ends it.
    """

    def __init__(
        self,
        resources: Resources,
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
        # What the consumer has been told exists, by namespace/name.
        self._known: Dict[str, Object] = {_key(o): o for o in objects}
        self._events = self._run()

    def __iter__(self) -> "Watch":
        return self

    def __next__(self) -> Event:
        return next(self._events)

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

    def _run(self) -> Iterator[Event]:
        failing_since: Optional[float] = None
        delay = 0.05
        while not self._closed:
            try:
                self._call = self._open()
                for message in self._call:
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
            except grpc.RpcError as rpc_error:
                if self._closed:
                    return
                error = from_rpc_error(rpc_error)
                if isinstance(error, Expired):
                    yield from self._relist()
                    continue
                if not isinstance(error, Unavailable):
                    raise error from None
                failing_since = failing_since or time.monotonic()
                if time.monotonic() - failing_since > self._retry_for:
                    raise error from None
                time.sleep(delay)
                delay = min(delay * 2, 2.0)
            # A stream that ended cleanly (the server's timeout) is reopened.

    def _relist(self) -> Iterator[Event]:
        items, self.resource_version = _list_all(
            lambda token: self._resources.list(
                namespace=self._namespace,
                label_selector=self._label_selector,
                field_selector=self._field_selector,
                limit=500,
                continue_token=token,
            )
        )
        yield from _replace(self._known, items)


def _key(obj: Object) -> str:
    """The key client-go's MetaNamespaceKeyFunc gives an object."""
    meta = obj.get("metadata", {})
    return f"{meta['namespace']}/{meta.get('name', '')}" if meta.get("namespace") else meta.get("name", "")


def _list_all(list_page: Callable[[str], Page]) -> Tuple[List[Object], str]:
    """Every page of a list, and the first page's revision they were read at."""
    items: List[Object] = []
    page = list_page("")
    version = page.resource_version
    items.extend(page.items)
    while page.continue_token:
        page = list_page(page.continue_token)
        items.extend(page.items)
    return items, version


def _replace(known: Dict[str, Object], listed: List[Object]) -> List[Event]:
    """The events that take a consumer from ``known`` to ``listed`` (and
    update ``known`` to it), as client-go's DeltaFIFO ``Replace``: the listed
    objects, then a deletion for each known key the list does not have."""
    events: List[Event] = []
    seen = set()
    for obj in listed:
        key = _key(obj)
        seen.add(key)
        previous = known.get(key)
        if previous is None:
            events.append(Event("ADDED", obj))
        elif previous.get("metadata", {}).get("resourceVersion") != obj.get("metadata", {}).get("resourceVersion"):
            events.append(Event("MODIFIED", obj))
        known[key] = obj
    for key in [k for k in known if k not in seen]:
        events.append(Event("DELETED", known.pop(key)))
    return events


def _apply_request(
    ref: resources_pb2.ResourceRef,
    obj: Object,
    field_manager: str,
    force: bool,
    dry_run: bool,
    subresource: Optional[str],
) -> resources_pb2.ApplyResourceRequest:
    if subresource not in (None, "status"):
        raise ValueError(f"subresource must be None or 'status', not {subresource!r}")
    return resources_pb2.ApplyResourceRequest(
        ref=ref,
        object=_encode(obj),
        field_manager=field_manager,
        force=force,
        dry_run=dry_run,
        subresource=_SUBRESOURCES[subresource],
    )


def retry_on_conflict(update: Callable[[], T], *, attempts: int = 5, backoff: float = 0.01) -> T:
    """Runs a read-modify-write ``update`` again while it fails with
    :class:`Conflict`, up to ``attempts`` times; ``update`` must read the
    object afresh each time."""
    for attempt in range(attempts):
        try:
            return update()
        except Conflict:
            if attempt == attempts - 1:
                raise
            time.sleep(backoff * (2**attempt))
    raise AssertionError("unreachable")
