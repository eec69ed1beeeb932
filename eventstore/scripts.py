"""The Lua scripts (EVAL/EVALSHA, Redis 6.2+; no 7.0 Functions) and how they are called."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from redis.exceptions import NoScriptError

from .connection import SharedConnection
from .model import GENESIS_HASH


class _Executor(Protocol):
    async def execute_command(self, *args: Any, **options: Any) -> Any: ...


class Script:
    """A Lua script run by EVALSHA, falling back to EVAL (which caches it) on NOSCRIPT."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()

    async def run(
        self,
        client: _Executor,
        keys: Sequence[str],
        args: Sequence[str | bytes | int | float],
        sent: Callable[[], None] | None = None,
    ) -> Any:
        """The script's reply. ``sent``: called once before the reply is given (by the
        shared connection while it awaits the reply where it can; with any other
        client before the script is asked)."""
        options: dict[str, Callable[[], None]] = {}
        if sent is not None and isinstance(client, SharedConnection):
            options["sent"] = _once(sent)  # the EVAL after a NOSCRIPT may ask it again
        elif sent is not None:
            sent()
        try:
            return await client.execute_command(
                "EVALSHA", self.sha, len(keys), *keys, *args, **options
            )
        except NoScriptError:
            return await client.execute_command(
                "EVAL", self.source, len(keys), *keys, *args, **options
            )


def _once(call: Callable[[], None]) -> Callable[[], None]:
    called = False

    def once() -> None:
        nonlocal called
        if not called:
            called = True
            call()

    return once


# Replies: {0, first, last} appended | {1, first, last} duplicate request id
#          {2, version} version conflict | {3, version, head} the client chained from a
#          stale head hash (retry with that head) | {4} the request id was used with
#          another fingerprint | {5, version} the stream is closed (its seal was its
#          last append): nothing is written after it.
APPEND = Script(
    """
-- KEYS[1] events, KEYS[2] meta: hash of 'head' = '<seq> <hash>' of the last event and
-- 'r:<request id>' = '<first seq> <last seq>[ <fingerprint>]' of every append, forever,
-- and 'closed' = '<seq>' once the append ending in the closing event (the seal) is in.
-- On a single server only (never on a cluster, where they live in another slot):
-- KEYS[3] feed, KEYS[4] index (of the open streams), KEYS[5] index counter, KEYS[6] the
-- close log, KEYS[7] its counter: the seal moves the stream from the index to the log.
-- ARGV[1] expected version, ARGV[2] request id, ARGV[3] head hash the client chained from,
-- ARGV[4] stream id, ARGV[5] feed max length (0: no trim), ARGV[6] fingerprint,
-- ARGV[7] '1' when the batch's last event closes the stream (nothing may follow), else '0',
-- ARGV[8..] hash, body, ...
local got = redis.call('HMGET', KEYS[2], 'r:' .. ARGV[2], 'head', 'closed')
if got[1] then
  local cut = string.find(got[1], ' ', 1, true)
  local rest = string.sub(got[1], cut + 1)
  local cut2 = string.find(rest, ' ', 1, true)
  local fingerprint = ''
  if cut2 then
    fingerprint = string.sub(rest, cut2 + 1)
    rest = string.sub(rest, 1, cut2 - 1)
  end
  if fingerprint ~= ARGV[6] then return {4} end
  return {1, tonumber(string.sub(got[1], 1, cut - 1)), tonumber(rest)}
end
if got[3] then return {5, tonumber(got[3])} end
local version, head = -1, '"""
    + GENESIS_HASH
    + """'
if got[2] then
  local cut = string.find(got[2], ' ', 1, true)
  version = tonumber(string.sub(got[2], 1, cut - 1))
  head = string.sub(got[2], cut + 1)
elseif redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.error_reply('ESCORRUPT ' .. KEYS[1] .. ' has entries but no head record')
end
local expected = tonumber(ARGV[1])
if version ~= expected then return {2, version} end
-- no events (a probe for the head) or a stale head: tell the client the head, write nothing
if head ~= ARGV[3] or #ARGV < 9 then return {3, version, head} end
local n = (#ARGV - 7) / 2
for i = 0, n - 1 do
  redis.call('XADD', KEYS[1], (expected + 1 + i) .. '-1', 'h', ARGV[8 + 2 * i],
    'e', ARGV[9 + 2 * i])
end
local last = expected + n
local record = (expected + 1) .. ' ' .. last
if ARGV[6] ~= '' then record = record .. ' ' .. ARGV[6] end
redis.call('HSET', KEYS[2], 'r:' .. ARGV[2], record, 'head', last .. ' ' .. ARGV[#ARGV - 1])
if ARGV[7] == '1' then redis.call('HSET', KEYS[2], 'closed', last) end
if #KEYS >= 5 then
  if expected == -1 and not redis.call('ZSCORE', KEYS[4], ARGV[4]) then
    redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[5]), ARGV[4])
  end
  if ARGV[7] == '1' then
    redis.call('ZREM', KEYS[4], ARGV[4])
    if not redis.call('ZSCORE', KEYS[6], ARGV[4]) then
      redis.call('ZADD', KEYS[6], redis.call('INCR', KEYS[7]), ARGV[4])
    end
  end
  if ARGV[5] == '0' then
    redis.call('XADD', KEYS[3], '*', 's', ARGV[4], 'v', last)
  else
    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[5], '*', 's', ARGV[4], 'v', last)
  end
end
return {0, expected + 1, last}
"""
)

