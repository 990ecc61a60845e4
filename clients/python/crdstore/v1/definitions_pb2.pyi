from crdstore.v1 import common_pb2 as _common_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CreateDefinitionRequest(_message.Message):
    __slots__ = ("definition", "options")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, definition: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class CreateDefinitionResponse(_message.Message):
    __slots__ = ("definition",)
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    def __init__(self, definition: _Optional[bytes] = ...) -> None: ...

class GetDefinitionRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class GetDefinitionResponse(_message.Message):
    __slots__ = ("definition",)
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    def __init__(self, definition: _Optional[bytes] = ...) -> None: ...

class ListDefinitionsRequest(_message.Message):
    __slots__ = ("options",)
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    options: _common_pb2.ListOptions
    def __init__(self, options: _Optional[_Union[_common_pb2.ListOptions, _Mapping]] = ...) -> None: ...

class ListDefinitionsResponse(_message.Message):
    __slots__ = ("items", "resource_version", "continue_token", "remaining_item_count")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONTINUE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REMAINING_ITEM_COUNT_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedScalarFieldContainer[bytes]
    resource_version: str
    continue_token: str
    remaining_item_count: int
    def __init__(self, items: _Optional[_Iterable[bytes]] = ..., resource_version: _Optional[str] = ..., continue_token: _Optional[str] = ..., remaining_item_count: _Optional[int] = ...) -> None: ...

class WatchDefinitionsRequest(_message.Message):
    __slots__ = ("options",)
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    options: _common_pb2.WatchOptions
    def __init__(self, options: _Optional[_Union[_common_pb2.WatchOptions, _Mapping]] = ...) -> None: ...

class UpdateDefinitionRequest(_message.Message):
    __slots__ = ("definition", "options")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, definition: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class UpdateDefinitionResponse(_message.Message):
    __slots__ = ("definition",)
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    def __init__(self, definition: _Optional[bytes] = ...) -> None: ...

class UpdateDefinitionStatusRequest(_message.Message):
    __slots__ = ("definition", "options")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, definition: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class UpdateDefinitionStatusResponse(_message.Message):
    __slots__ = ("definition",)
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    def __init__(self, definition: _Optional[bytes] = ...) -> None: ...

class DeleteDefinitionRequest(_message.Message):
    __slots__ = ("name", "options")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    options: _common_pb2.DeleteOptions
    def __init__(self, name: _Optional[str] = ..., options: _Optional[_Union[_common_pb2.DeleteOptions, _Mapping]] = ...) -> None: ...

class DeleteDefinitionResponse(_message.Message):
    __slots__ = ("definition", "deleted")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    definition: bytes
    deleted: bool
    def __init__(self, definition: _Optional[bytes] = ..., deleted: _Optional[bool] = ...) -> None: ...

class ListFeatureGatesRequest(_message.Message):
    __slots__ = ("definition", "component")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    definition: str
    component: str
    def __init__(self, definition: _Optional[str] = ..., component: _Optional[str] = ...) -> None: ...

class ListFeatureGatesResponse(_message.Message):
    __slots__ = ("gates",)
    GATES_FIELD_NUMBER: _ClassVar[int]
    gates: _containers.RepeatedCompositeFieldContainer[FeatureGate]
    def __init__(self, gates: _Optional[_Iterable[_Union[FeatureGate, _Mapping]]] = ...) -> None: ...

class FeatureGate(_message.Message):
    __slots__ = ("definition", "component", "name", "stage", "default", "enabled", "effective", "paths")
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    COMPONENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STAGE_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    definition: str
    component: str
    name: str
    stage: str
    default: bool
    enabled: bool
    effective: bool
    paths: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, definition: _Optional[str] = ..., component: _Optional[str] = ..., name: _Optional[str] = ..., stage: _Optional[str] = ..., default: _Optional[bool] = ..., enabled: _Optional[bool] = ..., effective: _Optional[bool] = ..., paths: _Optional[_Iterable[str]] = ...) -> None: ...
