"""The one rule for a URL that a server chose: whether it may be opened in the person's browser or requested.

A server names URLs the inspector would act on: the OAuth endpoints of its metadata (authorization, token,
registration, the metadata documents themselves), redirects inside its login, links in its content. Handed
to a system opener as they are, ``file:///etc/passwd``, ``smb://attacker.example/share/x.exe`` or
``javascript:...`` open a local file, fetch and run a remote program, or run script (the class of
CVE-2025-6514); requested over plain http to another computer, a code, a verifier or a client secret cross the
network in clear. So every such URL passes :func:`url_refusal` first, in every opener (the headless browser
sign-in, the window's) and before every request of the OAuth flow.

The rule is the one MCP's authorization keeps (Communication Security: every authorization server endpoint
is served over HTTPS; a redirect URI is https or a loopback address, RFC 8252 section 7.3), applied to every
URL from a server: https with a host, or http to this computer (127.0.0.0/8, ::1, ``localhost``: a test server
on loopback). Nothing else: no other scheme, no URL holding a space or a control character (an opener or a
terminal may read those as something else).
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from inspector.core.text import safe

#: What a refusal cites.
RULE = "MCP authorization, Communication Security: authorization server endpoints must be served over HTTPS; " \
       "only https, or http to this computer, is ever opened or requested"

#: A URL is shown at most this long in a sentence (the query of an authorization URL is long and not the point).
SHOWN_CHARS = 80

_UNSAFE_CHARS = re.compile(r"[\x00-\x20\x7f-\x9f\u2028\u2029]")


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` (as urlsplit gives it: lower case, no brackets) names this computer."""
    host = host.rstrip(".")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_refusal(url: str) -> str | None:
    """Why ``url`` must be neither opened nor requested, as one sentence; None when it may be: an https URL
    with a host, or an http URL whose host is this computer."""
    shown = shown_url(url)
    if _UNSAFE_CHARS.search(url):
        return f"{shown} holds a space or a control character, so it is neither opened nor requested"
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return f"{shown} is not a well-formed URL, so it is neither opened nor requested"
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        kind = f"uses the {scheme}: scheme" if scheme else "is not an absolute URL"
        return f"{shown} {kind}, not https, so it is neither opened nor requested"
    if not host:
        return f"{shown} names no host, so it is neither opened nor requested"
    if scheme == "http" and not is_loopback_host(host):
        return f"{shown} is plain http to {host}, another computer, so it is neither opened nor requested " \
               "(only https, or http to this computer)"
    return None


def shown_url(url: str) -> str:
    """``url`` for a sentence: without its query, cut to :data:`SHOWN_CHARS`, control characters escaped."""
    text = url.split("?", 1)[0]
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 1] + "…"
    return safe(text, lines=False)
