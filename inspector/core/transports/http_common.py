"""What every HTTP transport shares: options, headers, the HTTP layer as events, and failures as sentences.

Every exchange becomes a ``http`` event (method, URL, request and response headers, status, timing:
connect, first byte, total; a readable snippet of a body that is not MCP), so a user sees the layer below
JSON-RPC: a wrong Accept header, a lost session id, a 200 where 202 was due. Secrets in headers are
redacted in these events unless the user asked to keep them.
"""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx

from inspector.core.redaction import redact_headers, redact_known, redact_text, redact_url, secret_forms
from inspector.core.transports.base import CannotConnect, ConnectionRefused, Transport, TransportError
from inspector.core.transports.credentials import AuthIO, Credentials, CredentialsError, Noted, Reply
from inspector.core.transports.redirects import OWN_HEADERS, home_only_hooks, same_origin
from inspector.core.transports.tls import tls_context
from inspector.core.wire.events import Event, Finding, Kind, Lifecycle
from inspector.core.wire.framing import DEFAULT_MAX_LINE_BYTES
from inspector.core.wire.sse import RawSSE, SSEDecoder

#: Default bound on establishing a TCP (and TLS) connection.
DEFAULT_CONNECT_TIMEOUT = 10.0
#: Default bound on waiting for the status line of a response (an SSE body may then stay open for long).
DEFAULT_RESPONSE_TIMEOUT = 60.0
#: How much of a body that is not MCP (an HTML error page) is kept in the event.
SNIPPET_CHARS = 2000
#: How much of an error body is read at most before giving up on it.
MAX_ERROR_BODY = 256 * 1024
#: The largest answer read during an OAuth login (metadata, registration, token): those are small JSON
#: documents, and a server that sends more is not read further.
MAX_AUTH_BODY = 1 << 20
ACCEPT_BOTH = "application/json, text/event-stream"
USER_AGENT = "mcp-inspector"


@dataclass
class HttpOptions:
    url: str
    headers: dict[str, str] = field(default_factory=dict)  #: extra headers (-H), sent on every request
    bearer: str | None = None  #: sent as ``Authorization: Bearer ...``
    origin: str | None = None  #: an ``Origin`` header, to test a server's DNS-rebinding protection
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    response_timeout: float | None = DEFAULT_RESPONSE_TIMEOUT  #: None: as long as the server takes
    #: the largest message a transport with its own message limit (WebSocket) accepts
    max_message: int = DEFAULT_MAX_LINE_BYTES
    redact: bool = True
    #: the credentials sent (an :class:`inspector.core.auth.flow.OAuthClient`): on 401 (or 403
    #: insufficient_scope) they are renewed (the OAuth flow) and the request is sent again; shared by the
    #: transports ``auto`` tries
    oauth: Credentials | None = None
    #: a PEM file of certificates trusted for https besides the usual ones (``--ca-file``)
    ca_file: str | None = None
    #: https certificates are not verified at all (``--insecure``): a test server's self-signed one
    insecure: bool = False

    def verify(self) -> ssl.SSLContext | bool:
        """What httpx verifies https certificates with: its own default (certifi's CAs) unless ``--ca-file``
        or ``--insecure`` says otherwise (:func:`tls_context`)."""
        if not self.ca_file and not self.insecure:
            return True
        return tls_context(self.ca_file, insecure=self.insecure)

    def base_headers(self) -> dict[str, str]:
        headers = {"User-Agent": USER_AGENT}
        if self.origin:
            headers["Origin"] = self.origin
        if self.bearer:
            headers["Authorization"] = f"Bearer {self.bearer}"
        headers.update(self.headers)
        return headers


