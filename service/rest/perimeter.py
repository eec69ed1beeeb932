"""What every HTTP request meets before the app, and every answer carries.

- **Host**: only the names the service is served as (``host_not_allowed``, 421), so a
  page on another site cannot reach a local ``daifugo serve`` by rebinding its own name
  to 127.0.0.1.
- **Origin**: a request that changes state and comes from a browser page names that
  page's origin; it must be the served host (``origin_not_allowed``, 403). A caller
  that is not a browser sends none, and is not a cross-site forgery.
- **Content type**: a body that changes state is ``application/json``
  (``unsupported_media_type``, 415): a cross-site form can send only ``text/plain``,
  ``multipart/form-data`` or ``application/x-www-form-urlencoded`` without the browser
  asking first. ``POST /audit`` changes nothing and also takes JSON Lines.
- **Headers** on every answer: a Content-Security-Policy with no inline script or style,
  no framing (``frame-ancestors 'none'`` and ``X-Frame-Options: DENY``), ``nosniff`` and
  no Referer.

Litestar has an allowed-hosts middleware and a CSRF one, but the first answers with no
reason code and the second is a cookie token for form posts: this API takes its tokens
in a header and its bodies as JSON, so the checks above are the whole defence."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .codes import RestCode

# raw ASGI: this sits outside Litestar, whose typed scopes it needs none of
Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Any
Send = Any
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# what the page needs and no more: its own scripts, styles, images (the icon is data:)
# and requests; no inline script or style, no plugin, no framing, no <base> to move it
PAGE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
# the OpenAPI viewers (/schema) load their scripts from a CDN, inline: not framed either
SCHEMA_POLICY = "frame-ancestors 'none'"
SCHEMA_PREFIX = "/schema"
COMMON_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
JSON = "application/json"
JSON_LINES = frozenset({JSON, "application/x-ndjson", "application/jsonl", "text/plain", ""})
AUDIT_PATH = "/audit"  # a pure computation over the body: changes nothing
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


@dataclass(frozen=True, slots=True)
class HostRules:
    """Which ``Host`` headers are the service: ``served`` names on the port it is served
    on; ``named`` entries (``--allowed-host``: ``name`` on any port, as behind a proxy,
    or ``name:port``); any at all when bound to every address with nothing named."""

    served: frozenset[str]
    named: frozenset[str]
    any_host: bool

    @classmethod
    def of(cls, bound_host: str, named: Iterable[str] = ()) -> HostRules:
        names = frozenset(name.strip().lower() for name in named if name.strip())
        wildcard = _is_wildcard(bound_host)
        served = {*LOOPBACK_NAMES} if wildcard else {*LOOPBACK_NAMES, _host_name(bound_host)}
        return cls(frozenset(served), names, wildcard and not names)

    def allows(self, host: str, port: int | None) -> bool:
        """Whether ``host`` (a Host header) names the service served on ``port``."""
        host = host.lower()
        if self.any_host or host in self.named:
            return True
        name, given = _split_host(host)
        if name in self.named:
            return True
        return name in self.served and port is not None and (given or "80") == str(port)


def _split_host(host: str) -> tuple[str, str]:
    """``name:port`` as (name, port); IPv6 in brackets keeps them; no port: ''."""
    if host.startswith("["):
        name, _, rest = host.partition("]")
        return f"{name}]", rest.removeprefix(":")
    name, _, port = host.partition(":")
    return name, port


def _is_wildcard(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return host in ("", "*")


def _host_name(host: str) -> str:
    """A bound address as it stands in a Host header (IPv6 in brackets)."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host.lower()
    return f"[{address}]" if address.version == 6 else str(address)


class Perimeter:
    """The ASGI app in front of the REST app: checks, then the app, then headers."""

    def __init__(self, app: Any, hosts: HostRules) -> None:  # the Litestar app
        self.app: ASGIApp = app
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        policy = SCHEMA_POLICY if path.startswith(SCHEMA_PREFIX) else PAGE_POLICY
        headers = _headers(scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, code, message = refusal
            await _refuse(send, policy, status, code, message)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *_answer_headers(policy)]
            await send(message)

        await self.app(scope, receive, with_headers)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, RestCode, str] | None:
        server = scope.get("server")
        port = int(server[1]) if server and server[1] is not None else None
        host = headers.get("host", "")
        if not self.hosts.allows(host, port):
            return 421, RestCode.HOST_NOT_ALLOWED, "this service is not served under that host name"
        if scope["method"] in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and urlsplit(origin).netloc.lower() != host.lower():
            return 403, RestCode.ORIGIN_NOT_ALLOWED, "a page of another site may not act here"
        media = headers.get("content-type", "").partition(";")[0].strip().lower()
        if scope["path"] == AUDIT_PATH:
            accepted = media in JSON_LINES
        else:
            accepted = media == JSON or (not media and not _has_body(headers))
        if not accepted:
            return 415, RestCode.UNSUPPORTED_MEDIA_TYPE, f"send the body as {JSON}"
        return None


def _headers(scope: Scope) -> dict[str, str]:
    """The request's headers by lower-case name (the first of each), as Latin-1."""
    found: dict[str, str] = {}
    for name, value in scope["headers"]:
        found.setdefault(name.decode("latin-1").lower(), value.decode("latin-1"))
    return found


def _has_body(headers: dict[str, str]) -> bool:
    return "transfer-encoding" in headers or headers.get("content-length", "0").strip() != "0"


def _answer_headers(policy: str) -> list[tuple[bytes, bytes]]:
    return [(b"content-security-policy", policy.encode()), *COMMON_HEADERS]


async def _refuse(send: Send, policy: str, status: int, code: RestCode, message: str) -> None:
    body = json.dumps({"code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", JSON.encode()),
                (b"content-length", str(len(body)).encode()),
                *_answer_headers(policy),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
