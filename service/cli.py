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
from typing import TYPE_CHECKING

from .rules import PRESETS

if TYPE_CHECKING:
    from .rest.app import RestSettings

BENCHMARKS = ("load", "spectators")  # modules of bench/
KEY_FILE_ENV = "DAIFUGO_SIGNING_KEY_FILE"  # as service.app.signing (not imported: it is slow)


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
    serve.add_argument("--uecda-port", type=int, help="also serve UECda clients (protocol 20070)")
    serve.add_argument("--uecda-games", type=int, default=1000, help="games per UECda table")
    serve.add_argument("--uecda-bots", type=int, default=0, help="seats of a table our bot plays")
    serve.add_argument(
        "--uecda-turn-seconds", type=float, default=10.0, help="a UECda seat's time per turn"
    )
    serve.add_argument("--uecda-host", help="the UECda listener's address (default: --host)")
    serve.add_argument(
        "--uecda-max-clients", type=int, default=256, help="UECda connections open at once"
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
    if args.command == "serve":
        from .rest.app import RestSettings

        if args.audit_workers < 1 or args.audit_queue < 0 or not args.sse_keepalive > 0:
            parser.error("--audit-workers ≥ 1, --audit-queue ≥ 0, --sse-keepalive > 0")
        rest = RestSettings(args.audit_workers, args.audit_queue, args.sse_keepalive)
        from .event_loop import loop_factory, run

        try:
            loop_factory(args.loop)
        except ValueError as error:  # no uvloop installed
            parser.error(str(error))
        return run(_serve(args, rest), args.loop)
    if args.command == "demo":
        from clients.demo import demo_matches

        return asyncio.run(
            demo_matches(args.grpc, args.matches, args.preset, args.players, args.games, args.web)
        )
    from clients.terminal import play_in_terminal

    return asyncio.run(play_in_terminal(args.grpc, args.preset, args.players, args.games))


async def _serve(args: argparse.Namespace, rest: RestSettings) -> int:
    from eventstore import redacted_url
    from eventstore.embedded import URL_FILE

    from .app.signing import SigningKeyProblem, serving_signer
    from .runtime import running_service, tune_gc_for_serving
    from .uecda.server import UecdaSettings

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
    )
    try:
        signer = serving_signer(args.signing_key_file)  # before anything starts
    except SigningKeyProblem as error:
        print(f"daifugo: {error}", file=sys.stderr)
        return 2
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
        uecda_port=args.uecda_port,
        uecda=uecda,
        uecda_host=args.uecda_host,
    ) as running:
        tables = f", UECda on {running.uecda_port}" if running.uecda_port is not None else ""
        print(
            f"daifugo: gRPC on {host}:{running.grpc_port}, "
            f"REST on http://{host}:{running.http_port}{tables}, "
            f"Redis at {redacted_url(running.redis_url)}",
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
