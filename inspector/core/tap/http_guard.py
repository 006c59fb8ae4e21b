"""The HTTP tap's rules, without I/O: where it may listen, which requests it lets through (Host and Origin,
against DNS rebinding), how a request's and a response's headers cross it, and the two rewrites that keep a
client on the tap (an absolute ``Location`` on the server's origin, and the HTTP+SSE ``endpoint`` event).

The tap is the inspector's second deliberate listening port (docs/architecture.md, "No listening port, with two
exceptions"): bound to 127.0.0.1 or ::1 only, it must never relay for a web page. A page on another site can
make the browser send requests to 127.0.0.1 (a form, or a DNS name it re-points at 127.0.0.1: DNS
rebinding); such a request carries that site's name in ``Host`` or its origin in ``Origin``. So a request is
let through only when its ``Host`` names this tap (127.0.0.1, [::1] or localhost, with the tap's port) and its
``Origin``, when it has one, is on a loopback host. The MCP specification asks servers for the same check:
https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#security-warning
"""

from __future__ import annotations

import ipaddress
import secrets
import socket
from collections.abc import Iterable
from urllib.parse import urljoin, urlsplit, urlunsplit

#: What ``--listen`` may name: the loopback addresses, nothing else.
LOOPBACK_ADDRESSES = ("127.0.0.1", "::1")
#: Host names a request to the tap may carry (with the tap's port).
LOCAL_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
#: Hosts an ``Origin`` may name: a web client served from this machine.
LOCAL_ORIGIN_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
#: Hop-by-hop headers (RFC 9110 section 7.6.1): they describe one connection, so each side of the tap has its own.
HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
                        "upgrade"})


#: The ``Via`` received-by pseudonym (RFC 9110 section 7.6.3) a tap adds to what it relays, with a token of its
#: own run: a request that comes back carrying it went round a loop (the upstream URL leads back to the tap).
VIA_PREFIX = "mcp-inspector-tap-"


class ListenError(ValueError):
    """``--listen`` names something the tap will not bind; ``str()`` is one sentence."""


def parse_listen(text: str, who: str = "the tap") -> tuple[str, int]:
    """``127.0.0.1:PORT`` or ``[::1]:PORT`` (PORT 0: the kernel picks one) -> (address, port); anything else
    raises ListenError with a sentence (``who`` names what listens: the tap, or a served capture)."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep or not host:
        raise ListenError(f"--listen {text!r}: give an address and a port, such as 127.0.0.1:8765 (port 0 picks a "
                          "free one)")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ListenError(f"--listen {text!r}: write an IPv6 address in brackets, such as [::1]:8765")
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ListenError(f"--listen {text!r}: the port must be a number from 0 to 65535")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        raise ListenError(f"--listen {text!r}: give the loopback address itself, 127.0.0.1 or [::1], not a name "
                          f"({who} binds nothing else)") from None
    if str(address) not in LOOPBACK_ADDRESSES:
        raise ListenError(f"--listen {text!r} is refused: {who} listens only on 127.0.0.1 or [::1], so that "
                          "nothing outside this machine can reach it")
    return str(address), int(port_text)


def origin_text(host: str, port: int, scheme: str = "http") -> str:
    """``http://127.0.0.1:PORT`` or ``http://[::1]:PORT``."""
    return f"{scheme}://{f'[{host}]' if ':' in host else host}:{port}"


def local_url(upstream: str, host: str, port: int, transport: str) -> str:
    """The URL a client uses instead of ``upstream``: the same path and query on the tap's address (``ws://``
    for a WebSocket server)."""
    parts = urlsplit(upstream)
    websocket = transport == "websocket" or parts.scheme in ("ws", "wss")
    return urlunsplit(("ws" if websocket else "http", origin_text(host, port).split("://", 1)[1],
                       parts.path or "/", parts.query, ""))


def http_url(url: str) -> str:
    """``ws(s)://`` as ``http(s)://``: the upstream side speaks HTTP and upgrades."""
    for websocket, http in (("ws://", "http://"), ("wss://", "https://")):
        if url.startswith(websocket):
            return http + url[len(websocket):]
    return url


