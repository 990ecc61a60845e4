from google.api import annotations_pb2 as _annotations_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class BackupRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BackupChunk(_message.Message):
    __slots__ = ("data", "revision", "records_done", "records_total")
    DATA_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    RECORDS_DONE_FIELD_NUMBER: _ClassVar[int]
    RECORDS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    revision: int
    records_done: int
    records_total: int
    def __init__(self, data: _Optional[bytes] = ..., revision: _Optional[int] = ..., records_done: _Optional[int] = ..., records_total: _Optional[int] = ...) -> None: ...
