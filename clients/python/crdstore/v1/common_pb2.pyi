from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FieldValidation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIELD_VALIDATION_UNSPECIFIED: _ClassVar[FieldValidation]
    FIELD_VALIDATION_IGNORE: _ClassVar[FieldValidation]
    FIELD_VALIDATION_WARN: _ClassVar[FieldValidation]
    FIELD_VALIDATION_STRICT: _ClassVar[FieldValidation]

class ResourceVersionMatch(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESOURCE_VERSION_MATCH_UNSPECIFIED: _ClassVar[ResourceVersionMatch]
    RESOURCE_VERSION_MATCH_NOT_OLDER_THAN: _ClassVar[ResourceVersionMatch]
    RESOURCE_VERSION_MATCH_EXACT: _ClassVar[ResourceVersionMatch]

class EventType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_TYPE_UNSPECIFIED: _ClassVar[EventType]
    EVENT_TYPE_ADDED: _ClassVar[EventType]
    EVENT_TYPE_MODIFIED: _ClassVar[EventType]
    EVENT_TYPE_DELETED: _ClassVar[EventType]
    EVENT_TYPE_BOOKMARK: _ClassVar[EventType]
FIELD_VALIDATION_UNSPECIFIED: FieldValidation
FIELD_VALIDATION_IGNORE: FieldValidation
FIELD_VALIDATION_WARN: FieldValidation
FIELD_VALIDATION_STRICT: FieldValidation
RESOURCE_VERSION_MATCH_UNSPECIFIED: ResourceVersionMatch
RESOURCE_VERSION_MATCH_NOT_OLDER_THAN: ResourceVersionMatch
RESOURCE_VERSION_MATCH_EXACT: ResourceVersionMatch
EVENT_TYPE_UNSPECIFIED: EventType
EVENT_TYPE_ADDED: EventType
EVENT_TYPE_MODIFIED: EventType
EVENT_TYPE_DELETED: EventType
EVENT_TYPE_BOOKMARK: EventType

class WriteOptions(_message.Message):
    __slots__ = ("dry_run", "field_validation", "field_manager")
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    FIELD_VALIDATION_FIELD_NUMBER: _ClassVar[int]
    FIELD_MANAGER_FIELD_NUMBER: _ClassVar[int]
    dry_run: bool
    field_validation: FieldValidation
    field_manager: str
    def __init__(self, dry_run: _Optional[bool] = ..., field_validation: _Optional[_Union[FieldValidation, str]] = ..., field_manager: _Optional[str] = ...) -> None: ...

class ListOptions(_message.Message):
    __slots__ = ("label_selector", "field_selector", "limit", "continue_token", "resource_version", "resource_version_match")
    LABEL_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    FIELD_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    CONTINUE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_VERSION_MATCH_FIELD_NUMBER: _ClassVar[int]
    label_selector: str
    field_selector: str
    limit: int
    continue_token: str
    resource_version: str
    resource_version_match: ResourceVersionMatch
    def __init__(self, label_selector: _Optional[str] = ..., field_selector: _Optional[str] = ..., limit: _Optional[int] = ..., continue_token: _Optional[str] = ..., resource_version: _Optional[str] = ..., resource_version_match: _Optional[_Union[ResourceVersionMatch, str]] = ...) -> None: ...

class WatchOptions(_message.Message):
    __slots__ = ("label_selector", "field_selector", "resource_version", "allow_bookmarks", "send_initial_events", "timeout_seconds")
    LABEL_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    FIELD_SELECTOR_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    ALLOW_BOOKMARKS_FIELD_NUMBER: _ClassVar[int]
    SEND_INITIAL_EVENTS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    label_selector: str
    field_selector: str
    resource_version: str
    allow_bookmarks: bool
    send_initial_events: bool
    timeout_seconds: int
    def __init__(self, label_selector: _Optional[str] = ..., field_selector: _Optional[str] = ..., resource_version: _Optional[str] = ..., allow_bookmarks: _Optional[bool] = ..., send_initial_events: _Optional[bool] = ..., timeout_seconds: _Optional[int] = ...) -> None: ...

class WatchEvent(_message.Message):
    __slots__ = ("type", "object")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    type: EventType
    object: bytes
    def __init__(self, type: _Optional[_Union[EventType, str]] = ..., object: _Optional[bytes] = ...) -> None: ...

class DeleteOptions(_message.Message):
    __slots__ = ("precondition_uid", "precondition_resource_version", "propagation_policy", "dry_run")
    PRECONDITION_UID_FIELD_NUMBER: _ClassVar[int]
    PRECONDITION_RESOURCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROPAGATION_POLICY_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    precondition_uid: str
    precondition_resource_version: str
    propagation_policy: str
    dry_run: bool
    def __init__(self, precondition_uid: _Optional[str] = ..., precondition_resource_version: _Optional[str] = ..., propagation_policy: _Optional[str] = ..., dry_run: _Optional[bool] = ...) -> None: ...
