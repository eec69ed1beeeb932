from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SigningAlgorithm(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SIGNING_ALGORITHM_UNSPECIFIED: _ClassVar[SigningAlgorithm]
    SIGNING_ALGORITHM_ED25519: _ClassVar[SigningAlgorithm]
SIGNING_ALGORITHM_UNSPECIFIED: SigningAlgorithm
SIGNING_ALGORITHM_ED25519: SigningAlgorithm

class ListSigningKeysRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListSigningKeysResponse(_message.Message):
    __slots__ = ("keys",)
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[SigningKey]
    def __init__(self, keys: _Optional[_Iterable[_Union[SigningKey, _Mapping]]] = ...) -> None: ...

class SigningKey(_message.Message):
    __slots__ = ("key_id", "algorithm", "public_key", "valid_from_ms", "valid_to_ms")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    ALGORITHM_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_KEY_FIELD_NUMBER: _ClassVar[int]
    VALID_FROM_MS_FIELD_NUMBER: _ClassVar[int]
    VALID_TO_MS_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    algorithm: SigningAlgorithm
    public_key: bytes
    valid_from_ms: int
    valid_to_ms: int
    def __init__(self, key_id: _Optional[str] = ..., algorithm: _Optional[_Union[SigningAlgorithm, str]] = ..., public_key: _Optional[bytes] = ..., valid_from_ms: _Optional[int] = ..., valid_to_ms: _Optional[int] = ...) -> None: ...
