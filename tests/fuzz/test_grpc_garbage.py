"""Garbage in over gRPC: random bytes and well-typed but wrong messages to every
method of every service the server exposes (its own, health, reflection), with
no token, junk, or real tokens of the wrong seat, role or match. Every call gets
an answer the API means (see referee.py), changes no match unless it was a legal
action of the seat to act, tells no hidden card or token; the server serves on."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.app.match import stream_of
from service.grpc.actions import action_to_message
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb
from service.grpc.gen.daifugo.v1 import match_service_pb2_grpc as pb_grpc
from service.rules.cards import format_mask
from service.rules.commands import Pass

from .calls import CALL_DEADLINE, Metadata, call
from .garbage import CARD_CODES, RANK_CODES, bodies, field_values, metadata
from .messages import MessageStrategies
from .methods import Method, fuzzed_methods, served_paths
from .referee import ACT, Referee
from .target import FuzzTarget

# bounded so the file runs in well under a minute on two cores
FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
MATCH_SERVICE = pb.DESCRIPTOR.services_by_name["MatchService"]
METHODS = fuzzed_methods()
MAX_RECEIVE = 4 * 1024 * 1024  # grpc's default limit of a message the server takes
# the methods whose requests have the most to get wrong
MORE_EXAMPLES = {"/daifugo.v1.MatchService/CreateMatch": 200, ACT: 80}


@pytest.fixture(scope="module")
def channel(fuzz_target: FuzzTarget) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(fuzz_target.grpc_address) as opened:
        yield opened


@pytest.fixture(scope="module")
def referee(fuzz_target: FuzzTarget) -> Referee:
    return Referee(fuzz_target)


def assert_still_serving(channel: grpc.Channel, target: FuzzTarget) -> None:
    """Healthy, answering a real call, every match's hash chain intact."""
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", MATCH_SERVICE.full_name):
        answer = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10)
        assert answer.status == health_pb2.HealthCheckResponse.SERVING
    seat = (("authorization", f"Bearer {target.live.seat_tokens[0]}"),)
    view = pb_grpc.MatchServiceStub(channel).GetView(  # type: ignore[no-untyped-call]
        pb.GetViewRequest(match_id=target.live.match_id), metadata=seat, timeout=10
    )
    assert view.view.seat == 0
    store = target.service.running.service.store
    for match_id in target.match_ids:
        assert target.service.run(store.verify(stream_of(match_id))).ok  # chains intact


def send(
    referee: Referee,
    channel: grpc.Channel,
    method: Method,
    requests: list[bytes],
    sent_metadata: Metadata,
) -> None:
    before = referee.before()
    answer = call(channel, method, requests, sent_metadata)
    referee.judge(method, requests, sent_metadata, answer, before)


def test_every_method_the_server_exposes_is_fuzzed(fuzz_target: FuzzTarget) -> None:
    assert served_paths(fuzz_target.grpc_address) == {method.path for method in METHODS}


@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.path)
def test_random_bytes(
    fuzz_target: FuzzTarget, method: Method, channel: grpc.Channel, referee: Referee
) -> None:
    # one request, unless the method takes a stream of them
    most = 3 if method.client_streaming else 1

    @settings(FUZZ, max_examples=30)
    @given(st.lists(bodies(fuzz_target), min_size=1, max_size=most), metadata(fuzz_target))
    def example(requests: list[bytes], sent_metadata: Metadata) -> None:
        send(referee, channel, method, requests, sent_metadata)

    example()
    assert_still_serving(channel, fuzz_target)


@pytest.mark.parametrize("method", METHODS, ids=lambda method: method.path)
def test_well_typed_wrong_messages(
    fuzz_target: FuzzTarget, method: Method, channel: grpc.Channel, referee: Referee
) -> None:
    most = 3 if method.client_streaming else 1
    messages = MessageStrategies(field_values(fuzz_target)).of(method.request)

    @settings(FUZZ, max_examples=MORE_EXAMPLES.get(method.path, 40))
    @given(st.lists(messages, min_size=1, max_size=most), metadata(fuzz_target))
    def example(messages: list[Message], sent_metadata: Metadata) -> None:
        requests = [message.SerializeToString() for message in messages]
        send(referee, channel, method, requests, sent_metadata)

    example()
    assert_still_serving(channel, fuzz_target)


# whose token an action goes with, resolved against the live match at call time:
# mostly the seat to act's, whose actions get past the token and turn checks, and
# other seats', whose actions (a pass, say) would be legal for the seat to act
ROLES = [*["to act"] * 4, *["not to act"] * 3, "host", "finished seat", "waiting seat"]
KINDS = [*["play"] * 3, *["pass"] * 2, "give", "discard", "bomb", "pick"]