# Drop a sealed stream and its snapshots (once archived).
# Reply: 1 dropped, 0 not sealed (kept), 2 no stream.
DROP_SEALED = Script(
    """
-- KEYS[1] events, KEYS[2] meta, KEYS[3..5] its snapshots (one slot: the stream's tag)
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('DEL', KEYS[3], KEYS[4], KEYS[5])
  return 2
end
if redis.call('HEXISTS', KEYS[2], 'closed') == 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
return 1
"""
)

# Register a stream in the index (idempotent). Reply: 1 added, 0 already there.
INDEX = Script(
    """
-- KEYS[1] index, KEYS[2] index counter; ARGV[1] stream id
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[2]), ARGV[1])
return 1
"""
)

# A sealed stream leaves the index of open streams for the close log, numbered in close
# order (idempotent): after its seal on a cluster, where the index lives in another slot,
# and for one a sweep finds sealed in the index (a crash between the seal and this).
# Reply: its close number.
CLOSE = Script(
    """
-- KEYS[1] index, KEYS[2] close log, KEYS[3] close counter; ARGV[1] stream id
redis.call('ZREM', KEYS[1], ARGV[1])
local number = redis.call('ZSCORE', KEYS[2], ARGV[1])
if number then return tonumber(number) end
number = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[2], number, ARGV[1])
return number
"""
)

# Move a checkpoint forward only. Reply: 1 moved, 0 it was already there or past.
COMMIT = Script(
    """
-- KEYS[1] positions; ARGV[1] stream id, ARGV[2] seq
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
if tonumber(ARGV[2]) > cur then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
return 0
"""
)

# Move checkpoints over events their projection passed without a write, each only if
# nothing between it and the first passed event is missing (as APPLY checks).
# Reply: how many moved.
PASS = Script(
    """
-- KEYS[1] positions; ARGV: for each stream its id, first seq passed, last seq passed
local moved = 0
for i = 1, #ARGV, 3 do
  local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '-1')
  if tonumber(ARGV[i + 2]) > cur and tonumber(ARGV[i + 1]) <= cur + 1 then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
    moved = moved + 1
  end
end
return moved
"""
)


# Apply a projection's writes and move its checkpoint in one step, only if nothing between
# the checkpoint and this event is missing: the events from ARGV[3] up to ARGV[2] - 1 are ones
# the caller saw and that needed no writes (ARGV[3] = ARGV[2] when there are none).
# Reply: {1, seq} applied | {0, position} already applied | {2, position} an earlier event
# was not applied.
def _run_ops(first: int) -> str:
    """Lua running a projection's ops: KEYS[1 + k] the key of op k; from ARGV[first], for
    each op: number of extra args, command, extra args..."""
    return f"""
local i, k = {first}, 1
while i <= #ARGV do
  local nargs = tonumber(ARGV[i])
  local cmd = {{ARGV[i + 1], KEYS[1 + k]}}
  for j = 1, nargs do cmd[j + 2] = ARGV[i + 1 + j] end
  redis.call(unpack(cmd))
  i = i + 2 + nargs
  k = k + 1
end
"""


APPLY = Script(
    """
-- KEYS[1] positions; ARGV[1] stream id, ARGV[2] seq, ARGV[3] first seq covered, then the ops
local cur = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '-1')
local seq = tonumber(ARGV[2])
if seq <= cur then return {0, cur} end
if tonumber(ARGV[3]) > cur + 1 then return {2, cur} end
"""
    + _run_ops(4)
    + """redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {1, seq}
"""
)

# A projection's ops with no checkpoint, at once (KEYS[1], its positions, unused: the
# ops' keys are numbered as APPLY's). Reply: 1.
WRITE = Script(
    """
-- KEYS[1] positions (unused); ARGV the ops
"""
    + _run_ops(1)
    + """return 1
"""
)

# Retire closed streams a projection has applied through their seals, in close order: each
# one's position goes, the projection's writes for it run (what it kept for the stream
# alone) and the watermark moves to its close number, together, so a restart neither
# reads it again nor applies it twice. Stops at the first not applied through.
# Reply: {retired, watermark}.
RETIRE = Script(
    """
-- KEYS[1] positions, KEYS[2] watermark, then the ops' keys in order; ARGV: for each
-- stream its id, close number, seal seq and its ops' count, then those ops (as APPLY's)
local mark = tonumber(redis.call('GET', KEYS[2]) or '0')
local retired, i, k = 0, 1, 2
while i <= #ARGV do
  local stream, number = ARGV[i], tonumber(ARGV[i + 1])
  local seal, ops = tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])
  i = i + 4
  local cur = tonumber(redis.call('HGET', KEYS[1], stream) or '-1')
  local due = number > mark
  if due and cur < seal then break end
  for _ = 1, ops do
    local nargs = tonumber(ARGV[i])
    k = k + 1
    if due then
      local cmd = {ARGV[i + 1], KEYS[k]}
      for j = 1, nargs do cmd[j + 2] = ARGV[i + 1 + j] end
      redis.call(unpack(cmd))
    end
    i = i + 2 + nargs
  end
  if due then
    redis.call('HDEL', KEYS[1], stream)
    mark = number
    retired = retired + 1
  end
end
if retired > 0 then redis.call('SET', KEYS[2], mark) end
return {retired, mark}
"""
)
