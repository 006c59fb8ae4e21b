"""The ``http`` and ``transport`` steps of a URL, read from the exchanges of one real session.

``http``: what the server's HTTP layer answered: the status of each exchange, its content type, a redirect, a
path with nothing behind it (404 to both the POST and the GET), a page that is not an MCP endpoint (a 405 or 501
to POST and an HTML page to GET), an Accept header refused (406), a server error (5xx), or no HTTP answer at
all (an http:// URL to a port that speaks https is recognised by a TLS hello). For a wrong path, the common MCP
paths of the same server (``/mcp``, ``/sse``) are tried with a real session each, and the one that answers is
named in the fix. ``transport``: which MCP transport the session settled on: Streamable HTTP, or HTTP+SSE after
the ``auto`` fallback (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-
compatibility), which works here but is a warning, since clients are dropping it.
"""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import replace
from urllib.parse import urljoin, urlsplit, urlunsplit

from inspector.core.connect.target import Target
from inspector.core.doctor.model import Step, failed, passed, skipped, warning
from inspector.core.doctor.network import Where
from inspector.core.doctor.session_run import SessionRun, run_session
from inspector.core.transports.http_common import ACCEPT_BOTH
from inspector.core.transports.redirects import redirect_refusal, same_origin
from inspector.core.transports.tls import tls_context
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event, Finding

#: The endpoints MCP servers commonly serve, tried when the URL's path has nothing MCP behind it.
COMMON_PATHS = ("/mcp", "/sse")
#: How long a session on a guessed path gets for its handshake (a server that answers at all does so at once).
GUESS_TIMEOUT = 5.0
#: Bound on the TLS hello that tells whether a port speaks https (a TLS server answers it at once).
TLS_SNIFF_TIMEOUT = 3.0
#: How many exchanges a detail names at most.
MAX_LINES = 4
#: Statuses that say "no MCP endpoint here" (what --transport auto falls back on, and what a static site says).
NOT_HERE = frozenset({400, 404, 405, 501})

FIX_ACCEPT = (f"The server refuses the Accept header the spec has clients send ({ACCEPT_BOTH}): fix the server, or "
              "the proxy in front of it.")
FIX_SERVER_ERROR = "The server failed on the request: its own log says why."
FIX_REFUSED_REDIRECT = ("Ask the server's operator for its MCP URL: the server redirects to something that is no "
                        "http:// or https:// URL, which no MCP client should follow.")
#: The findings a Streamable HTTP session leaves on a redirect (inspector.core.transports.redirects).
REDIRECT_CODES = ("redirect", "redirect-other-origin", "redirect-refused")

Guess = Callable[[], Awaitable[str | None]]


def exchange_line(event: Event) -> str:
    """``POST /mcp -> 404 Not Found (text/html)``: one exchange as a clause."""
    data = event.data
    path = urlsplit(str(data.get("url", ""))).path or "/"
    if "status" not in data:
        return f"{data.get('method')} {path}: {data.get('error') or 'no answer'}"
    content_type = _content_type(event)
    kind = f" ({content_type})" if content_type else ""
    return f"{data.get('method')} {path} -> {data['status']} {data.get('reason', '')}".rstrip() + kind


def _lines(exchanges: list[Event]) -> str:
    """The exchanges as clauses, each said once, in order (a refused discovery probe and the initialize after it
    often meet the same answer), the GET stream a session leaves open at its end left out."""
    said: list[str] = []
    for event in exchanges:
        line = exchange_line(event)
        if line not in said and not str(event.data.get("error", "")).startswith("abandoned"):
            said.append(line)
    return "; ".join(said[:MAX_LINES])


def _content_type(event: Event) -> str:
    headers = event.data.get("response_headers") or {}
    value = next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    return value.split(";")[0].strip().lower()


def _header(event: Event, name: str) -> str | None:
    headers = event.data.get("response_headers") or {}
    return next((str(v) for k, v in headers.items() if k.lower() == name), None)


