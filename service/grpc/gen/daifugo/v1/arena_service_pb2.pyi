from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class JoinQueueRequest(_message.Message):
    __slots__ = ("pool",)
    POOL_FIELD_NUMBER: _ClassVar[int]
    pool: str
    def __init__(self, pool: _Optional[str] = ...) -> None: ...

class JoinQueueResponse(_message.Message):
    __slots__ = ("pool", "match_id", "seat", "token")
    POOL_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    pool: str
    match_id: str
    seat: int
    token: str
    def __init__(self, pool: _Optional[str] = ..., match_id: _Optional[str] = ..., seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...
