"""What every fuzzed call must respect, checked after each one:

- its status is one this API answers with on purpose. Allowed: OK, and the
  refusals the service maps its errors to (INVALID_ARGUMENT: bad input;
  FAILED_PRECONDITION: the rules' refusals and wrong match states; NOT_FOUND:
  unknown ids, or health of an unknown service; UNAUTHENTICATED and
  PERMISSION_DENIED: tokens); DEADLINE_EXCEEDED only for a call that waits by
  design (AwaitTurn, streams). Not allowed: UNKNOWN and INTERNAL (a crash),
  UNAVAILABLE and ABORTED (Redis is up and nothing else plays: a store error or
  endless conflicts would be a bug), and codes the API never uses
  (ALREADY_EXISTS, OUT_OF_RANGE...). RESOURCE_EXHAUSTED only in the one test
  that sends more than the server takes;
- no match changed, unless it was an Act that the live match's seat to act
  sent and the service accepted (a random message can be a legal play):
  then exactly by that action, up to the version the response names;
- no refusal tells a card hidden from the caller or any token, and no answer
  carries a token, unless the request itself carried it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import grpc

from service.app.match import Match
from service.grpc.gen.daifugo.v1 import match_service_pb2 as pb

from .calls import Answer, Metadata
from .methods import Method
from .target import FuzzTarget, Heads, hidden_from, leaked

REFUSALS = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
    }
)
ACT = "/daifugo.v1.MatchService/Act"


def allowed(method: Method) -> frozenset[grpc.StatusCode]:
    answers = REFUSALS | {grpc.StatusCode.OK}
    return answers | {grpc.StatusCode.DEADLINE_EXCEEDED} if method.may_wait else answers


def presented_token(metadata: Metadata) -> str | None:
    """The token the service reads from the metadata (servicer.bearer_token)."""
    for key, value in metadata:
        if key == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            return value.removeprefix("Bearer ").strip()
    return None


@dataclass(frozen=True)
class Before:
    heads: Heads
    live: Match
    to_act_token: str | None  # the live match's seat to act's


class Referee:
    def __init__(self, target: FuzzTarget) -> None:
        self.target = target
        self._live: tuple[bytes | None, Match] | None = None

    def before(self) -> Before:
        heads = self.target.heads()
        head = heads[self.target.live.match_id]
        if self._live is None or self._live[0] != head:
            self._live = (head, self.target.live_match())
        live = self._live[1]
        turn = live.game.turn
        to_act = None if turn is None else self.target.live.seat_tokens[turn]
        return Before(heads, live, to_act)

    def judge(
        self,
        method: Method,
        requests: Sequence[bytes],
        metadata: Metadata,
        answer: Answer,
        before: Before,
    ) -> None:
        where = f"{method.path} {answer.code.name} {answer.details[:200]!r}"
        assert answer.code in allowed(method), f"{where}: not an allowed status"
        sent = b"\n".join([*requests, *(str(value).encode() for _, value in metadata)])
        self._judge_state(method, metadata, answer, before, where)
        for response in answer.responses:
            carried = [token for token in self.target.secret_tokens if token.encode() in response]
            assert not [t for t in carried if t.encode() not in sent], f"{where}: a token"
        if answer.code != grpc.StatusCode.OK:
            viewer = self.target.seat_of(presented_token(metadata))
            secrets = [*self.target.secret_tokens, *hidden_from(before.live, viewer)]
            told = leaked(answer.text(), secrets, sent)
            assert not told, f"{where}: the refusal tells {told}"

    def _judge_state(
        self, method: Method, metadata: Metadata, answer: Answer, before: Before, where: str
    ) -> None:
        after = self.target.heads()
        if after == before.heads:
            return
        live_id = self.target.live.match_id
        changed = {match_id for match_id in after if after[match_id] != before.heads[match_id]}
        assert changed == {live_id}, f"{where}: changed {changed}"
        assert method.path == ACT and answer.code == grpc.StatusCode.OK, f"{where}: changed"
        token = presented_token(metadata)
        assert token is not None and token == before.to_act_token, f"{where}: acted as another"
        version = pb.ActResponse.FromString(answer.responses[0]).version
        head = after[live_id]
        assert head is not None and int(head.split()[0]) == version, f"{where}: {head!r}"