def _finding(event: Event, *codes: str) -> Finding | None:
    return next((f for f in event.findings if f.code in codes), None)


def _redirect(event: Event) -> str | None:
    """The sentence of a redirect the session followed, or refused."""
    found = _finding(event, *REDIRECT_CODES)
    return found.text if found is not None else None


def _redirect_fix(event: Event) -> str:
    """What to do about a redirect the session followed or refused."""
    found = _finding(event, *REDIRECT_CODES)
    if found is not None and found.code == "redirect-refused":
        return FIX_REFUSED_REDIRECT
    if found is not None and found.code == "redirect-other-origin":
        return _fix_other_origin(_header(event, "location") or "")
    return "Use the URL the server redirects to as the server's URL."


def _fix_other_origin(location: str) -> str:
    """A redirect's target is the URL to use only if the person trusts its origin: it would get their headers and
    credentials."""
    return (f"Name the URL the server redirects to ({location}) as the server's URL only if you trust its origin: "
            "mcp-inspector sends your headers and credentials only to the origin you name.")


def asks_authorization(run: SessionRun) -> list[Event]:
    """The exchanges the server answered 401, or 403 with a challenge (the OAuth flow's own are not counted)."""
    return [e for e in run.http() if e.data.get("status") == 401
            or (e.data.get("status") == 403 and _header(e, "www-authenticate"))]


async def http_step(run: SessionRun, place: Where, guess: Guess) -> Step:
    """``http``: the server's HTTP answers make sense for an MCP endpoint."""
    exchanges = run.http()
    answered = [e for e in exchanges if "status" in e.data]
    lines = _lines(exchanges)
    if not exchanges:
        return failed("http", str(run.error or "no HTTP request was made"), "Check the URL and the options given.")
    if not answered:
        detail = f"no HTTP answer: {lines or run.error or 'the exchange was abandoned'}"
        # a TLS port answers plain HTTP by hanging up or with an alert, at once; one that says nothing is not asked
        reacted = any(not str(e.data.get("error", "")).startswith("abandoned") for e in exchanges)
        if not place.secure and reacted and await speaks_tls(place):
            return failed("http", detail + "; the port speaks TLS", f"Use https:// for {place.hostport}.")
        return failed("http", detail, "Check that the URL's port is the server's HTTP port, and read the server's "
                                      "log.")
    if asks_authorization(run):
        return passed("http", f"the server answered: {_lines(answered[:1])} (authorization: see the auth step)")
    statuses = [int(e.data["status"]) for e in answered]
    redirect = next((e for e in answered if _redirect(e)), None)
    if redirect is not None and _redirect_fix(redirect) == FIX_REFUSED_REDIRECT:
        return failed("http", _redirect(redirect) or "", FIX_REFUSED_REDIRECT)
    moved = next((e for e in answered if 300 <= int(e.data["status"]) < 400 and not _redirect(e)), None)
    if run.server is None and moved is not None:
        location = _header(moved, "location") or "(no Location header)"
        refusal = redirect_refusal(int(moved.data["status"]), location)
        if refusal is not None:
            return failed("http", f"{exchange_line(moved)}: {refusal}", FIX_REFUSED_REDIRECT)
        named = str(moved.data.get("url", ""))
        if location.startswith("(") or same_origin(urljoin(named, location), named):
            return failed("http", f"{exchange_line(moved)} to {location}",
                          f"Use {location} as the server's URL: a client does not follow a redirect of its POST.")
        return failed("http", f"{exchange_line(moved)} to {location}, another origin", _fix_other_origin(location))
    if run.server is None and 406 in statuses:
        return failed("http", lines, FIX_ACCEPT)
    if run.server is None and any(s >= 500 and s not in NOT_HERE for s in statuses):
        return failed("http", f"{lines}: {run.error}" if run.error else lines, FIX_SERVER_ERROR)
    pages = [e for e in answered if 200 <= int(e.data["status"]) < 300 and "html" in _content_type(e)]
    if run.server is None and (all(s in NOT_HERE for s in statuses) or pages):
        found = await guess()
        what = "nothing at" if all(s == 404 for s in statuses) else "no MCP endpoint at"
        path = urlsplit(str(answered[0].data.get("url", ""))).path or "/"
        fix = f"Use {found}: an MCP server answers there." if found else \
            ("Check the URL's path: MCP servers usually serve /mcp (Streamable HTTP) or /sse (HTTP+SSE); the "
             "server's documentation or log says which.")
        return failed("http", f"{what} {path}: {lines}", fix)
    if redirect is not None:
        return warning("http", _redirect(redirect) or "", _redirect_fix(redirect))
    good = [e for e in answered if 200 <= int(e.data["status"]) < 300] or answered
    opening = [e for e in good if e.data.get("purpose") in ("initialize", "event stream")] or good
    return passed("http", f"the server answered: {_lines(opening[:1])}")