class HeaderError(ValueError):
    """A ``Name: value`` text that is not a header that can be sent: ``str(exc)`` names the ``-H`` option,
    ``detail`` says the same without it (for a form's header lines)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"-H {detail}")
        self.detail = detail


class UrlError(TransportError):
    """A server URL that cannot be used: ``str(exc)`` quotes the URL, ``detail`` says why without it
    (``has no host name``)."""

    def __init__(self, url: str, detail: str) -> None:
        super().__init__(f"{url!r} {detail}")
        self.url = url
        self.detail = detail


def tls_described(options: HttpOptions) -> dict[str, Any]:
    """What a capture header's ``target`` says of TLS, when it is not the default: ``"insecure": true`` (the
    certificates were not verified) and ``"ca_file"`` (the extra certificates trusted)."""
    described: dict[str, Any] = {}
    if options.insecure:
        described["insecure"] = True
    if options.ca_file:
        described["ca_file"] = options.ca_file
    return described


def parse_header(text: str) -> tuple[str, str]:
    """``'Name: value'`` from ``-H``; raises HeaderError with a sentence when it is not one."""
    name, sep, value = text.partition(":")
    name = name.strip()
    if not sep or not name:
        raise HeaderError(f"{text!r} must look like 'Name: value'")
    problem = header_problem(name, value)
    if problem is not None:
        raise HeaderError(f"{text!r}: {problem}")
    return name, value.strip()


def header_problem(name: str, value: str) -> str | None:
    """Why a header cannot be sent as it is (a sentence), or None."""
    if not name or any(c in name for c in " \t\r\n()<>@,;:\\\"/[]?={}") or not name.isascii():
        return f"{name!r} is not a valid header name"
    if "\r" in value or "\n" in value:
        return "a header value cannot contain a line break"
    return None


def check_headers(headers: dict[str, str]) -> None:
    """Headers from anywhere (a saved or imported profile, a capture): TransportError with a sentence if one
    cannot be sent, before anything is."""
    for name, value in headers.items():
        problem = header_problem(name, value)
        if problem is not None:
            raise TransportError(f"the header {name!r} cannot be sent: {problem}")


def check_url(url: str) -> str:
    """Validate a server URL; returns it or raises UrlError with a sentence."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise UrlError(url, f"is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https", "ws", "wss"):
        raise UrlError(url, "is not an http://, https:// (or ws://, wss://) URL")
    if not parts.hostname:
        raise UrlError(url, "has no host name")
    try:
        _ = parts.port  # urlsplit checks the port only when it is read
    except ValueError:
        raise UrlError(url, "has an invalid port") from None
    return url


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception, its causes and contexts, and the members of exception groups among them."""
    seen: list[BaseException] = []
    todo = [exc]
    while todo and len(seen) < 20:
        current = todo.pop()
        if current in seen:
            continue
        seen.append(current)
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        todo.extend(getattr(current, "exceptions", ()))
    return seen


def refused(exc: BaseException) -> bool:
    """Whether a failed HTTP exchange found nothing listening at the server's address."""
    if not isinstance(exc, httpx.ConnectError):
        return False
    # httpx does not always keep the OS error: then its own message is all there is to go by
    return any(isinstance(e, ConnectionRefusedError) for e in _causes(exc)) or "refused" in str(exc).lower()


def failure(exc: BaseException, method: str, url: str) -> TransportError:
    """The error to raise for a failed HTTP exchange: :class:`ConnectionRefused` when nothing listens,
    :class:`CannotConnect` when no connection was made otherwise, else a TransportError; either way ``str()``
    is :func:`explain`'s sentence."""
    sentence = explain(exc, method, url)
    if refused(exc):
        return ConnectionRefused(sentence)
    return CannotConnect(sentence) if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)) else \
        TransportError(sentence)


def explain(exc: BaseException, method: str, url: str) -> str:
    """One plain sentence for a failed HTTP exchange: ``METHOD URL: what went wrong``."""
    return f"{method} {url}: {explain_reason(exc, url)}"


