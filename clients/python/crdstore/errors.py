"""Errors of crdstore calls, one class per Kubernetes reason.

The server sends each failure as a ``google.rpc.Status`` whose ``ErrorInfo``
carries the Kubernetes reason (``NotFound``, ``AlreadyExists``, ``Conflict``,
``Invalid``, ``Expired``...) and, for invalid input, a ``BadRequest`` with one
violation per field. :func:`from_rpc_error` turns that into the matching
exception, so callers write ``except crdstore.Conflict``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Type

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


@dataclass(frozen=True)
class Cause:
    """One invalid field: its path as Kubernetes writes it, and what is wrong."""

    field: str
    message: str


class CrdstoreError(Exception):
    """A call failed. ``reason`` is the Kubernetes reason, ``code`` the gRPC code."""

    reason: str = "Unknown"

    def __init__(
        self,
        message: str,
        *,
        code: Optional[grpc.StatusCode] = None,
        reason: Optional[str] = None,
        causes: Optional[List[Cause]] = None,
        metadata: Optional[Dict[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        if reason is not None:
            self.reason = reason
        self.causes: List[Cause] = causes or []
        self.metadata: Dict[str, str] = metadata or {}


class NotFound(CrdstoreError):
    reason = "NotFound"


class AlreadyExists(CrdstoreError):
    reason = "AlreadyExists"


class Conflict(CrdstoreError):
    """A stale resourceVersion or a failed precondition: read again and retry."""

    reason = "Conflict"


@dataclass(frozen=True)
class FieldConflict:
    """One field a server-side apply would take from another manager: its
    path (``.spec.replicas``), that manager, and the server's message
    (``conflict with "m1"``, or ``conflict with "m1" using v1`` for a
    manager that wrote it with an update)."""

    field: str
    manager: str
    message: str


class ApplyConflict(Conflict):
    """An apply changed fields other managers own: ``conflicts`` lists each.
    Apply again with ``force=True`` to take them over, or leave them out of
    the configuration."""

    def __init__(self, message: str, *, conflicts: Optional[List[FieldConflict]] = None, **kwargs: object) -> None:
        super().__init__(message, **kwargs)  # type: ignore[arg-type]
        self.conflicts: List[FieldConflict] = conflicts or []


class Invalid(CrdstoreError):
    """The object is invalid; ``causes`` names each invalid field."""

    reason = "Invalid"


class Expired(CrdstoreError):
    """The requested revision is older than the server's history: list again."""

    reason = "Expired"


class BadRequest(CrdstoreError):
    reason = "BadRequest"


class Forbidden(CrdstoreError):
    reason = "Forbidden"


class MethodNotAllowed(CrdstoreError):
    """The operation is not allowed now, e.g. a create under a terminating definition."""

    reason = "MethodNotAllowed"


class UnsupportedMediaType(CrdstoreError):
    reason = "UnsupportedMediaType"


class NotAcceptable(CrdstoreError):
    reason = "NotAcceptable"


class RequestEntityTooLarge(CrdstoreError):
    reason = "RequestEntityTooLarge"


class TooManyRequests(CrdstoreError):
    """A watch fell too far behind the server's events and was cut off."""

    reason = "TooManyRequests"


class Unavailable(CrdstoreError):
    """The server could not be reached, or went away mid-call."""

    reason = "ServiceUnavailable"


class Timeout(CrdstoreError):
    reason = "Timeout"


class InternalError(CrdstoreError):
    reason = "InternalError"


# Every reason the server sends (crdstore::error::Reason::ALL; tests/tidy.rs
# checks this table against it).
_BY_REASON: Dict[str, Type[CrdstoreError]] = {
    cls.reason: cls
    for cls in (
        NotFound,
        AlreadyExists,
        Conflict,
        Invalid,
        BadRequest,
        Expired,
        Forbidden,
        MethodNotAllowed,
        UnsupportedMediaType,
        NotAcceptable,
        RequestEntityTooLarge,
        TooManyRequests,
        Unavailable,
        Timeout,
        InternalError,
    )
}
# Reasons that mean the same to a caller as one of the classes above.
_BY_REASON["Gone"] = Expired
_BY_REASON["ResourceExpired"] = Expired

_BY_CODE: Dict[grpc.StatusCode, Type[CrdstoreError]] = {
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.ALREADY_EXISTS: AlreadyExists,
    grpc.StatusCode.ABORTED: Conflict,
    grpc.StatusCode.INVALID_ARGUMENT: Invalid,
    grpc.StatusCode.OUT_OF_RANGE: Expired,
    grpc.StatusCode.PERMISSION_DENIED: Forbidden,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
}


def from_rpc_error(error: grpc.RpcError) -> CrdstoreError:
    """The exception for a failed call: by the ErrorInfo reason, else by the code."""
    code = error.code() if hasattr(error, "code") else None
    message = error.details() if hasattr(error, "details") else str(error)
    reason = None
    metadata: Dict[str, str] = {}
    causes: List[Cause] = []
    status = rpc_status.from_call(error) if hasattr(error, "trailing_metadata") else None
    if status is not None:
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                reason = info.reason
                metadata = dict(info.metadata)
                continue
            bad = error_details_pb2.BadRequest()
            if detail.Unpack(bad):
                causes.extend(Cause(v.field, v.description) for v in bad.field_violations)
    cls = _BY_REASON.get(reason or "") or _BY_CODE.get(code) or CrdstoreError
    conflicts = _field_conflicts(metadata)
    if cls is Conflict and conflicts:
        return ApplyConflict(
            message or "", conflicts=conflicts, code=code, reason=reason, causes=causes, metadata=metadata
        )
    return cls(message or "", code=code, reason=reason, causes=causes, metadata=metadata)


_MANAGER = re.compile(r'^conflicts? with "((?:[^"\\]|\\.)*)"')


def _field_conflicts(metadata: Dict[str, str]) -> List[FieldConflict]:
    """The FieldManagerConflict causes of the ErrorInfo's ``causes`` entry."""
    try:
        entries = json.loads(metadata.get("causes", "[]"))
    except ValueError:
        return []
    conflicts = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("reason") != "FieldManagerConflict":
            continue
        text = str(entry.get("message", ""))
        found = _MANAGER.match(text)
        manager = json.loads(f'"{found.group(1)}"') if found else ""
        conflicts.append(FieldConflict(str(entry.get("field", "")), manager, text))
    return conflicts
