"""Where a redirect may take a request, and what the request may carry there.

A server may answer a request with a redirect (307 and 308 keep the method and the body). The inspector follows
one as the SDKs' clients do, so a user sees what a real client meets; but the user's headers and credentials
belong to the origin the user named (scheme, host and port of the server's URL), and a redirect is the server's
word, not the user's. So:

- every request an HTTP client of the core sends to another origin goes without them: ``Authorization``,
  ``Proxy-Authorization``, ``Cookie``, ``DPoP`` and every header the user gave (``-H``, ``--origin``), whatever
  code built the request (:func:`home_only_hooks`, an httpx request hook installed on each such client; the
  browser rule of the Fetch standard, section 4.4 "HTTP-redirect fetch", applied to the user's own headers
  too). The OAuth flow's requests, which carry only what the flow chose for the endpoint it reaches (a client
  secret for the token endpoint), are marked :data:`OWN_HEADERS` and left alone.
- a redirect to anything but http or https (``file:``, ``smb:``, ``javascript:``) is refused with a sentence
  (:func:`redirect_refusal`), never followed and never offered as the URL to use.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

#: Headers that carry a credential, never sent to an origin the user did not name, whoever set them.
CREDENTIAL_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "dpop"})
#: Headers of the protocol itself, kept when the user gave them too (a user's ``Accept`` is no secret, and without
#: it the other origin could not answer at all).
PROTOCOL_HEADERS = frozenset({"accept", "content-type", "content-length", "host", "user-agent", "mcp-session-id",
                              "mcp-protocol-version", "last-event-id"})
#: A request extension: the request carries only headers its builder chose for the URL it goes to (the OAuth
#: flow's requests to the metadata, registration and token endpoints), so the hook leaves it alone.
OWN_HEADERS = "mcp_inspector_own_headers"
#: A redirect's target is shown at most this long in a sentence.
SHOWN_CHARS = 80


def origin(url: str | httpx.URL) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, the port made explicit for http and https."""
    parsed = httpx.URL(str(url))
    return parsed.scheme, parsed.host, parsed.port or {"http": 80, "https": 443}.get(parsed.scheme)


def same_origin(a: str | httpx.URL, b: str | httpx.URL) -> bool:
    return origin(a) == origin(b)


def origin_text(url: str | httpx.URL) -> str:
    """``scheme://host[:port]`` for a sentence (the port when it is not the scheme's default)."""
    parsed = httpx.URL(str(url))
    host = f"[{parsed.host}]" if ":" in parsed.host else parsed.host
    # httpx gives no port when it is the scheme's default
    return f"{parsed.scheme}://{host}" + (f":{parsed.port}" if parsed.port is not None else "")


def private_names(headers: Mapping[str, str]) -> set[str]:
    """The lower-cased names, among the headers a user gave, that stay with the origin the user named."""
    return ({name.lower() for name in headers} - PROTOCOL_HEADERS) | CREDENTIAL_HEADERS


def strip_private(request: httpx.Request, home: str, user_headers: Mapping[str, str]) -> list[str]:
    """Remove from ``request`` the user's headers and every credential when it goes to an origin other than
    ``home``'s (and it is not marked :data:`OWN_HEADERS`); returns the names removed."""
    if request.extensions.get(OWN_HEADERS) or same_origin(request.url, home):
        return []
    private = private_names(user_headers)
    removed = [name for name in request.headers if name.lower() in private]
    for name in removed:
        del request.headers[name]
    return removed


def home_only_hooks(home: str, user_headers: Callable[[], Mapping[str, str]]) -> dict[str, list[Any]]:
    """The ``event_hooks`` of an httpx client whose requests may carry ``user_headers()`` (the user's headers
    and credentials, as sent to ``home``): each request to another origin goes without them
    (:func:`strip_private`)."""

    async def keep_home(request: httpx.Request) -> None:
        strip_private(request, home, user_headers())

    hooks: list[Callable[[httpx.Request], Awaitable[None]]] = [keep_home]
    return {"request": hooks}


def shown_target(url: str) -> str:
    """A server's redirect target for a sentence: without its query, cut to :data:`SHOWN_CHARS`, whatever is not
    printable escaped (the server chose it)."""
    text = url.split("?", 1)[0]
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 1] + "…"
    return "".join(c if c.isprintable() and c != " " else f"\\x{ord(c):02x}" for c in text)


def redirect_refusal(status: int, target: str) -> str | None:
    """Why a redirect (``status``) to ``target`` is not followed, as a clause; None when it may be (http, https,
    or a reference without a scheme, relative to the URL redirected)."""
    try:
        scheme = httpx.URL(target).scheme.lower()
    except (httpx.InvalidURL, ValueError):
        return f"the server redirected ({status}) to {shown_target(target)}, which is not a well-formed URL, so it " \
               "is not followed"
    if scheme in ("", "http", "https"):  # no scheme: a path on the same server
        return None
    return (f"the server redirected ({status}) to {shown_target(target)}, a {scheme}: URL, not http or https, so "
            "mcp-inspector does not follow it")


def redirect_note(status: int, source: str, target: str, shown: Callable[[str], str], home: str) -> tuple[str, str]:
    """The finding (code, text) of a redirect (``status``) from ``source`` to ``target`` that is followed: on the
    origin the user named, the server wants another URL; elsewhere, the requests there go without the user's
    headers and credentials."""
    if same_origin(target, home):
        return "redirect", (f"redirected ({status}) from {shown(source)} to {shown(target)}: the server wants the "
                            f"URL {shown(target)}; use it directly")
    return "redirect-other-origin", (
        f"redirected ({status}) from {shown(source)} to {shown(target)}, another origin than the "
        f"{origin_text(home)} you named: requests there go without your headers and credentials (-H, --bearer, "
        f"OAuth, cookies); if you trust {origin_text(target)}, name it as the server's URL")