def explain_reason(exc: BaseException, url: str) -> str:
    """What went wrong in a failed HTTP exchange, as a clause that does not name the request."""
    host = urlsplit(url).netloc
    text = str(exc)
    if any(isinstance(e, ConnectionRefusedError) for e in _causes(exc)):
        text = "connection refused"
    if isinstance(exc, httpx.ConnectTimeout):
        return f"no connection to {host} within the connect timeout (is a firewall dropping packets?)"
    if isinstance(exc, (httpx.ReadTimeout, httpx.PoolTimeout, httpx.WriteTimeout)):
        return "the server accepted the connection but did not answer in time"
    if isinstance(exc, httpx.ConnectError):
        lowered = text.lower()
        if refused(exc):
            return f"connection refused: nothing is listening on {host} (is the server running?)"
        # the resolver's and the TLS library's own messages are all there is to tell these failures apart
        if "name or service not known" in lowered or "nodename nor servname" in lowered or "getaddrinfo" in lowered \
                or "name resolution" in lowered:
            return f"the host name {urlsplit(url).hostname} cannot be resolved (DNS)"
        tls = [e for e in _causes(exc) if isinstance(e, ssl.SSLError)]
        if tls or "ssl" in lowered or "certificate" in lowered:
            if "wrong version number" in lowered or "record layer failure" in lowered or "packet length" in lowered:
                return f"TLS failed: the server at {host} does not speak https here (try http://)"
            if any(isinstance(e, ssl.SSLEOFError) for e in tls):  # hung up on our hello: a plain-HTTP port, mostly
                return (f"TLS failed: the server at {host} does not speak https here: it hung up on the "
                        "TLS handshake (try http://)")
            untrusted = next((e for e in tls if isinstance(e, ssl.SSLCertVerificationError)), None)
            if untrusted is not None:
                return (f"TLS failed: the server's certificate was refused ({untrusted.verify_message}); trust it with "
                        "--ca-file FILE, or, for a test server only, --insecure (mcp-inspector doctor --url URL says "
                        "why it is refused)")
            return f"TLS failed: {text or tls[0]}"
        return f"cannot connect to {host}: {text or exc.__class__.__name__}"
    if isinstance(exc, httpx.RemoteProtocolError):
        if "without sending" in text or "disconnected" in text.lower():
            return f"the server closed the connection without a complete response ({text})"
        return f"the server broke the HTTP protocol: {text}"
    if isinstance(exc, httpx.ReadError):
        return f"the connection was lost while reading the response ({text or 'reset'})"
    if isinstance(exc, httpx.TooManyRedirects):
        return "too many redirects"
    if isinstance(exc, httpx.UnsupportedProtocol):
        return "unsupported URL scheme"
    if isinstance(exc, httpx.LocalProtocolError):  # h11's message quotes the header value: a token, maybe
        return "the request was not sent: one of its headers holds a line break or another character HTTP does " \
               "not allow in a header"
    return f"{exc.__class__.__name__}: {text}"


def snippet(body: bytes, content_type: str) -> str:
    """A readable piece of a body that is not an MCP message (HTML tags stripped)."""
    text = body[: SNIPPET_CHARS * 4].decode("utf-8", errors="replace")
    if "html" in content_type.lower() or text.lstrip().lower().startswith(("<!doctype", "<html")):
        text = re.sub(r"(?is)<(script|style).*?</\1>", " ", text)
        text = re.sub(r"(?s)<[^>]+>", " ", text)
    text = " ".join(text.split())
    return text[:SNIPPET_CHARS]


def page_text(piece: str, status: int, reason: str) -> str:
    """A snippet of an error page for a sentence that already names the status: without the status line the
    page repeats in its title and heading ("500 Internal Server Error Internal Server Error The database...")."""
    repeated = [noise for noise in (f"{status} {reason}".strip(), reason.strip()) if noise]
    changed = True
    while changed and piece:
        changed = False
        for noise in repeated:
            if piece.lower().startswith(noise.lower()) and not piece[len(noise):len(noise) + 1].isalnum():
                piece = piece[len(noise):].lstrip(" :-|\u2013\u2014")
                changed = True
    return piece


def jsonrpc_error_in(body: bytes) -> dict[str, Any] | None:
    """The JSON-RPC error object carried by an HTTP error body, if it is one."""
    try:
        obj = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(obj, dict) and isinstance(error := obj.get("error"), dict):
        return error
    return None


@dataclass
class SseEnd:
    """How one event stream ended (:meth:`HttpTransportBase.read_sse`)."""

    last_event_id: str = ""  #: the last ``id`` the server gave, to resume from ("" when none)
    retry: float | None = None  #: the last reconnection delay the server asked for, in seconds
    error: str | None = None  #: the sentence for a network failure; None when the stream ended or was left
    left: bool = False  #: the reader stopped reading before the stream ended


