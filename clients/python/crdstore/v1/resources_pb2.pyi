from crdstore.v1 import common_pb2 as _common_pb2
from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Subresource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUBRESOURCE_UNSPECIFIED: _ClassVar[Subresource]
    SUBRESOURCE_STATUS: _ClassVar[Subresource]
    SUBRESOURCE_SCALE: _ClassVar[Subresource]

class PatchType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PATCH_TYPE_UNSPECIFIED: _ClassVar[PatchType]
    PATCH_TYPE_MERGE: _ClassVar[PatchType]
    PATCH_TYPE_JSON: _ClassVar[PatchType]
    PATCH_TYPE_STRATEGIC_MERGE: _ClassVar[PatchType]
    PATCH_TYPE_APPLY: _ClassVar[PatchType]
SUBRESOURCE_UNSPECIFIED: Subresource
SUBRESOURCE_STATUS: Subresource
SUBRESOURCE_SCALE: Subresource
PATCH_TYPE_UNSPECIFIED: PatchType
PATCH_TYPE_MERGE: PatchType
PATCH_TYPE_JSON: PatchType
PATCH_TYPE_STRATEGIC_MERGE: PatchType
PATCH_TYPE_APPLY: PatchType

class ResourceRef(_message.Message):
    __slots__ = ("group", "version", "resource", "namespace", "name")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    NAMESPACE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    group: str
    version: str
    resource: str
    namespace: str
    name: str
    def __init__(self, group: _Optional[str] = ..., version: _Optional[str] = ..., resource: _Optional[str] = ..., namespace: _Optional[str] = ..., name: _Optional[str] = ...) -> None: ...

class CreateResourceRequest(_message.Message):
    __slots__ = ("ref", "object", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    object: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., object: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class CreateResourceResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    def __init__(self, object: _Optional[bytes] = ...) -> None: ...

class GetResourceRequest(_message.Message):
    __slots__ = ("ref", "resource_version")
    REF_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_VERSION_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    resource_version: str
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., resource_version: _Optional[str] = ...) -> None: ...

class GetResourceResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    def __init__(self, object: _Optional[bytes] = ...) -> None: ...

class ListResourcesRequest(_message.Message):
    __slots__ = ("ref", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    options: _common_pb2.ListOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., options: _Optional[_Union[_common_pb2.ListOptions, _Mapping]] = ...) -> None: ...

class ListResourcesResponse(_message.Message):
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

class WatchResourcesRequest(_message.Message):
    __slots__ = ("ref", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    options: _common_pb2.WatchOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., options: _Optional[_Union[_common_pb2.WatchOptions, _Mapping]] = ...) -> None: ...

class UpdateResourceRequest(_message.Message):
    __slots__ = ("ref", "object", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    object: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., object: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class UpdateResourceResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    def __init__(self, object: _Optional[bytes] = ...) -> None: ...

class PatchResourceRequest(_message.Message):
    __slots__ = ("ref", "patch_type", "patch", "subresource", "options", "force")
    REF_FIELD_NUMBER: _ClassVar[int]
    PATCH_TYPE_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    SUBRESOURCE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    patch_type: PatchType
    patch: bytes
    subresource: Subresource
    options: _common_pb2.WriteOptions
    force: bool
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., patch_type: _Optional[_Union[PatchType, str]] = ..., patch: _Optional[bytes] = ..., subresource: _Optional[_Union[Subresource, str]] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ..., force: _Optional[bool] = ...) -> None: ...

class PatchResourceResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    def __init__(self, object: _Optional[bytes] = ...) -> None: ...

class DeleteResourceRequest(_message.Message):
    __slots__ = ("ref", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    options: _common_pb2.DeleteOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., options: _Optional[_Union[_common_pb2.DeleteOptions, _Mapping]] = ...) -> None: ...

class DeleteResourceResponse(_message.Message):
    __slots__ = ("object", "deleted")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    deleted: bool
    def __init__(self, object: _Optional[bytes] = ..., deleted: _Optional[bool] = ...) -> None: ...

class DeleteCollectionRequest(_message.Message):
    __slots__ = ("ref", "list_options", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    LIST_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    list_options: _common_pb2.ListOptions
    options: _common_pb2.DeleteOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., list_options: _Optional[_Union[_common_pb2.ListOptions, _Mapping]] = ..., options: _Optional[_Union[_common_pb2.DeleteOptions, _Mapping]] = ...) -> None: ...

class DeleteCollectionResponse(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, items: _Optional[_Iterable[bytes]] = ...) -> None: ...

class UpdateStatusRequest(_message.Message):
    __slots__ = ("ref", "object", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    object: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., object: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class UpdateStatusResponse(_message.Message):
    __slots__ = ("object",)
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    def __init__(self, object: _Optional[bytes] = ...) -> None: ...

class GetScaleRequest(_message.Message):
    __slots__ = ("ref",)
    REF_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ...) -> None: ...

class GetScaleResponse(_message.Message):
    __slots__ = ("scale",)
    SCALE_FIELD_NUMBER: _ClassVar[int]
    scale: bytes
    def __init__(self, scale: _Optional[bytes] = ...) -> None: ...

class UpdateScaleRequest(_message.Message):
    __slots__ = ("ref", "scale", "options")
    REF_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    scale: bytes
    options: _common_pb2.WriteOptions
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., scale: _Optional[bytes] = ..., options: _Optional[_Union[_common_pb2.WriteOptions, _Mapping]] = ...) -> None: ...

class UpdateScaleResponse(_message.Message):
    __slots__ = ("scale",)
    SCALE_FIELD_NUMBER: _ClassVar[int]
    scale: bytes
    def __init__(self, scale: _Optional[bytes] = ...) -> None: ...

class ConvertRequest(_message.Message):
    __slots__ = ("group", "resource", "desired_version", "objects")
    GROUP_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    DESIRED_VERSION_FIELD_NUMBER: _ClassVar[int]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    group: str
    resource: str
    desired_version: str
    objects: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, group: _Optional[str] = ..., resource: _Optional[str] = ..., desired_version: _Optional[str] = ..., objects: _Optional[_Iterable[bytes]] = ...) -> None: ...

class ConvertResponse(_message.Message):
    __slots__ = ("objects",)
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    objects: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, objects: _Optional[_Iterable[bytes]] = ...) -> None: ...

class ApplyResourceRequest(_message.Message):
    __slots__ = ("ref", "object", "field_manager", "force", "dry_run", "subresource")
    REF_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    FIELD_MANAGER_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    SUBRESOURCE_FIELD_NUMBER: _ClassVar[int]
    ref: ResourceRef
    object: bytes
    field_manager: str
    force: bool
    dry_run: bool
    subresource: Subresource
    def __init__(self, ref: _Optional[_Union[ResourceRef, _Mapping]] = ..., object: _Optional[bytes] = ..., field_manager: _Optional[str] = ..., force: _Optional[bool] = ..., dry_run: _Optional[bool] = ..., subresource: _Optional[_Union[Subresource, str]] = ...) -> None: ...

class ApplyResourceResponse(_message.Message):
    __slots__ = ("object", "created")
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    object: bytes
    created: bool
    def __init__(self, object: _Optional[bytes] = ..., created: _Optional[bool] = ...) -> None: ...