def _port_of(scheme: str, port: int | None) -> int | None:
    return port if port is not None else {"http": 80, "https": 443, "ws": 80, "wss": 443}.get(scheme)


def same_origin(a: str, b: str) -> bool:
    """Whether two URLs share scheme (ws counted as http), host and port."""
    try:
        pa, pb = urlsplit(http_url(a)), urlsplit(http_url(b))
        return (pa.scheme, pa.hostname, _port_of(pa.scheme, pa.port)) == \
               (pb.scheme, pb.hostname, _port_of(pb.scheme, pb.port))
    except ValueError:
        return False


# -- relaying to itself --------------------------------------------------------------------------------------


def _addresses(host: str) -> set[ipaddress.IPv4Address | ipaddress.IPv6Address] | None:
    """The addresses a URL's host names without asking DNS: a literal address in any spelling the system accepts
    (``127.1``, ``[::ffff:127.0.0.1]``), or ``localhost`` (both loopback addresses); None for any other name."""
    name = host.strip("[]").rstrip(".").lower()
    if name == "localhost" or name.endswith(".localhost"):  # RFC 6761 section 6.3: always this machine
        return {ipaddress.ip_address(a) for a in LOOPBACK_ADDRESSES}
    try:
        found = socket.getaddrinfo(name, None, flags=socket.AI_NUMERICHOST)
    except (OSError, UnicodeError):
        return None
    addresses = set()
    for info in found:
        address = ipaddress.ip_address(str(info[4][0]).split("%", 1)[0])
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        addresses.add(address)
    return addresses


def leads_to_itself(upstream: str, host: str, port: int) -> bool:
    """Whether ``upstream`` names the tap's own listening address ``host``:``port``: its port the tap's (the
    scheme's default when it names none), its host that address in any spelling, ``localhost``, or the
    unspecified address (0.0.0.0 or ::, which a connection takes for this machine)."""
    try:
        parts = urlsplit(http_url(upstream))
        given = _port_of(parts.scheme, parts.port)
    except ValueError:
        return False
    if given != port or parts.hostname is None:
        return False
    addresses = _addresses(parts.hostname)
    if addresses is None:
        return False
    listen = ipaddress.ip_address(host)
    return any(a == listen or a.is_unspecified for a in addresses)


def via_token() -> str:
    """A new run's ``Via`` pseudonym (:data:`VIA_PREFIX` and 64 random bits)."""
    return VIA_PREFIX + secrets.token_hex(8)


def with_via(headers: list[tuple[bytes, bytes]], token: str) -> list[tuple[bytes, bytes]]:
    """``headers`` with this tap's ``Via`` entry (``1.1 TOKEN``) appended to the last ``Via`` field the client sent
    (RFC 9110 section 7.6.3: each intermediary appends), or added as a field of its own."""
    mark = f"1.1 {token}".encode("ascii")
    out = list(headers)
    last = max((n for n, (name, _) in enumerate(out) if name.lower() == b"via"), default=None)
    if last is None:
        return [*out, (b"Via", mark)]
    name, value = out[last]
    out[last] = (name, value.rstrip() + b", " + mark if value.strip() else mark)
    return out


def came_back(headers: Iterable[tuple[bytes, bytes]], token: str) -> bool:
    """Whether a request's ``Via`` headers carry ``token``: this tap relayed it before."""
    mark = token.encode("ascii")
    return any(name.lower() == b"via" and mark in value for name, value in headers)


# -- which requests pass ------------------------------------------------------------------------------------


def host_problem(host: str | None, port: int, who: str = "this tap") -> str | None:
    """Why a request's ``Host`` does not name this tap (or ``who``: a sentence), or None when it does."""
    if host is None:
        return "it has no Host header"
    text = host.strip().lower()
    if text.startswith("["):  # [::1]:PORT
        name, _, rest = text.partition("]")
        name += "]"
        given = rest[1:] if rest.startswith(":") else ("80" if not rest else "")
    else:
        name, sep, given = text.rpartition(":")
        if not sep:  # no port: the scheme's default
            name, given = text, "80"
    if name not in LOCAL_NAMES or not given.isdigit() or int(given) != port:
        return f"its Host {host!r} is not {who}'s address (a web page's DNS name pointed at this machine?)"
    return None


