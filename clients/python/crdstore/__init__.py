"""crdstore: a client for the standalone store of Kubernetes-style custom resources.

    import crdstore
    client = crdstore.Client("localhost:50051")
    widgets = client.resources("example.com", "v1", "widgets", namespace="default")
    widgets.create({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})

Objects go in and out as dicts; failures raise the classes of
:mod:`crdstore.errors` (``NotFound``, ``Conflict``, ``Invalid``...).
"""

from crdstore.client import (
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
    BadRequest,
    Cause,
    Conflict,
    CrdstoreError,
    Expired,
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
    "BadRequest",
    "Cause",
    "Conflict",
    "CrdstoreError",
    "Expired",
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
