import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Preset(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PRESET_UNSPECIFIED: _ClassVar[Preset]
    PRESET_FEDERATION: _ClassVar[Preset]
    PRESET_TORASOBI: _ClassVar[Preset]
    PRESET_CLASSIC: _ClassVar[Preset]
    PRESET_UECDA: _ClassVar[Preset]

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_BEFORE_DEAL: _ClassVar[Phase]
    PHASE_IN_GAME: _ClassVar[Phase]
    PHASE_GAME_OVER: _ClassVar[Phase]
    PHASE_MATCH_OVER: _ClassVar[Phase]

class WaitingFor(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WAITING_FOR_UNSPECIFIED: _ClassVar[WaitingFor]
    WAITING_FOR_PLAY: _ClassVar[WaitingFor]
    WAITING_FOR_EXCHANGE: _ClassVar[WaitingFor]
    WAITING_FOR_SEVEN_PASS: _ClassVar[WaitingFor]
    WAITING_FOR_TEN_DISCARD: _ClassVar[WaitingFor]
    WAITING_FOR_QUEEN_BOMBER: _ClassVar[WaitingFor]
    WAITING_FOR_FOUR_STOP: _ClassVar[WaitingFor]
    WAITING_FOR_EIGHT_CUT_RETURN: _ClassVar[WaitingFor]
    WAITING_FOR_SALVAGE: _ClassVar[WaitingFor]
    WAITING_FOR_KINGS_MARCH: _ClassVar[WaitingFor]
    WAITING_FOR_ZOMBIE: _ClassVar[WaitingFor]
    WAITING_FOR_KING_PASTOR: _ClassVar[WaitingFor]

class FieldKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIELD_KIND_UNSPECIFIED: _ClassVar[FieldKind]
    FIELD_KIND_SINGLE: _ClassVar[FieldKind]
    FIELD_KIND_GROUP: _ClassVar[FieldKind]
    FIELD_KIND_STAIRS: _ClassVar[FieldKind]
    FIELD_KIND_EMPEROR: _ClassVar[FieldKind]

class ElevenBack(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ELEVEN_BACK_UNSPECIFIED: _ClassVar[ElevenBack]
    ELEVEN_BACK_STRENGTH: _ClassVar[ElevenBack]
    ELEVEN_BACK_ORDER: _ClassVar[ElevenBack]
PRESET_UNSPECIFIED: Preset
PRESET_FEDERATION: Preset
PRESET_TORASOBI: Preset
PRESET_CLASSIC: Preset
PRESET_UECDA: Preset
PHASE_UNSPECIFIED: Phase
PHASE_BEFORE_DEAL: Phase
PHASE_IN_GAME: Phase
PHASE_GAME_OVER: Phase
PHASE_MATCH_OVER: Phase
WAITING_FOR_UNSPECIFIED: WaitingFor
WAITING_FOR_PLAY: WaitingFor
WAITING_FOR_EXCHANGE: WaitingFor
WAITING_FOR_SEVEN_PASS: WaitingFor
WAITING_FOR_TEN_DISCARD: WaitingFor
WAITING_FOR_QUEEN_BOMBER: WaitingFor
WAITING_FOR_FOUR_STOP: WaitingFor
WAITING_FOR_EIGHT_CUT_RETURN: WaitingFor
WAITING_FOR_SALVAGE: WaitingFor
WAITING_FOR_KINGS_MARCH: WaitingFor
WAITING_FOR_ZOMBIE: WaitingFor
WAITING_FOR_KING_PASTOR: WaitingFor
FIELD_KIND_UNSPECIFIED: FieldKind
FIELD_KIND_SINGLE: FieldKind
FIELD_KIND_GROUP: FieldKind
FIELD_KIND_STAIRS: FieldKind
FIELD_KIND_EMPEROR: FieldKind
ELEVEN_BACK_UNSPECIFIED: ElevenBack
ELEVEN_BACK_STRENGTH: ElevenBack
ELEVEN_BACK_ORDER: ElevenBack

class CreateMatchRequest(_message.Message):
    __slots__ = ("preset", "options", "seats", "games_per_set", "turn_time_limit", "client_seeds", "open_seats", "request_id", "spectator_delay", "rated", "lobby")
    PRESET_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    GAMES_PER_SET_FIELD_NUMBER: _ClassVar[int]
    TURN_TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEEDS_FIELD_NUMBER: _ClassVar[int]
    OPEN_SEATS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    LOBBY_FIELD_NUMBER: _ClassVar[int]
    preset: Preset
    options: _struct_pb2.Struct
    seats: int
    games_per_set: int
    turn_time_limit: _duration_pb2.Duration
    client_seeds: _containers.RepeatedScalarFieldContainer[bytes]
    open_seats: bool
    request_id: str
    spectator_delay: _duration_pb2.Duration
    rated: bool
    lobby: bool
    def __init__(self, preset: _Optional[_Union[Preset, str]] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seats: _Optional[int] = ..., games_per_set: _Optional[int] = ..., turn_time_limit: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., client_seeds: _Optional[_Iterable[bytes]] = ..., open_seats: _Optional[bool] = ..., request_id: _Optional[str] = ..., spectator_delay: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., rated: _Optional[bool] = ..., lobby: _Optional[bool] = ...) -> None: ...

class CreateMatchResponse(_message.Message):
    __slots__ = ("match_id", "host_token", "seat_tokens", "receipt")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HOST_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    host_token: str
    seat_tokens: _containers.RepeatedCompositeFieldContainer[SeatToken]
    receipt: str
    def __init__(self, match_id: _Optional[str] = ..., host_token: _Optional[str] = ..., seat_tokens: _Optional[_Iterable[_Union[SeatToken, _Mapping]]] = ..., receipt: _Optional[str] = ...) -> None: ...

class SeatToken(_message.Message):
    __slots__ = ("seat", "token")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class JoinMatchRequest(_message.Message):
    __slots__ = ("match_id", "name", "client_seed", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    name: str
    client_seed: bytes
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., name: _Optional[str] = ..., client_seed: _Optional[bytes] = ..., request_id: _Optional[str] = ...) -> None: ...

class JoinMatchResponse(_message.Message):
    __slots__ = ("seat", "token", "receipts")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    RECEIPTS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    token: str
    receipts: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., token: _Optional[str] = ..., receipts: _Optional[_Iterable[str]] = ...) -> None: ...

class StartMatchRequest(_message.Message):
    __slots__ = ("match_id", "request_id")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class StartMatchResponse(_message.Message):
    __slots__ = ("seed_commitment", "version", "receipt")
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    seed_commitment: str
    version: int
    receipt: str
    def __init__(self, seed_commitment: _Optional[str] = ..., version: _Optional[int] = ..., receipt: _Optional[str] = ...) -> None: ...

class Play(_message.Message):
    __slots__ = ("cards", "jokers_as")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_AS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    jokers_as: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., jokers_as: _Optional[_Iterable[str]] = ...) -> None: ...

class Pass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Give(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Discard(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Bomb(_message.Message):
    __slots__ = ("ranks",)
    RANKS_FIELD_NUMBER: _ClassVar[int]
    ranks: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ranks: _Optional[_Iterable[str]] = ...) -> None: ...

class Pick(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("play", "give", "discard", "bomb", "pick")
    PLAY_FIELD_NUMBER: _ClassVar[int]
    PASS_FIELD_NUMBER: _ClassVar[int]
    GIVE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    BOMB_FIELD_NUMBER: _ClassVar[int]
    PICK_FIELD_NUMBER: _ClassVar[int]
    play: Play
    give: Give
    discard: Discard
    bomb: Bomb
    pick: Pick
    def __init__(self, play: _Optional[_Union[Play, _Mapping]] = ..., give: _Optional[_Union[Give, _Mapping]] = ..., discard: _Optional[_Union[Discard, _Mapping]] = ..., bomb: _Optional[_Union[Bomb, _Mapping]] = ..., pick: _Optional[_Union[Pick, _Mapping]] = ..., **kwargs) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("match_id", "request_id", "action", "include_turn", "await_turn")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_TURN_FIELD_NUMBER: _ClassVar[int]
    AWAIT_TURN_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    request_id: str
    action: Action
    include_turn: bool
    await_turn: bool
    def __init__(self, match_id: _Optional[str] = ..., request_id: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., include_turn: _Optional[bool] = ..., await_turn: _Optional[bool] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("version", "events", "view", "legal_actions", "view_version", "receipt")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    VIEW_VERSION_FIELD_NUMBER: _ClassVar[int]
    RECEIPT_FIELD_NUMBER: _ClassVar[int]
    version: int
    events: _containers.RepeatedCompositeFieldContainer[Event]
    view: View
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    view_version: int
    receipt: str
    def __init__(self, version: _Optional[int] = ..., events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., view_version: _Optional[int] = ..., receipt: _Optional[str] = ...) -> None: ...

class GetViewRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class GetViewResponse(_message.Message):
    __slots__ = ("view", "version", "legal_actions")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    view: View
    version: int
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, view: _Optional[_Union[View, _Mapping]] = ..., version: _Optional[int] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class AwaitTurnRequest(_message.Message):
    __slots__ = ("match_id", "after_version")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    AFTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    after_version: int
    def __init__(self, match_id: _Optional[str] = ..., after_version: _Optional[int] = ...) -> None: ...

class AwaitTurnResponse(_message.Message):
    __slots__ = ("view", "version", "legal_actions")
    VIEW_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    view: View
    version: int
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, view: _Optional[_Union[View, _Mapping]] = ..., version: _Optional[int] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class ListLegalActionsRequest(_message.Message):
    __slots__ = ("match_id",)
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    def __init__(self, match_id: _Optional[str] = ...) -> None: ...

class ListLegalActionsResponse(_message.Message):
    __slots__ = ("actions", "version")
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    version: int
    def __init__(self, actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., version: _Optional[int] = ...) -> None: ...

class StreamEventsRequest(_message.Message):
    __slots__ = ("match_id", "from_seq")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    from_seq: int
    def __init__(self, match_id: _Optional[str] = ..., from_seq: _Optional[int] = ...) -> None: ...

class StreamEventsResponse(_message.Message):
    __slots__ = ("events", "view", "legal_actions")
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[Event]
    view: View
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    def __init__(self, events: _Optional[_Iterable[_Union[Event, _Mapping]]] = ..., view: _Optional[_Union[View, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ...) -> None: ...

class Event(_message.Message):
    __slots__ = ("seq", "type", "data", "at_ms")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    seq: int
    type: str
    data: _struct_pb2.Struct
    at_ms: int
    def __init__(self, seq: _Optional[int] = ..., type: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., at_ms: _Optional[int] = ...) -> None: ...

class View(_message.Message):
    __slots__ = ("viewer", "seat", "preset", "players", "phase", "game_number", "games_per_set", "turn", "waiting_for", "step_count", "four_stop_seats", "hand", "hand_sizes", "field", "field_jokers_as", "field_kind", "field_seat", "revolution", "eleven_back", "direction", "suit_lock", "number_lock", "omen", "passed", "active", "places", "forbidden", "fallen", "previous_places", "results", "blind", "unused", "turn_deadline_ms", "options", "seating", "spectator_delay_ms", "phase_value", "waiting_for_value", "field_kind_value", "eleven_back_value", "two_back", "discard_pile", "color_lock", "partial_lock", "suit_run", "suit_run_suits", "number_run", "trick", "last_play", "last_seat", "leader", "trick_leader", "exchange_steps", "pending", "window", "pass_run", "eleven_back_lasts", "recent_suits", "finished_in_trick", "leisure_seat", "out_of_play", "seats_drawn", "bottom", "marked", "discard_pile_marked")
    class PlacesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: int
        value: int
        def __init__(self, key: _Optional[int] = ..., value: _Optional[int] = ...) -> None: ...
    VIEWER_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PRESET_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    GAME_NUMBER_FIELD_NUMBER: _ClassVar[int]
    GAMES_PER_SET_FIELD_NUMBER: _ClassVar[int]
    TURN_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_FIELD_NUMBER: _ClassVar[int]
    STEP_COUNT_FIELD_NUMBER: _ClassVar[int]
    FOUR_STOP_SEATS_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    FIELD_JOKERS_AS_FIELD_NUMBER: _ClassVar[int]
    FIELD_KIND_FIELD_NUMBER: _ClassVar[int]
    FIELD_SEAT_FIELD_NUMBER: _ClassVar[int]
    REVOLUTION_FIELD_NUMBER: _ClassVar[int]
    ELEVEN_BACK_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    SUIT_LOCK_FIELD_NUMBER: _ClassVar[int]
    NUMBER_LOCK_FIELD_NUMBER: _ClassVar[int]
    OMEN_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    PLACES_FIELD_NUMBER: _ClassVar[int]
    FORBIDDEN_FIELD_NUMBER: _ClassVar[int]
    FALLEN_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_PLACES_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    BLIND_FIELD_NUMBER: _ClassVar[int]
    UNUSED_FIELD_NUMBER: _ClassVar[int]
    TURN_DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEATING_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_MS_FIELD_NUMBER: _ClassVar[int]
    PHASE_VALUE_FIELD_NUMBER: _ClassVar[int]
    WAITING_FOR_VALUE_FIELD_NUMBER: _ClassVar[int]
    FIELD_KIND_VALUE_FIELD_NUMBER: _ClassVar[int]
    ELEVEN_BACK_VALUE_FIELD_NUMBER: _ClassVar[int]
    TWO_BACK_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    COLOR_LOCK_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_LOCK_FIELD_NUMBER: _ClassVar[int]
    SUIT_RUN_FIELD_NUMBER: _ClassVar[int]
    SUIT_RUN_SUITS_FIELD_NUMBER: _ClassVar[int]
    NUMBER_RUN_FIELD_NUMBER: _ClassVar[int]
    TRICK_FIELD_NUMBER: _ClassVar[int]
    LAST_PLAY_FIELD_NUMBER: _ClassVar[int]
    LAST_SEAT_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TRICK_LEADER_FIELD_NUMBER: _ClassVar[int]
    EXCHANGE_STEPS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    WINDOW_FIELD_NUMBER: _ClassVar[int]
    PASS_RUN_FIELD_NUMBER: _ClassVar[int]
    ELEVEN_BACK_LASTS_FIELD_NUMBER: _ClassVar[int]
    RECENT_SUITS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_IN_TRICK_FIELD_NUMBER: _ClassVar[int]
    LEISURE_SEAT_FIELD_NUMBER: _ClassVar[int]
    OUT_OF_PLAY_FIELD_NUMBER: _ClassVar[int]
    SEATS_DRAWN_FIELD_NUMBER: _ClassVar[int]
    BOTTOM_FIELD_NUMBER: _ClassVar[int]
    MARKED_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_MARKED_FIELD_NUMBER: _ClassVar[int]
    viewer: str
    seat: int
    preset: str
    players: int
    phase: str
    game_number: int
    games_per_set: int
    turn: int
    waiting_for: str
    step_count: int
    four_stop_seats: _containers.RepeatedScalarFieldContainer[int]
    hand: _containers.RepeatedScalarFieldContainer[str]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    field: _containers.RepeatedScalarFieldContainer[str]
    field_jokers_as: _containers.RepeatedScalarFieldContainer[str]
    field_kind: str
    field_seat: int
    revolution: bool
    eleven_back: str
    direction: int
    suit_lock: _containers.RepeatedScalarFieldContainer[str]
    number_lock: bool
    omen: bool
    passed: _containers.RepeatedScalarFieldContainer[int]
    active: _containers.RepeatedScalarFieldContainer[int]
    places: _containers.ScalarMap[int, int]
    forbidden: _containers.RepeatedScalarFieldContainer[int]
    fallen: _containers.RepeatedScalarFieldContainer[int]
    previous_places: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedCompositeFieldContainer[GameResult]
    blind: _containers.RepeatedScalarFieldContainer[str]
    unused: _containers.RepeatedScalarFieldContainer[str]
    turn_deadline_ms: int
    options: _struct_pb2.Struct
    seating: _containers.RepeatedScalarFieldContainer[int]
    spectator_delay_ms: int
    phase_value: Phase
    waiting_for_value: WaitingFor
    field_kind_value: FieldKind
    eleven_back_value: ElevenBack
    two_back: bool
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    color_lock: str
    partial_lock: bool
    suit_run: int
    suit_run_suits: _containers.RepeatedScalarFieldContainer[str]
    number_run: int
    trick: _containers.RepeatedScalarFieldContainer[str]
    last_play: PlayedMeld
    last_seat: int
    leader: int
    trick_leader: int
    exchange_steps: _containers.RepeatedCompositeFieldContainer[ExchangeStep]
    pending: _containers.RepeatedCompositeFieldContainer[PendingStep]
    window: WaitingFor
    pass_run: int
    eleven_back_lasts: int
    recent_suits: _containers.RepeatedScalarFieldContainer[str]
    finished_in_trick: bool
    leisure_seat: int
    out_of_play: _containers.RepeatedScalarFieldContainer[str]
    seats_drawn: bool
    bottom: _containers.RepeatedScalarFieldContainer[int]
    marked: _containers.RepeatedScalarFieldContainer[str]
    discard_pile_marked: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, viewer: _Optional[str] = ..., seat: _Optional[int] = ..., preset: _Optional[str] = ..., players: _Optional[int] = ..., phase: _Optional[str] = ..., game_number: _Optional[int] = ..., games_per_set: _Optional[int] = ..., turn: _Optional[int] = ..., waiting_for: _Optional[str] = ..., step_count: _Optional[int] = ..., four_stop_seats: _Optional[_Iterable[int]] = ..., hand: _Optional[_Iterable[str]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., field: _Optional[_Iterable[str]] = ..., field_jokers_as: _Optional[_Iterable[str]] = ..., field_kind: _Optional[str] = ..., field_seat: _Optional[int] = ..., revolution: _Optional[bool] = ..., eleven_back: _Optional[str] = ..., direction: _Optional[int] = ..., suit_lock: _Optional[_Iterable[str]] = ..., number_lock: _Optional[bool] = ..., omen: _Optional[bool] = ..., passed: _Optional[_Iterable[int]] = ..., active: _Optional[_Iterable[int]] = ..., places: _Optional[_Mapping[int, int]] = ..., forbidden: _Optional[_Iterable[int]] = ..., fallen: _Optional[_Iterable[int]] = ..., previous_places: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[GameResult, _Mapping]]] = ..., blind: _Optional[_Iterable[str]] = ..., unused: _Optional[_Iterable[str]] = ..., turn_deadline_ms: _Optional[int] = ..., options: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seating: _Optional[_Iterable[int]] = ..., spectator_delay_ms: _Optional[int] = ..., phase_value: _Optional[_Union[Phase, str]] = ..., waiting_for_value: _Optional[_Union[WaitingFor, str]] = ..., field_kind_value: _Optional[_Union[FieldKind, str]] = ..., eleven_back_value: _Optional[_Union[ElevenBack, str]] = ..., two_back: _Optional[bool] = ..., discard_pile: _Optional[_Iterable[str]] = ..., color_lock: _Optional[str] = ..., partial_lock: _Optional[bool] = ..., suit_run: _Optional[int] = ..., suit_run_suits: _Optional[_Iterable[str]] = ..., number_run: _Optional[int] = ..., trick: _Optional[_Iterable[str]] = ..., last_play: _Optional[_Union[PlayedMeld, _Mapping]] = ..., last_seat: _Optional[int] = ..., leader: _Optional[int] = ..., trick_leader: _Optional[int] = ..., exchange_steps: _Optional[_Iterable[_Union[ExchangeStep, _Mapping]]] = ..., pending: _Optional[_Iterable[_Union[PendingStep, _Mapping]]] = ..., window: _Optional[_Union[WaitingFor, str]] = ..., pass_run: _Optional[int] = ..., eleven_back_lasts: _Optional[int] = ..., recent_suits: _Optional[_Iterable[str]] = ..., finished_in_trick: _Optional[bool] = ..., leisure_seat: _Optional[int] = ..., out_of_play: _Optional[_Iterable[str]] = ..., seats_drawn: _Optional[bool] = ..., bottom: _Optional[_Iterable[int]] = ..., marked: _Optional[_Iterable[str]] = ..., discard_pile_marked: _Optional[_Iterable[str]] = ...) -> None: ...

class PlayedMeld(_message.Message):
    __slots__ = ("cards", "jokers_as")
    CARDS_FIELD_NUMBER: _ClassVar[int]
    JOKERS_AS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    jokers_as: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ..., jokers_as: _Optional[_Iterable[str]] = ...) -> None: ...

class ExchangeStep(_message.Message):
    __slots__ = ("giver", "receiver", "count", "strongest")
    GIVER_FIELD_NUMBER: _ClassVar[int]
    RECEIVER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    STRONGEST_FIELD_NUMBER: _ClassVar[int]
    giver: int
    receiver: int
    count: int
    strongest: bool
    def __init__(self, giver: _Optional[int] = ..., receiver: _Optional[int] = ..., count: _Optional[int] = ..., strongest: _Optional[bool] = ...) -> None: ...

class PendingStep(_message.Message):
    __slots__ = ("step", "count", "seat")
    STEP_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    step: WaitingFor
    count: int
    seat: int
    def __init__(self, step: _Optional[_Union[WaitingFor, str]] = ..., count: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class GameResult(_message.Message):
    __slots__ = ("places",)
    PLACES_FIELD_NUMBER: _ClassVar[int]
    places: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, places: _Optional[_Iterable[int]] = ...) -> None: ...