def origin_problem(origin: str | None) -> str | None:
    """Why a request's ``Origin`` may not use the tap (a sentence), or None: no Origin (not a browser), or a
    page served from this machine."""
    if origin is None:
        return None
    try:
        parts = urlsplit(origin.strip())
        local = parts.scheme in ("http", "https") and parts.hostname in LOCAL_ORIGIN_HOSTS
    except ValueError:
        local = False
    if not local:
        return f"its Origin {origin!r} is a web page of another site"
    return None


# -- headers across the tap ---------------------------------------------------------------------------------


def _connection_tokens(headers: Iterable[tuple[bytes, bytes]]) -> set[str]:
    tokens: set[str] = set()
    for name, value in headers:
        if name.lower() == b"connection":
            tokens.update(t.strip().lower() for t in value.decode("latin-1").split(","))
    return tokens


def upstream_headers(headers: Iterable[tuple[bytes, bytes]], upstream: str, upgrade: bool
                     ) -> list[tuple[bytes, bytes]]:
    """The client's request headers as the tap sends them to the server: names, values and order as they came,
    ``Host`` naming the server, without the hop-by-hop headers (kept for a WebSocket upgrade, whose
    ``Connection: Upgrade`` and ``Upgrade`` are the request) and without ``Expect`` (the tap answers
    ``100-continue`` itself)."""
    headers = list(headers)
    parts = urlsplit(http_url(upstream))
    netloc = parts.netloc.rpartition("@")[2].encode("ascii")
    dropped: set[str] = {"expect"} | (set() if upgrade else set(HOP_BY_HOP) | _connection_tokens(headers))
    out = []
    for name, value in headers:
        lowered = name.lower().decode("latin-1")
        if lowered == "host":
            out.append((name, netloc))
        elif lowered not in dropped:
            out.append((name, value))
    if not any(name.lower() == b"host" for name, _ in out):
        out.insert(0, (b"Host", netloc))
    return out


def client_headers(headers: Iterable[tuple[bytes, bytes]], upstream: str, local_origin: str, *, keep_length: bool,
                   upgrade: bool = False) -> tuple[list[tuple[bytes, bytes]], str | None]:
    """The server's response headers as the tap gives them to the client: as they came, without the hop-by-hop
    headers (each side frames its own body), ``Content-Length`` only when ``keep_length`` (a rewritten event
    stream changes the length), and an absolute ``Location`` on the server's origin moved to the tap's, so a
    redirect keeps the client on the tap. Returns the headers and the Location given to the client when it was
    rewritten (else None)."""
    headers = list(headers)
    dropped: set[str] = set() if upgrade else set(HOP_BY_HOP) | _connection_tokens(headers)
    if not keep_length:
        dropped.add("content-length")
    out = []
    relayed_location = None
    for name, value in headers:
        lowered = name.lower().decode("latin-1")
        if lowered in dropped:
            continue
        if lowered == "location":
            moved = move_to_tap(value.decode("latin-1"), upstream, local_origin)
            if moved is not None:
                relayed_location = moved
                value = moved.encode("latin-1")
        out.append((name, value))
    return out, relayed_location


def move_to_tap(url: str, upstream: str, local_origin: str) -> str | None:
    """``url`` (absolute, or scheme-relative ``//host/...``) on the server's origin, as the same path on the
    tap's origin; None when it is relative (it resolves against the tap already) or on another origin."""
    text = url.strip()
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if not parts.netloc:
        return None
    absolute = urljoin(http_url(upstream), text)
    if not same_origin(absolute, upstream):
        return None
    target = urlsplit(absolute)
    local = urlsplit(local_origin)
    scheme = parts.scheme and local.scheme
    return urlunsplit((scheme, local.netloc, target.path, target.query, target.fragment))


# -- the endpoint event -------------------------------------------------------------------------------------