def test_actions_with_cards_from_the_hands_change_only_what_they_may(
    fuzz_target: FuzzTarget, channel: grpc.Channel, referee: Referee
) -> None:
    """Near-legal actions reach the rules' deeper refusals (not_stronger,
    invalid_meld, locks...), and now and then are legal: the referee holds the
    live match to exactly those."""
    act = next(method for method in METHODS if method.path == ACT)

    @settings(FUZZ, max_examples=150)
    @given(
        role=st.sampled_from(ROLES),
        kind=st.sampled_from(KINDS),
        picks=st.lists(st.integers(0, 30), max_size=5),
        same_rank=st.booleans(),
        jokers_as=st.lists(st.sampled_from(CARD_CODES), max_size=2),
        ranks=st.lists(st.sampled_from(RANK_CODES), max_size=3),
        request_id=st.sampled_from(["", "hand-1", "hand-2"]) | st.uuids().map(str),
        include_turn=st.booleans(),
    )
    def example(
        role: str,
        kind: str,
        picks: list[int],
        same_rank: bool,
        jokers_as: list[str],
        ranks: list[str],
        request_id: str,
        include_turn: bool,
    ) -> None:
        token, hand = _role(fuzz_target, role)
        cards = _pick(hand, picks, same_rank)
        action = {
            "play": pb.Action(play=pb.Play(cards=cards, jokers_as=jokers_as)),
            "pass": action_to_message(Pass(0)),  # `pass` is a keyword: no pb.Action(pass=...)
            "give": pb.Action(give=pb.Give(cards=cards)),
            "discard": pb.Action(discard=pb.Discard(cards=cards)),
            "bomb": pb.Action(bomb=pb.Bomb(ranks=ranks)),
            "pick": pb.Action(pick=pb.Pick(cards=cards)),
        }[kind]
        request = pb.ActRequest(
            match_id=fuzz_target.live.match_id,
            request_id=request_id,
            action=action,
            include_turn=include_turn,
        )
        auth = (("authorization", f"Bearer {token}"),)
        send(referee, channel, act, [request.SerializeToString()], auth)

    example()
    assert_still_serving(channel, fuzz_target)


def _pick(hand: list[str], picks: list[int], same_rank: bool) -> list[str]:
    """Cards of ``hand`` by index; with ``same_rank`` those of the first pick's rank
    (as many as picked): pairs and triples, so plays reach more than invalid_meld."""
    if not hand or not picks:
        return []
    chosen = {hand[pick % len(hand)] for pick in picks}
    if same_rank:
        rank = hand[picks[0] % len(hand)][0]
        chosen = {card for card in hand if card[0] == rank}
        chosen = set(sorted(chosen)[: len(picks)])
    return sorted(chosen)


def _role(target: FuzzTarget, role: str) -> tuple[str, list[str]]:
    """A token for ``role`` and the hand it picks cards from (its own, else the
    hand of the seat to act)."""
    match = target.live_match()
    turn = match.game.turn if match.game.turn is not None else 0
    hand = format_mask(match.game.hands[turn])
    if role == "to act":
        return target.live.seat_tokens[turn], hand
    if role == "not to act":
        other = (turn + 1) % match.players
        return target.live.seat_tokens[other], format_mask(match.game.hands[other])
    if role == "host":
        return target.live.host_token, hand
    if role == "finished seat":
        return target.finished.seat_tokens[0], hand
    return target.waiting.seat_tokens[0], hand


def test_a_request_over_the_size_limit_is_refused_and_the_server_serves_on(
    fuzz_target: FuzzTarget, channel: grpc.Channel
) -> None:
    heads = fuzz_target.heads()
    body = b"\x0a" + uuid.uuid4().bytes * (MAX_RECEIVE // 16 + 1)
    auth = (("authorization", f"Bearer {fuzz_target.live.seat_tokens[0]}"),)
    for method in METHODS:
        # the one place RESOURCE_EXHAUSTED is the answer (and the whole deadline: it is big)
        answer = call(channel, method, [body], auth, timeout=CALL_DEADLINE)
        assert answer.code == grpc.StatusCode.RESOURCE_EXHAUSTED, (method.path, answer.details)
    assert fuzz_target.heads() == heads
    assert_still_serving(channel, fuzz_target)


def nasty_requests(target: FuzzTarget) -> list[tuple[str, bytes, grpc.StatusCode]]:
    """Requests that once got UNKNOWN or lost their refusal, each with its answer now."""
    service = f"/{MATCH_SERVICE.full_name}"
    nan_options = pb.CreateMatchRequest(preset=pb.PRESET_CLASSIC, seats=4)
    nan_options.options.update({"jokers": float("nan")})
    infinite_options = pb.CreateMatchRequest(preset=pb.PRESET_CLASSIC, seats=4)
    infinite_options.options.update({"jokers": float("inf")})
    forever = pb.CreateMatchRequest(preset=pb.PRESET_CLASSIC, seats=4)
    forever.turn_time_limit.seconds = 2**62
    huge_card = pb.Action(play=pb.Play(cards=["5" * 20000]))
    huge_act = pb.ActRequest(match_id=target.live.match_id, action=huge_card)
    invalid, absent = grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND
    return [
        (f"{service}/GetView", pb.GetViewRequest(match_id="{").SerializeToString(), absent),
        (f"{service}/Act", pb.ActRequest(match_id="a}b").SerializeToString(), absent),
        (
            f"{service}/GetView",
            pb.GetViewRequest(match_id="x" * 9999).SerializeToString(),
            absent,
        ),
        (f"{service}/CreateMatch", nan_options.SerializeToString(), invalid),
        (f"{service}/CreateMatch", infinite_options.SerializeToString(), invalid),
        (f"{service}/CreateMatch", forever.SerializeToString(), invalid),
        (f"{service}/Act", huge_act.SerializeToString(), invalid),
        (f"{service}/GetView", b"\xff\xff", invalid),
        ("/grpc.health.v1.Health/Check", b"\x0a\x02\xff\xfe", invalid),
        ("/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", b"\xff", invalid),
    ]


def test_requests_that_once_crashed_the_service_are_refused(
    fuzz_target: FuzzTarget, channel: grpc.Channel, referee: Referee
) -> None:
    by_path = {method.path: method for method in METHODS}
    # the seat to act's token: the request is refused for what it is, not for whose it is
    turn = fuzz_target.live_match().game.turn or 0
    auth = (("authorization", f"Bearer {fuzz_target.live.seat_tokens[turn]}"),)
    for path, request, expected in nasty_requests(fuzz_target):
        before = referee.before()
        answer = call(channel, by_path[path], [request], auth)
        referee.judge(by_path[path], [request], auth, answer, before)
        assert answer.code == expected, (path, answer.code, answer.details[:200])
    assert_still_serving(channel, fuzz_target)