class BodyTooLarge(TransportError):
    """A body over the limit, not read further: one sentence, with what was seen of it (``head``: its first
    :data:`~inspector.core.wire.framing.OVERSIZE_KEEP_BYTES`; ``read``: the bytes read before stopping;
    ``declared``: its Content-Length, if it gave one)."""

    def __init__(self, sentence: str, head: bytes, read: int, declared: int | None, limit: int,
                 reason: str) -> None:
        super().__init__(sentence)
        self.reason = reason  #: the sentence without the request it answers
        self.head = head
        self.read = read
        self.declared = declared
        self.limit = limit


class HttpTransportBase(Transport):
    """Shared machinery: one httpx client, exchange numbering, ``http`` events, timing via httpx trace."""

    def __init__(self, options: HttpOptions) -> None:
        super().__init__()
        self.options = options
        check_url(options.url)
        check_headers(options.headers)
        self.url = options.url
        self._client: httpx.AsyncClient | None = None
        self._exchanges = 0
        self._closed_event = asyncio.Event()
        self._gone: str | None = None  # why the connection is gone, once it is
        #: what the OAuth sign-ins under way wait for, and since when (a request waiting on them says so)
        self._auth_waits: dict[object, tuple[str, float]] = {}
        #: the last exchange got no response headers in time (a frozen server): do not wait on it again at close
        self.unresponsive = False

    def describe(self) -> dict[str, Any]:
        headers = self.options.base_headers()
        described = {
            "transport": self.name,
            "url": redact_url(self.url) if self.options.redact else self.url,
            "headers": redact_headers(headers) if self.options.redact else headers,
            "redacted": self.options.redact,
        }
        return {**described, **tls_described(self.options)}

    def shown(self, url: str | httpx.URL) -> str:
        """A URL as it may appear in a sentence, an event or a note: credentials out unless --no-redact."""
        return redact_url(str(url)) if self.options.redact else str(url)

    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            timeout = httpx.Timeout(self.options.response_timeout, connect=self.options.connect_timeout)
            # trust_env=False: no proxy from the environment may carry traffic somewhere the user did not name
            # the hook: a request to another origin than the user named goes without the user's headers
            self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False,
                                             verify=self.options.verify(),
                                             event_hooks=home_only_hooks(self.options.url, self.options.base_headers))
        return self._client

    async def _close_client(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def stream_timeout(self) -> httpx.Timeout:
        """For long-lived GET streams: bounded connect and status line, no bound between events (a quiet
        stream is not a dead one; the server's keep-alives or a closed socket tell)."""
        return httpx.Timeout(None, connect=self.options.connect_timeout)

    def next_exchange(self) -> int:
        self._exchanges += 1
        return self._exchanges

    def _headers_for_event(self, headers: httpx.Headers | dict[str, str]) -> dict[str, str]:
        flat = {k: v for k, v in headers.items()}
        return redact_headers(flat) if self.options.redact else flat

    def _scrub(self, event: Event) -> Event:
        """The OAuth secrets this session knows (tokens, codes, verifiers, state, client secrets) out of an
        ``http`` event's URL, headers and snippet, unless --no-redact: a redirect's page or a server's echo
        can carry them where no header name says so."""
        oauth = self.options.oauth
        if oauth is None or not self.options.redact or not oauth.secrets:
            return event
        secrets = {form for s in oauth.secrets for form in secret_forms(s) if len(form) >= 4}
        event.put(**{key: redact_known(event.data[key], secrets)
                     for key in ("url", "request_headers", "response_headers", "snippet", "error", "text")
                     if key in event.data})
        return event

    def http_event(self, exchange: int, request: httpx.Request, response: httpx.Response | None, started: float,
                   *, first_byte: float | None = None, total: float | None = None, connect: float | None = None,
                   body: bytes | None = None, error: str | None = None, purpose: str = "",
                   auth_step: str = "") -> Event:
        """Build (not emit) the ``http`` event of one exchange (``auth_step``: an exchange of the OAuth flow)."""
        url = str(request.url)
        data: dict[str, Any] = {
            "exchange": exchange,
            "method": request.method,
            "url": redact_url(url) if self.options.redact else url,
            "request_headers": self._headers_for_event(request.headers),
        }
        if purpose:
            data["purpose"] = purpose
        if auth_step:
            data["auth_step"] = auth_step
        if response is not None:
            data["status"] = response.status_code
            data["reason"] = response.reason_phrase
            data["http_version"] = response.http_version
            data["response_headers"] = self._headers_for_event(response.headers)
        timing = {}
        if connect is not None:
            timing["connect"] = round(connect, 6)
        if first_byte is not None:
            timing["first_byte"] = round(first_byte - started, 6)
        if total is not None:
            timing["total"] = round(total - started, 6)
        if timing:
            data["timing"] = timing
        if body is not None and response is not None:
            data["body_bytes"] = len(body)
            content_type = response.headers.get("content-type", "")
            if body and response.status_code >= 300 and jsonrpc_error_in(body) is None and "json" not in content_type \
                    and not (auth_step and 300 <= response.status_code < 400):  # a redirect's page repeats Location
                text = snippet(body, content_type)
                data["snippet"] = redact_text(text) if self.options.redact else text
        if error is not None:
            data["error"] = error
        return self._scrub(Event(Kind.HTTP, data=data))

    async def exchange(self, request: httpx.Request, *, purpose: str = "", read_body: bool = True,
                       number: int | None = None, auth_step: str = "") -> tuple[int, httpx.Response, bytes | None,
                                                                                  Event]:
        """Send ``request``; returns (exchange number, response, body or None if streaming, http event).

        The http event is *not* emitted: the caller adds findings first. On a network failure an http event
        with the sentence is emitted and TransportError raised.

        With OAuth (``options.oauth``), the request carries the current token; a 401 (or 403
        ``insufficient_scope``) is emitted as it came, the flow runs (its exchanges are events marked
        ``auth_step``), and the request is sent again, once, as a new exchange whose number is returned.
        """
        oauth = self.options.oauth
        if oauth is None or auth_step or not same_origin(request.url, self.options.url):  # a token stays home
            return await self._exchange_once(request, purpose=purpose, read_body=read_body, number=number,
                                             auth_step=auth_step)
        io = self._auth_io()
        mark = self._auth_waiting_for("the OAuth sign-in under way")  # a sign-in another request started
        try:
            await oauth.before_request(io)
        except CredentialsError as exc:
            raise TransportError(str(exc)) from None
        finally:
            self._auth_waits.pop(mark, None)

        logged_in = False
        step_ups = 0
        nonce_sent = False  # a DPoP nonce retry (RFC 9449 section 9) is one more try, not a login
        while True:
            sent = oauth.generation
            fresh = oauth.request_headers(request.method, str(request.url))  # a new DPoP proof each time
            if "DPoP" not in fresh:
                request.headers.pop("DPoP", None)
            request.headers.update(fresh)
            number, response, body, event = await self._exchange_once(request, purpose=purpose, read_body=read_body,
                                                                       number=number)
            status = response.status_code
            if oauth.resource_nonce(status, response.headers, str(request.url)) and not nonce_sent:
                nonce_sent = True
                if body is None:
                    await response.aclose()
                event.add_finding("oauth", f"HTTP {status} use_dpop_nonce: sending again with the server's DPoP "
                                  "nonce", "info")
                self.emit(event)
                oauth.note_nonce_retry(self.shown(request.url), io)
                request, number = self._again(request), self.next_exchange()
                continue
            challenge = oauth.challenge_of(response.headers.get("www-authenticate", ""))
            if not oauth.handles(status, challenge) or (status == 401 and logged_in):
                return number, response, body, event  # a second 401 after a login: the caller's error says it
            if status == 403:
                step_ups += 1
                if step_ups > oauth.max_step_ups:
                    await response.aclose()
                    self.emit(event)
                    raise TransportError(str(oauth.give_up_step_up(io)))
            if body is None:
                try:
                    body = await self._read_limited(response, limit=MAX_ERROR_BODY, truncate=True)
                finally:
                    await response.aclose()
                event.put(body_bytes=len(body))
            event.add_finding("oauth", f"HTTP {status}: authorization needed, running the OAuth flow", "info")
            self.emit(event)
            mark = self._auth_waiting_for("the OAuth sign-in (a browser, a pasted URL or the authorization server)")
            try:
                await oauth.on_challenge(status, challenge, sent, io)
            except CredentialsError as exc:
                raise TransportError(str(exc)) from None
            finally:
                self._auth_waits.pop(mark, None)
            logged_in = logged_in or status == 401
            request, number = self._again(request), self.next_exchange()

    def _again(self, request: httpx.Request) -> httpx.Request:
        """``request`` built anew, to be sent once more (its headers are renewed by the caller)."""
        return self.client().build_request(request.method, request.url, headers=request.headers,
                                           content=request.content,
                                           extensions={k: v for k, v in request.extensions.items() if k != "trace"})

    def _auth_io(self) -> AuthIO:
        """How the OAuth flow reaches the network: each request an exchange of this transport (an ``http``
        event marked ``auth_step``), each step a ``note`` event."""

        async def fetch(method: str, url: str, step: str, headers: dict[str, str], body: bytes | None) -> Reply:
            if urlsplit(url).scheme.lower() not in ("http", "https"):  # httpx would drop the scheme from its sentence
                raise CredentialsError(f"OAuth {step}: {self.shown(url.split('?', 1)[0])} is not an http:// or "
                                       "https:// URL, so mcp-inspector does not fetch it")
            request = self.client().build_request(method, url, headers={"User-Agent": USER_AGENT, **headers},
                                                  content=body, extensions={OWN_HEADERS: True})
            mark = self._auth_waiting_for(f"OAuth {step}: {method} {self.shown(url.split('?', 1)[0])}")
            try:
                _, response, data, event = await self._exchange_once(request, purpose=f"OAuth {step}",
                                                                     auth_step=step)
            except TransportError as exc:
                raise CredentialsError(f"OAuth {step}: {exc}") from None
            finally:
                self._auth_waits.pop(mark, None)
            self.emit(event)
            return Reply(response.status_code, response.headers, data or b"", str(response.url))

        def note(step: Noted) -> None:
            data = step.as_data()
            if self.options.redact:
                data["url"] = redact_url(data["url"])
            self.emit(self._scrub(Event(Kind.NOTE, data=data)))

        return AuthIO(fetch, note)

    async def _exchange_once(self, request: httpx.Request, *, purpose: str = "", read_body: bool = True,
                             number: int | None = None, auth_step: str = "") -> tuple[int, httpx.Response,
                                                                                      bytes | None, Event]:
        number = number if number is not None else self.next_exchange()
        started = time.monotonic()
        marks: dict[str, float] = {}

        async def trace(name: str, info: dict[str, Any]) -> None:
            if name == "connection.connect_tcp.started":
                marks["connect_start"] = time.monotonic()
            elif name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
                marks["connect_end"] = time.monotonic()

        request.extensions["trace"] = trace
        try:
            response = await self.client().send(request, stream=True)
        except httpx.HTTPError as exc:
            error = failure(exc, request.method, self.shown(request.url))
            if isinstance(exc, httpx.TimeoutException):
                self.unresponsive = True
            self.emit(self.http_event(number, request, None, started, total=time.monotonic(), error=str(error),
                                      purpose=purpose, auth_step=auth_step))
            raise error from None
        except asyncio.CancelledError:
            # the session's own bound ran out first: the exchange is abandoned, and the capture says so
            self.unresponsive = True
            self.emit(self.http_event(number, request, None, started, total=time.monotonic(), purpose=purpose,
                                      error="abandoned: no response headers before the inspector stopped waiting",
                                      auth_step=auth_step))
            raise
        first_byte = time.monotonic()
        self.unresponsive = False
        connect = marks["connect_end"] - marks["connect_start"] if "connect_end" in marks and "connect_start" in marks \
            else None
        body: bytes | None = None
        if read_body:
            try:
                body = await self._read_limited(response, limit=MAX_AUTH_BODY if auth_step else None,
                                                auth=bool(auth_step))
            except BodyTooLarge as exc:
                self.emit(self.http_event(number, request, response, started, first_byte=first_byte,
                                          total=time.monotonic(), connect=connect, error=str(exc), purpose=purpose,
                                          auth_step=auth_step))
                raise
            except httpx.HTTPError as exc:
                error = failure(exc, request.method, self.shown(request.url))
                self.emit(self.http_event(number, request, response, started, first_byte=first_byte,
                                          total=time.monotonic(), connect=connect, error=str(error), purpose=purpose,
                                          auth_step=auth_step))
                raise error from None
            finally:
                await response.aclose()
        event = self.http_event(number, request, response, started, first_byte=first_byte,
                                total=time.monotonic() if read_body else None, connect=connect, body=body,
                                purpose=purpose, auth_step=auth_step)
        return number, response, body, event

    def _auth_waiting_for(self, what: str) -> object:
        mark = object()
        self._auth_waits[mark] = (what, time.monotonic())
        return mark

    def auth_waiting(self) -> str | None:
        """Why a request has no answer while an OAuth sign-in runs: what the sign-in waits for (the exchange of
        the flow under way, else the flow itself), and how long."""
        if not self._auth_waits:
            return None
        fetches = [w for w in self._auth_waits.values() if w[0].startswith("OAuth ")]
        what, since = min(fetches or self._auth_waits.values(), key=lambda w: w[1])
        return f"it waits for {what}, which has not answered for {time.monotonic() - since:.1f} s"

    def waiting_detail(self, msg_id: Any) -> str | None:
        return self.auth_waiting()

    def probe_headers(self) -> dict[str, str]:
        """The headers a request of this connection carries now (a transport with a session adds its id)."""
        return self.options.base_headers()

    async def probe(self, method: str, *, headers: dict[str, str] | None = None, content: bytes | None = None,
                    purpose: str = "") -> tuple[Event, bytes]:
        """One HTTP exchange outside the protocol's flow (``mcp-inspector check``: a DELETE, a GET, a POST with
        a foreign Origin): :meth:`probe_headers` with ``headers`` over them (an empty value drops a header),
        recorded as an ``http`` event like any other, the body's text in ``snippet``. An event stream is closed
        unread. Returns the emitted event (numbered by the session) and the body."""
        merged = self.probe_headers()
        for name, value in (headers or {}).items():
            for old in [k for k in merged if k.lower() == name.lower()]:
                del merged[old]
            if value:
                merged[name] = value
        request = self.client().build_request(method, self.url, headers=merged, content=content)
        _, response, _, event = await self.exchange(request, read_body=False, purpose=purpose)
        content_type = response.headers.get("content-type", "")
        body = b""
        try:
            if "text/event-stream" not in content_type:
                body = await self._read_limited(response, limit=MAX_ERROR_BODY, truncate=True)
        except httpx.HTTPError as exc:
            event.put(error=explain(exc, method, self.shown(self.url)))
        finally:
            await response.aclose()
        event.put(body_bytes=len(body))
        if body:
            event.put(snippet=snippet(body, content_type))
        if content is not None:
            event.put(request_body=content[:SNIPPET_CHARS].decode("utf-8", "replace"))
        self.emit(event)
        return event, body

    async def _read_limited(self, response: httpx.Response, *, limit: int | None = None,
                            truncate: bool = False, auth: bool = False) -> bytes:
        """The body, read a chunk at a time and never past a limit: a message body (a success, or JSON) up to
        ``limit`` (default: ``--max-message``), an error page up to :data:`MAX_ERROR_BODY` (cut there). A
        message body over its limit raises :class:`BodyTooLarge` after reading at most ``limit`` bytes and a
        chunk (the connection is then closed by the caller, unread); with ``truncate`` it is cut instead."""
        content_type = response.headers.get("content-type", "")
        if not (response.is_success or "json" in content_type):
            limit, truncate = MAX_ERROR_BODY, True
        elif limit is None:
            limit = self.options.max_message
        parts: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                if truncate:
                    return b"".join(parts)[:limit]
                raise self._too_large(response, parts, size, limit, auth)
        return b"".join(parts)

    def _too_large(self, response: httpx.Response, parts: list[bytes], size: int, limit: int,
                   auth: bool) -> BodyTooLarge:
        from inspector.core.sizes import format_size
        from inspector.core.wire.framing import OVERSIZE_KEEP_BYTES

        head = b"".join(parts)[:OVERSIZE_KEEP_BYTES]
        parts.clear()
        try:
            declared: int | None = int(response.headers.get("content-length", ""))
        except ValueError:
            declared = None
        total = f"a body of {declared:,} bytes (its Content-Length)" if declared is not None \
            else f"a body of more than {size:,} bytes"
        where = f"{response.request.method} {self.shown(response.request.url)}"
        reason = (f"{total} is over the size limit ({format_size(limit)} per message); only its first "
                  f"{OVERSIZE_KEEP_BYTES // 1024} KiB are kept and the rest was not read") if not auth else \
            f"{total}, over the {format_size(limit)} an OAuth answer may have: it was not read further"
        return BodyTooLarge(f"{where}: {reason}", head, size, declared, limit, reason)

    async def read_sse(self, response: httpx.Response, number: int, started: float,
                       on_event: Callable[[RawSSE, int], bool | None],
                       on_chunk: Callable[[bytes], None] | None = None) -> SseEnd:
        """Read the event stream of exchange ``number`` until it ends, fails, or ``on_event`` returns True
        (leave it); each event goes to ``on_event`` (with ``number``) as it completes, each chunk first to
        ``on_chunk``.

        Whatever happens (a cancellation included), the response is closed and the stream's closing ``http``
        event is emitted: total time since ``started``, keep-alive comments, the bytes of an event the
        stream cut short, the failure's sentence.
        """
        decoder = SSEDecoder(max_event_bytes=self.options.max_message)  # an event past it is counted, not kept
        end = SseEnd()
        try:
            async for chunk in response.aiter_bytes():
                if on_chunk is not None:
                    on_chunk(chunk)
                for raw in decoder.feed(chunk):
                    if raw.sse.retry is not None:
                        end.retry = raw.sse.retry / 1000
                    if raw.oversize:
                        self._oversized_event(raw, number)
                        continue
                    if on_event(raw, number):
                        end.left = True
                        break
                if end.left:
                    break
        except httpx.HTTPError as exc:
            end.error = explain(exc, response.request.method, self.shown(self.url))
        finally:
            await response.aclose()
            decoder.close()  # counts the bytes of an event the stream cut short
            data: dict[str, Any] = {"exchange": number, "phase": "end",
                                    "timing": {"total": round(time.monotonic() - started, 6)},
                                    "keepalive_comments": decoder.total_comments}
            if end.error:
                data["error"] = end.error
            if decoder.incomplete_bytes:
                data["incomplete_bytes"] = decoder.incomplete_bytes
            self.emit(Event(Kind.HTTP, data=data))
        end.last_event_id = decoder.last_event_id
        return end

    def _oversized_event(self, raw: RawSSE, number: int) -> None:
        """An SSE event over ``--max-message``: a framing error with the head of its data (the session fails
        the request it answers with the sentence, as for a stdio line or an HTTP body over the limit)."""
        from inspector.core.sizes import format_size
        from inspector.core.wire.framing import OVERSIZE_KEEP_BYTES

        reason = (f"an event of {raw.oversize:,} bytes is over the size limit ({format_size(self.options.max_message)}"
                  f" per message); only the first {OVERSIZE_KEEP_BYTES // 1024} KiB of its data are kept")
        self.emit(Event(Kind.FRAMING_ERROR, raw=raw.data_head[:OVERSIZE_KEEP_BYTES], dir="s2c", reason=reason,
                        data={"exchange": number, "sse": raw.fields(),
                              "oversize": {"total_bytes": raw.oversize, "tail": b""}}))

    def request_failed(self, msg_id: Any, reason: str) -> None:
        """The exchange carrying request ``msg_id`` ended without an answer and cannot get one."""
        if msg_id is not None:
            self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.REQUEST_FAILED, "request_id": msg_id,
                                                  "reason": reason}))

    def flag(self, event: Event, code: str, text: str, severity: str = "error") -> None:
        event.add_findings([Finding(code, text, severity)])

    @property
    def closed(self) -> bool:
        return self._closed_event.is_set()

    async def wait_closed(self) -> None:
        await self._closed_event.wait()

    def gone(self, reason: str) -> None:
        """The server cannot be reached any more: say why once, and let waiting requests fail with it."""
        if self._gone is None:
            self._gone = reason
            self.emit(Event(Kind.LIFECYCLE, data={"what": Lifecycle.DISCONNECTED, "reason": reason}))

    def diagnosis(self, waiting_for: str | None = None) -> str | None:
        if self._gone is None:
            return None
        return f"{self._gone} (while waiting for the answer to {waiting_for})" if waiting_for else self._gone