async def speaks_tls(place: Where) -> bool:
    """Whether the port completes a TLS handshake (its certificate not judged: only whether it speaks TLS)."""
    address = (place.reachable or place.addresses or [place.host])[0]
    try:
        _, writer = await wait_for(
            asyncio.open_connection(address, place.port, ssl=tls_context(insecure=True), server_hostname=place.host),
            TLS_SNIFF_TIMEOUT)
    except (OSError, ssl.SSLError, TimeoutError):
        return False
    writer.close()
    try:
        await writer.wait_closed()
    except (OSError, ssl.SSLError):
        pass
    return True


def path_guesser(target: Target, timeout: float) -> Guess:
    """What ``http_step`` calls for a path with no MCP endpoint: the first common path of the same server where
    a real session completes its handshake, as a URL, or None."""
    async def guess() -> str | None:
        parts = urlsplit(target.url)
        for path in COMMON_PATHS:
            if parts.path.rstrip("/") == path:
                continue
            url = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
            run = await run_session(replace(target, url=url, name=url, transport="auto", oauth=None),
                                    min(timeout, GUESS_TIMEOUT))
            if run.server is not None:
                return url
        return None

    return guess


def transport_step(run: SessionRun, target: Target) -> Step:
    """``transport``: the MCP transport the session settled on."""
    transport = run.transport
    if transport is None:
        return skipped("transport", "no transport was made")
    if asks_authorization(run) and run.server is None:
        return skipped("transport", "not known yet: the server asks for authorization first (the auth step)")
    chosen = str(getattr(transport, "chosen", transport.name))
    if chosen == "streamable-http":
        posts = [e for e in run.http() if e.data.get("method") == "POST" and 200 <= int(e.data.get("status", 0)) < 300]
        how = ""
        if posts:
            kind = _content_type(posts[0])
            how = ": the server answered with an event stream" if kind == "text/event-stream" else \
                ": the server answered with JSON" if kind == "application/json" else ""
        session = next((e for e in posts if _header(e, "mcp-session-id")), None)
        kept = "; it keeps a session (Mcp-Session-Id)" if session is not None else \
            "; stateless (no Mcp-Session-Id)" if posts else ""
        return passed("transport", f"Streamable HTTP{how}{kept}")
    if chosen == "sse":
        if getattr(transport, "fell_back", False):
            refused = next((n for n in run.notes() if n.startswith("Streamable HTTP refused")), "")
            why = f" ({refused.split(':')[0]})" if refused else ""
            return warning("transport", f"HTTP+SSE, the 2024-11-05 transport: mcp-inspector fell back to it{why}",
                           "Nothing to do for mcp-inspector; clients that dropped HTTP+SSE (deprecated since "
                           "2025-03-26) will not connect: serve Streamable HTTP too.")
        return passed("transport", "HTTP+SSE (2024-11-05), as --transport sse asked")
    if chosen == "websocket":
        return passed("transport", "WebSocket with the mcp subprotocol (a custom transport)")
    return passed("transport", f"{chosen} (as --transport {target.transport} asked)")
