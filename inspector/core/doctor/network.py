"""The first steps of a URL: ``resolve`` (the host name to addresses) and ``connect`` (a TCP connection to one).

These are below what httpx reports apart (its ConnectError covers a name that does not resolve, a refused port
and a silent firewall alike), so they are made here with the event loop's own resolver and sockets, bounded by
``--connect-timeout``. The inspector never uses a proxy (its HTTP clients ignore the environment's), so a proxy
variable that is set is named: on a network that reaches the server only through it, that is the cause.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import socket
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from inspector.core.doctor.model import Step, failed, passed
from inspector.core.waiting import wait_for

#: The environment variables other programs take a proxy from; the inspector takes none.
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
#: At most this many of a name's addresses are tried (a name with dozens is a load balancer's: a few tell).
MAX_ADDRESSES = 4
#: Names that mean this computer (inside a container: the container itself).
LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


@dataclass
class Where:
    """The host and port of a URL, and the addresses its name resolved to."""

    host: str
    port: int
    secure: bool  #: https or wss: the connection starts with TLS
    addresses: list[str] = field(default_factory=list)
    reachable: list[str] = field(default_factory=list)  #: the addresses a TCP connection was made to

    @property
    def hostport(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def where(url: str) -> Where:
    """The host, port and TLS of a URL (the target's, already checked by ``check_url``)."""
    parts = urlsplit(url)
    secure = parts.scheme in ("https", "wss")
    return Where(parts.hostname or "", parts.port or (443 if secure else 80), secure)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


async def resolve_step(place: Where, timeout: float) -> Step:
    """``resolve``: the host name has addresses (they are kept in ``place.addresses`` for ``connect``)."""
    if _is_address(place.host):
        place.addresses = [place.host]
        return passed("resolve", f"{place.host} is an IP address: there is no name to resolve")
    loop = asyncio.get_running_loop()
    try:
        found = await wait_for(loop.getaddrinfo(place.host, place.port, type=socket.SOCK_STREAM), timeout)
    except TimeoutError:
        return failed("resolve", f"the host name {place.host} did not resolve within {timeout:g} s (the DNS server "
                                 "did not answer)", "Check this computer's network and DNS settings, or use the "
                                                    "server's IP address in the URL.")
    except (socket.gaierror, UnicodeError) as exc:
        reason = exc.strerror if isinstance(exc, socket.gaierror) and exc.strerror else str(exc)
        return failed("resolve", f"the host name {place.host} cannot be resolved ({reason})", _unresolved_fix())
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in found:
        address = str(sockaddr[0])
        if address not in addresses:
            addresses.append(address)
    place.addresses = addresses[:MAX_ADDRESSES]
    return passed("resolve", f"{place.host} resolves to {', '.join(addresses)}")


def _unresolved_fix() -> str:
    if in_container():
        return ("Check the host name's spelling; from inside a container, use the name of the server's container "
                "or service, or host.docker.internal for the machine that runs Docker.")
    return "Check the host name's spelling, or use the server's IP address in the URL."


def in_container() -> bool:
    """Whether this process runs in a Docker (or Podman) container, where localhost is the container itself."""
    return os.path.exists("/.dockerenv") or os.path.exists("/run/.containerenv")


async def connect_step(place: Where, timeout: float) -> Step:
    """``connect``: a TCP connection to one of the addresses; every address is tried (at once), so a name whose
    IPv6 address refuses while its IPv4 one works is said (the classic ``localhost`` and ``::1`` surprise)."""
    # all at once: an address that never answers (an IPv6 route that drops packets) costs one timeout, not one each
    results = await asyncio.gather(*(_try_connect(address, place.port, timeout) for address in place.addresses))
    outcomes: dict[str, str | None] = dict(zip(place.addresses, results, strict=True))
    good = [a for a, why in outcomes.items() if why is None]
    place.reachable = good
    proxy = _proxy_note()
    if good:
        shown = ", ".join(_hostport(a, place.port) for a in good)
        detail = f"connected to {shown}"
        bad = {a: why for a, why in outcomes.items() if why is not None}
        if bad:
            detail += "; " + "; ".join(f"{_hostport(a, place.port)}: {why}" for a, why in bad.items())
        return passed("connect", detail + proxy)
    reasons = sorted({why for why in outcomes.values() if why})
    detail = "; ".join(f"{_hostport(a, place.port)}: {why}" for a, why in outcomes.items())
    if all(why == REFUSED for why in outcomes.values()):
        tried = f" ({', '.join(outcomes)})" if list(outcomes) != [place.host] else ""
        detail = f"connection refused: nothing is listening on {place.hostport}{tried}"
        return failed("connect", detail + proxy, _refused_fix(place))
    if any(why and why.startswith("no answer") for why in reasons):
        return failed("connect", detail + proxy, "A firewall may be dropping the connection, or the host is down: "
                                                 "check that the port is open to this computer"
                                                 + ("; this network may reach it only through the proxy named" if proxy
                                                    else "") + ".")
    return failed("connect", detail + proxy, "Check the host and port in the URL, and this computer's network.")


REFUSED = "connection refused"


async def _try_connect(address: str, port: int, timeout: float) -> str | None:
    """None when a TCP connection to ``address``:``port`` was made (and closed again), else why not."""
    try:
        _, writer = await wait_for(asyncio.open_connection(address, port), timeout)
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except ConnectionRefusedError:
        return REFUSED
    except OSError as exc:
        return exc.strerror or str(exc) or type(exc).__name__
    writer.close()
    try:
        await writer.wait_closed()
    except OSError:
        pass  # the connection was only to see that one can be made
    return None


def _hostport(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


def _refused_fix(place: Where) -> str:
    fix = "Start the server, or check the port in the URL (the server's log says where it listens)"
    if place.host in LOCAL_NAMES and in_container():
        fix += ("; inside a container, localhost is the container itself: use host.docker.internal for the "
                "machine that runs Docker")
    elif place.host not in LOCAL_NAMES:
        fix += "; a server in Docker needs its port published (-p) and must listen on 0.0.0.0 inside the container"
    return fix + "."


def _proxy_note() -> str:
    named = next((name for name in PROXY_VARIABLES if os.environ.get(name)), None)
    if named is None:
        return ""
    return f" ({named} is set, but mcp-inspector connects directly: it uses no proxy)"