class EndpointRewriter:
    """Relays an event stream byte for byte, except for its first event when that is ``endpoint`` with a URL on
    the server's origin: that URL is given as the same path on the tap's origin, so the client POSTs its
    messages to the tap (HTTP+SSE, https://modelcontextprotocol.io/specification/2024-11-05/basic/transports).
    A relative endpoint (what the SDKs send) resolves against the tap's URL already and is left alone.

    Sans-io: :meth:`feed` takes bytes as they came and returns the bytes to relay now; :meth:`close` the rest.
    Only the lines of the first event are held back until the event is complete (comments and blank lines
    before it pass at once, so keep-alives keep their timing); after it everything passes as it comes. A first
    event over :data:`HOLD_LIMIT` bytes is relayed unchanged.
    """

    HOLD_LIMIT = 64 * 1024

    def __init__(self, upstream: str, local_origin: str) -> None:
        self.upstream = upstream
        self.local_origin = local_origin
        self.done = False
        self.rewritten: tuple[str, str] | None = None  #: (the server's endpoint, what the client got) once done
        self._held = bytearray()
        self._scan = 0  # where the next line starts in _held
        self._block_start: int | None = None  # where the first event's first field line starts
        self._fields: list[tuple[int, int, str, str]] = []  # (value start, value end, name, value) of its lines
        self._bom_checked = False

    def feed(self, data: bytes) -> bytes:
        if self.done:
            return data
        self._held += data
        if not self._bom_checked:
            if len(self._held) < 3 and b"\xef\xbb\xbf".startswith(bytes(self._held)):
                return b""
            self._bom_checked = True
            if self._held.startswith(b"\xef\xbb\xbf"):
                self._scan = 3
        return self._advance()

    def close(self) -> bytes:
        if self.done:
            return b""
        self.done = True
        rest = bytes(self._held)
        self._held.clear()
        return rest

    def _advance(self) -> bytes:
        held = self._held
        while True:
            line_end, next_start = _line_at(held, self._scan)
            if line_end < 0:
                break
            start = self._scan
            self._scan = next_start
            if line_end == start:  # a blank line
                if self._block_start is not None:
                    return self._finish()
                continue
            if held[start:start + 1] == b":":
                continue  # a comment
            if self._block_start is None:
                self._block_start = start
            name, colon, value = bytes(held[start:line_end]).partition(b":")
            offset = start + len(name) + len(colon)
            if colon and value.startswith(b" "):
                value, offset = value[1:], offset + 1
            self._fields.append((offset, line_end, name.decode("utf-8", "replace"), value.decode("utf-8", "replace")))
        if len(held) > self.HOLD_LIMIT:
            return self.close()
        if self._block_start is None:  # nothing of an event yet: what was scanned passes now
            out = bytes(held[:self._scan])
            del held[:self._scan]
            self._scan = 0
            return out
        if self._block_start > 0:
            out = bytes(held[:self._block_start])
            del held[:self._block_start]
            self._scan -= self._block_start
            self._fields = [(s - self._block_start, e - self._block_start, n, v) for s, e, n, v in self._fields]
            self._block_start = 0
            return out
        return b""

    def _finish(self) -> bytes:
        self.done = True
        held = self._held
        names = {name for _, _, name, _ in self._fields}
        event = next((value for _, _, name, value in reversed(self._fields) if name == "event"), "message")
        data = [(s, e, value) for s, e, name, value in self._fields if name == "data"]
        if event == "endpoint" and len(data) == 1 and names <= {"event", "data", "id", "retry"}:
            start, end, value = data[0]
            moved = move_to_tap(value, self.upstream, self.local_origin)
            if moved is not None and moved != value:
                held[start:end] = moved.encode("utf-8")
                self.rewritten = (value, moved)
        out = bytes(held)
        held.clear()
        return out


def _line_at(buffer: bytearray, start: int) -> tuple[int, int]:
    """(end of the line starting at ``start``, start of the next) or (-1, -1) when it is not complete yet. Lines
    end in CRLF, LF or CR (a CR last in the buffer waits: an LF may follow)."""
    lf = buffer.find(b"\n", start)
    cr = buffer.find(b"\r", start, lf if lf >= 0 else len(buffer))
    if cr >= 0:
        if cr + 1 == len(buffer):
            return -1, -1
        return cr, cr + (2 if buffer[cr + 1] == 0x0A else 1)
    if lf >= 0:
        return lf, lf + 1
    return -1, -1
