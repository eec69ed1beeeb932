"""The ``daifugo`` command."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from .match.events import BotKind
from .rules import PRESETS

if TYPE_CHECKING:
    from eventstore import Archive

    from .app.quotas import Limits
    from .rest.app import RestSettings

BENCHMARKS = ("attacks", "load", "spectators")  # modules of bench/
KEY_FILE_ENV = "DAIFUGO_SIGNING_KEY_FILE"  # as service.app.signing (not imported: it is slow)
PROXIES_ENV = "DAIFUGO_TRUSTED_PROXIES"  # comma-separated, as --trusted-proxy


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="daifugo", description="Daifugō game service")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the game service")
    serve.add_argument("--grpc-port", type=int, default=50051)
    serve.add_argument("--http-port", type=int, default=8080, help="REST and the web page")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL"),
        help="default: REDIS_URL, else an embedded redis-server",
    )
    serve.add_argument(
        "--store",
        choices=("redis", "memory"),
        default="redis",
        help="where matches are kept; memory: no Redis, and nothing kept once it stops",
    )
    serve.add_argument(
        "--archive",
        metavar="FOLDER|s3://BUCKET/PREFIX|none",
        default=os.environ.get("DAIFUGO_ARCHIVE"),
        help="where sealed matches go once --keep-live has passed (default: DAIFUGO_ARCHIVE, "
        "else archive/ in the data folder beside an embedded Redis, memory with --store "
        "memory, none with a Redis of yours); none: they stay in Redis",
    )
    serve.add_argument(
        "--keep-live",
        type=float,
        default=86400.0,
        metavar="SECONDS",
        help="how long a sealed match stays in Redis before it is archived (default a day)",
    )
    serve.add_argument("--uecda-port", type=int, help="also serve UECda clients (protocol 20070)")
    serve.add_argument("--uecda-games", type=int, default=1000, help="games per UECda table")
    serve.add_argument("--uecda-bots", type=int, default=0, help="seats of a table our bot plays")
    serve.add_argument(
        "--uecda-bot-kind",
        choices=[kind.value for kind in BotKind],
        default=BotKind.STRONGER.value,
        help="the bot those seats get",
    )
    serve.add_argument(
        "--uecda-turn-seconds", type=float, default=10.0, help="a UECda seat's time per turn"
    )
    serve.add_argument("--uecda-host", help="the UECda listener's address (default: --host)")
    serve.add_argument(
        "--uecda-arena",
        action="store_true",
        help="rated UECda tables: each client is the unverified player uecda:<name>, our bots "
        "fill the seats no client took within --arena-bots-after",
    )
    serve.add_argument(
        "--uecda-max-clients", type=int, default=256, help="UECda connections open at once"
    )
    serve.add_argument(
        "--uecda-durability",
        choices=("step", "game"),
        default="game",
        help="a UECda table's steps stored each before its clients hear of it (step), or"
        " sent at once and a game's all stored before its result and the next deal (game)",
    )
    serve.add_argument(
        "--loop",
        choices=("asyncio", "uvloop"),
        default="asyncio",
        help="the event loop (uvloop: pip install uvloop)",
    )
    serve.add_argument(
        "--signing-key-file",
        default=os.environ.get(KEY_FILE_ENV),
        help=f"the signing keys (a Secret's file); default: {KEY_FILE_ENV}, "
        "else the data folder's (made on first start)",
    )
    serve.add_argument(
        "--audit-workers", type=int, default=1, help="processes that run audits (default 1)"
    )
    serve.add_argument(
        "--audit-queue", type=int, default=4, help="audits that may wait; more: 503 (default 4)"
    )
    serve.add_argument(
        "--sse-keepalive", type=float, default=15.0, help="seconds between SSE keep-alives"
    )
    quotas = serve.add_argument_group("quotas (per caller: its address, an IPv6 one by its /64)")
    quotas.add_argument(
        "--quota-creates", type=int, default=10, help="matches one caller may create (default 10)"
    )
    quotas.add_argument(
        "--quota-create-window",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="... in any this many seconds (default 60)",
    )
    quotas.add_argument(
        "--quota-bots-per-caller",
        type=int,
        default=10,
        help="one caller's service bots playing at once (default 10)",
    )
    quotas.add_argument(
        "--quota-bots", type=int, default=40, help="service bots playing at once, all callers' (40)"
    )
    quotas.add_argument(
        "--max-games-per-set",
        type=int,
        default=100,
        help="games per set a caller may ask for, in any field (default 100)",
    )
    quotas.add_argument(
        "--quota-audits-per-caller",
        type=int,
        default=2,
        help="one caller's audits running at once (default 2)",
    )
    quotas.add_argument(
        "--quota-analyses-per-caller",
        type=int,
        default=2,
        help="one caller's match analyses queued or running at once (default 2)",
    )
    quotas.add_argument(
        "--quota-analyses",
        type=int,
        default=4,
        help="match analyses queued or running at once, all callers' (default 4)",
    )
    quotas.add_argument(
        "--quota-seats-per-caller",
        type=int,
        default=4,
        help="seats one caller takes from the lobby in matches not over (default 4)",
    )
    quotas.add_argument(
        "--idle-abandon",
        type=float,
        default=1800.0,
        metavar="SECONDS",
        help="abandon a match nobody acted in for this long (default 1800; 0: never)",
    )
    quotas.add_argument(
        "--bot-min-pause",
        type=float,
        default=0.02,
        metavar="SECONDS",
        help="the least a service bot waits before each action, whatever its match asks "
        "(default 0.02; 0: as the match asks)",
    )
    quotas.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS|NETWORK",
        help="a proxy whose X-Forwarded-For names the caller (repeatable; default: "
        f"{PROXIES_ENV}, comma-separated, else none)",
    )
    serve.add_argument(
        "--registrations-per-address",
        type=int,
        default=5,
        help="player sign-ups one address may make per --registration-window (default 5)",
    )
    serve.add_argument(
        "--registrations",
        type=int,
        default=200,
        help="player sign-ups from all addresses per --registration-window (default 200)",
    )
    serve.add_argument(
        "--registration-window", type=float, default=3600.0, help="seconds (default 3600)"
    )
    serve.add_argument(
        "--arena-bots-after",
        type=float,
        default=10.0,
        help="seconds a queued player waits before our bots fill its table (default 10)",
    )
    serve.add_argument(
        "--arena-games",
        type=int,
        default=0,
        help="games per arena match (default: the preset's)",
    )

    players = commands.add_parser("players", help="registered players: add one")
    players_actions = players.add_subparsers(dest="action", required=True)
    adding = players_actions.add_parser("add", help="register NAME; print its key once")
    adding.add_argument("name")
    serve.add_argument(
        "--audit-max-bytes",
        type=int,
        default=10_000_000,
        help="the largest POST /audit body; larger: 413 too_large (default 10,000,000)",
    )
    serve.add_argument(
        "--http-max-connections",
        type=int,
        default=1024,
        help="REST connections open at once; past it a new one takes the place of the oldest "
        "waiting for a request, else is closed (default 1024, lowered to fit the open-files "
        "limit)",
    )
    serve.add_argument(
        "--http-max-per-address",
        type=int,
        default=256,
        help="REST connections open at once from one client address (default 256)",
    )
    serve.add_argument(
        "--http-header-seconds",
        type=float,
        default=10.0,
        help="a request's head must arrive within this of the connection or the last answer",
    )
    serve.add_argument(
        "--http-idle-seconds",
        type=float,
        default=5.0,
        help="an idle keep-alive REST connection is closed after this (default 5)",
    )
    serve.add_argument(
        "--http-body-seconds",
        type=float,
        default=10.0,
        help="a request's body must arrive within this of its head, plus a second for every "
        "--http-body-rate bytes received; else the connection is closed (default 10)",
    )
    serve.add_argument(
        "--http-body-rate",
        type=int,
        default=1024,
        help="bytes a second a request body must average past --http-body-seconds (default 1024)",
    )
    serve.add_argument(
        "--http-max-streams",
        type=int,
        default=512,
        help="event streams (SSE) open at once; past it a new one is refused (429 "
        "streams_full) (default 512, at most half of --http-max-connections)",
    )
    serve.add_argument(
        "--http-streams-per-address",
        type=int,
        default=32,
        help="event streams open at once from one address; past it a new one is refused "
        "(429 too_many_streams) (default 32, at most half of --http-max-per-address)",
    )
    serve.add_argument(
        "--http-reads-per-second",
        type=float,
        default=50.0,
        help="reads of matches (a match, its events, state, record, audit, analysis) one "
        "caller's network may make a second, sustained; past it 429 rate_limited (default "
        "50; 0: no bound)",
    )
    serve.add_argument(
        "--http-read-burst",
        type=int,
        default=100,
        help="reads of matches one caller's network may make at once (default 100)",
    )
    serve.add_argument(
        "--grpc-max-connections",
        type=int,
        default=1024,
        help="gRPC connections open at once; past it a new one is closed (default 1024, "
        "lowered to fit the open-files limit)",
    )
    serve.add_argument(
        "--grpc-idle-seconds",
        type=float,
        default=60.0,
        help="a gRPC connection with no call under way is let go after this (GOAWAY: a "
        "client reconnects for its next call) (default 60)",
    )
    serve.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME[:PORT]",
        help="a Host the REST API is served as, besides the address bound and localhost "
        "(repeatable; a name without a port takes any port, as behind a proxy)",
    )

    demo = commands.add_parser("demo", help="bots play whole matches through the gRPC API")
    demo.add_argument("--grpc", metavar="HOST:PORT", help="a running service (default: start one)")
    demo.add_argument("--matches", type=int, default=1)
    demo.add_argument("--preset", choices=sorted(PRESETS), default="federation")
    demo.add_argument("--players", type=int, default=4, choices=range(2, 6))
    demo.add_argument("--games", type=int, default=0, help="games per match (default: preset's)")
    demo.add_argument(
        "--web", default="http://127.0.0.1:8080", help="the page's address, for the links it prints"
    )

    play = commands.add_parser("play", help="play a seat from the terminal against bots")
    play.add_argument("--grpc", metavar="HOST:PORT", help="a running service (default: start one)")
    # the page's default preset too
    play.add_argument("--preset", choices=sorted(PRESETS), default="torasobi")
    play.add_argument("--players", type=int, default=4, choices=range(2, 6))
    play.add_argument("--games", type=int, default=0)
    play.add_argument("--name", default="", help="your name at the table (default: you)")

    scenario = commands.add_parser("scenario", help="run conformance scenario files")
    scenario.add_argument("paths", nargs="+", help="scenario files or folders")

    audit = commands.add_parser(
        "audit", help="check a match: hash chain, seal, dealing, blinding, legality, receipts"
    )
    audit.add_argument("target", metavar="MATCH_ID|FILE", help="a match id, or an exported log")
    audit.add_argument(
        "--key",
        metavar="KEY",
        help="the public key that checks signatures: base64, or a file of GET /keys JSON",
    )
    audit.add_argument(
        "--receipts", metavar="FILE", help="receipts to check against the log (JSON Lines)"
    )

    analyse = commands.add_parser(
        "analyse", help="the expert's judgement of every move of a finished match"
    )
    analyse.add_argument("match_id", metavar="MATCH_ID")
    analyse.add_argument("--game", type=int, default=None, help="one game (default: every game)")
    analyse.add_argument(
        "--playouts",
        type=int,
        default=None,
        help="playouts per judged move, the budget (default: the service's, 600)",
    )
    analyse.add_argument("--json", action="store_true", help="print the analysis as JSON")

    archive = commands.add_parser(
        "archive", help="the archive of sealed matches: status, run, get MATCH_ID"
    )
    archive_actions = archive.add_subparsers(dest="action", required=True)
    archive_actions.add_parser("status", help="what is live, sealed and archived, and its size")
    running = archive_actions.add_parser("run", help="archive the matches due now, at once")
    running.add_argument(
        "--keep-live", type=float, default=86400.0, metavar="SECONDS", help="default a day"
    )
    getting = archive_actions.add_parser("get", help="print a match's JSONL export")
    getting.add_argument("match_id")
    keys = commands.add_parser("keys", help="the signing keys: new, rotate, show")
    keys.add_argument("action", choices=("new", "rotate", "show"))
    keys.add_argument(
        "--file",
        default=os.environ.get(KEY_FILE_ENV),
        help=f"the key file (default: {KEY_FILE_ENV}, else the data folder's)",
    )
    keys.add_argument(
        "--delay",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="rotate: the new key signs from this long from now (time to roll it out)",
    )

    health = commands.add_parser("health", help="exit 0 when a service answers SERVING")
    health.add_argument("--grpc", metavar="HOST:PORT", default="127.0.0.1:50051")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds")

    bench = commands.add_parser(
        "bench", help="benchmarks (from a source checkout): load, spectators", add_help=False
    )
    bench.add_argument("benchmark", choices=BENCHMARKS)
    bench.add_argument("options", nargs=argparse.REMAINDER, help="the benchmark's own options")

    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    if args.command == "scenario":
        from .scenarios import run_paths

        return 0 if run_paths(args.paths) else 1
    if args.command == "audit":
        from .audit_command import run_audit

        return run_audit(args.target, key=args.key, receipts=args.receipts)
    if args.command == "analyse":
        from .analyse_command import run_analyse

        return run_analyse(args.match_id, args.game, args.playouts, as_json=args.json)
    if args.command == "archive":
        from .archive_command import run_archive

        return run_archive(
            args.action, getattr(args, "keep_live", 0.0), getattr(args, "match_id", "")
        )
    if args.command == "keys":
        from pathlib import Path

        from .app.signing import default_key_file
        from .keys_command import run_keys

        path = Path(args.file) if args.file else default_key_file()
        return run_keys(args.action, path, args.delay)
    if args.command == "health":
        from .healthcheck import check_health

        return check_health(args.grpc, timeout=args.timeout)
    if args.command == "bench":
        # bench/ lives beside the packages in a source checkout, not in the wheel
        benchmark = importlib.import_module(f"bench.{args.benchmark}")
        return int(benchmark.main(args.options) or 0)
    if args.command == "players":
        from .players_command import add_player

        return add_player(args.name)
    if args.command == "serve":
        from .app.players import RegistrationLimits
        from .rest.app import RestSettings
        from .rest.connections import ConnectionLimits
        from .rest.read_rate import ReadRate

        if args.audit_workers < 1 or args.audit_queue < 0 or not args.sse_keepalive > 0:
            parser.error("--audit-workers ≥ 1, --audit-queue ≥ 0, --sse-keepalive > 0")
        from .app.quotas import Limits, parse_networks

        try:
            limits = Limits(
                creates=args.quota_creates,
                create_window=args.quota_create_window,
                bots_per_caller=args.quota_bots_per_caller,
                bots=args.quota_bots,
                games_per_set=args.max_games_per_set,
                audits_per_caller=args.quota_audits_per_caller,
                analyses_per_caller=args.quota_analyses_per_caller,
                analyses=args.quota_analyses,
                seats_per_caller=args.quota_seats_per_caller,
                idle_abandon=args.idle_abandon,
                bot_min_pause=args.bot_min_pause,
                trusted_proxies=parse_networks(
                    args.trusted_proxy
                    or [item for item in os.environ.get(PROXIES_ENV, "").split(",") if item]
                ),
            )
        except ValueError as error:
            parser.error(str(error))
        if min(args.registrations_per_address, args.registrations) < 0:
            parser.error("--registrations-per-address and --registrations are ≥ 0")
        if not args.registration_window > 0:
            parser.error("--registration-window > 0")
        registrations = RegistrationLimits(
            args.registrations_per_address, args.registrations, args.registration_window
        )
        if args.audit_max_bytes < 1:
            parser.error("--audit-max-bytes ≥ 1")
        if not args.grpc_idle_seconds > 0:
            parser.error("--grpc-idle-seconds > 0")
        try:
            connections = ConnectionLimits(
                args.http_max_connections,
                args.http_max_per_address,
                args.http_header_seconds,
                args.http_idle_seconds,
                args.http_body_seconds,
                args.http_body_rate,
                args.http_streams_per_address,
                args.http_max_streams,
            )
            reads = ReadRate(args.http_reads_per_second, args.http_read_burst)
        except ValueError as error:
            parser.error(f"--http-*: {error}")
        rest = RestSettings(
            args.audit_workers,
            args.audit_queue,
            args.sse_keepalive,
            registrations=registrations,
            audit_max_bytes=args.audit_max_bytes,
            connections=connections,
            allowed_hosts=tuple(args.allowed_host),
            reads=reads,
        )
        from .event_loop import loop_factory, run

        try:
            loop_factory(args.loop)
        except ValueError as error:  # no uvloop installed
            parser.error(str(error))
        return run(_serve(args, rest, limits), args.loop)
    if args.command == "demo":
        from clients.demo import demo_matches

        return asyncio.run(
            demo_matches(args.grpc, args.matches, args.preset, args.players, args.games, args.web)
        )
    from clients.terminal import play_in_terminal

    return asyncio.run(
        play_in_terminal(args.grpc, args.preset, args.players, args.games, args.name)
    )


def _archive_of(given: str | None) -> Archive | Literal["default"] | None:
    from eventstore.archive import archive_at

    if given is None:
        return "default"
    return None if given == "none" else archive_at(given)


async def _serve(args: argparse.Namespace, rest: RestSettings, limits: Limits) -> int:
    from eventstore import InMemoryStorage
    from eventstore.embedded import URL_FILE

    from .app.arena import ArenaSettings
    from .app.signing import SigningKeyProblem, serving_signer
    from .runtime import running_service, tune_gc_for_serving
    from .uecda.server import UecdaSettings
    from .uecda.table import Durability

    redis_url, grpc_port, http_port, host = (
        args.redis_url,
        args.grpc_port,
        args.http_port,
        args.host,
    )
    uecda = UecdaSettings(
        args.uecda_games,
        args.uecda_bots,
        args.uecda_turn_seconds,
        max_clients=args.uecda_max_clients,
        durability=Durability(args.uecda_durability),
        arena=args.uecda_arena,
        arena_bots_after=args.arena_bots_after,
        bot_kind=BotKind(args.uecda_bot_kind),
    )
    try:
        signer = serving_signer(args.signing_key_file)  # before anything starts
    except SigningKeyProblem as error:
        print(f"daifugo: {error}", file=sys.stderr)
        return 2
    if args.store == "memory":
        print(
            "daifugo: storage in memory: every feature works but durability; "
            "every match, ranking and key is lost when the service stops",
            file=sys.stderr,
            flush=True,
        )
    tune_gc_for_serving()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signal_number, stop.set)  # stop cleanly: Redis flushes its AOF
    async with running_service(
        redis_url,
        grpc_port,
        host,
        http_port=http_port,
        signer=signer,
        rest=rest,
        grpc_max_connections=args.grpc_max_connections,
        grpc_idle_seconds=args.grpc_idle_seconds,
        uecda_port=args.uecda_port,
        uecda=uecda,
        uecda_host=args.uecda_host,
        limits=limits,
        arena_settings=ArenaSettings(
            bots_after=args.arena_bots_after, games_per_set=args.arena_games
        ),
        storage=InMemoryStorage() if args.store == "memory" else None,
        archive=_archive_of(args.archive),
        keep_live=args.keep_live,
    ) as running:
        tables = f", UECda on {running.uecda_port}" if running.uecda_port is not None else ""
        print(
            f"daifugo: gRPC on {host}:{running.grpc_port}, "
            f"REST on http://{host}:{running.http_port}{tables}, "
            f"storage: {running.storage.where}",
            flush=True,
        )
        if running.embedded is not None:
            # the password stays out of the terminal's scrollback and logs: the file has it
            url_file = running.embedded.data_dir / URL_FILE
            print(f"daifugo: the Redis URL (with its password) is in {url_file}", file=sys.stderr)
        await stop.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
