"""crdstore: a client for the standalone store of Kubernetes-style custom resources.

    import crdstore
    client = crdstore.Client("localhost:50051")
    widgets = client.resources("example.com", "v1", "widgets", namespace="default")
    widgets.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})

Objects go in and out as dicts; failures raise the classes of
:mod:`crdstore.errors` (``NotFound``, ``Conflict``, ``Invalid``...).
``widgets.apply(obj, field_manager="me")`` is server-side apply; a conflict
with another manager raises ``ApplyConflict`` listing each field.
"""

from crdstore.client import (
    Applied,
    Client,
    Definitions,
    Deleted,
    Event,
    FeatureGate,
    Migration,
    Migrations,
    Page,
    Resources,
    ServerWarning,
    Watch,
    retry_on_conflict,
)
from crdstore.errors import (
    AlreadyExists,
    ApplyConflict,
    BadRequest,
    Cause,
    Conflict,
    CrdstoreError,
    Expired,
    FieldConflict,
    Forbidden,
    InternalError,
    Invalid,
    MethodNotAllowed,
    NotAcceptable,
    NotFound,
    RequestEntityTooLarge,
    Timeout,
    TooManyRequests,
    Unavailable,
    UnsupportedMediaType,
)

__all__ = [
    "Applied",
    "Client",
    "Definitions",
    "Deleted",
    "FeatureGate",
    "Event",
    "Migration",
    "Migrations",
    "Page",
    "Resources",
    "ServerWarning",
    "Watch",
    "retry_on_conflict",
    "AlreadyExists",
    "ApplyConflict",
    "BadRequest",
    "Cause",
    "Conflict",
    "CrdstoreError",
    "Expired",
    "FieldConflict",
    "Forbidden",
    "InternalError",
    "Invalid",
    "MethodNotAllowed",
    "NotAcceptable",
    "NotFound",
    "RequestEntityTooLarge",
    "Timeout",
    "TooManyRequests",
    "Unavailable",
    "UnsupportedMediaType",
]
