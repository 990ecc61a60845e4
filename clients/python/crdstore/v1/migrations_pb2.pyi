from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StartMigrationRequest(_message.Message):
    __slots__ = ("definition", "name")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    definition: str
    name: str
    def __init__(self, definition: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class GetMigrationRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ListMigrationsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListMigrationsResponse(_message.Message):
    __slots__ = ("migrations",)
    MIGRATIONS_FIELD_NUMBER: _ClassVar[int]
    migrations: _containers.RepeatedCompositeFieldContainer[Migration]
    def __init__(self, migrations: _Optional[_Iterable[_Union[Migration, _Mapping]]] = ...) -> None: ...

class WatchMigrationRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class Migration(_message.Message):
    __slots__ = ("name", "definition", "phase", "target_version", "migrated", "scanned", "total", "message", "object")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TARGET_VERSION_FIELD_NUMBER: _ClassVar[int]
    MIGRATED_FIELD_NUMBER: _ClassVar[int]
    SCANNED_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    name: str
    definition: str
    phase: str
    target_version: str
    migrated: int
    scanned: int
    total: int
    message: str
    object: bytes
    def __init__(self, name: _Optional[str] = ..., definition: _Optional[str] = ..., phase: _Optional[str] = ..., target_version: _Optional[str] = ..., migrated: _Optional[int] = ..., scanned: _Optional[int] = ..., total: _Optional[int] = ..., message: _Optional[str] = ..., object: _Optional[bytes] = ...) -> None: ...
