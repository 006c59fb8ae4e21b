"""The authorization step: how the authorization URL is visited and the redirect comes back.

* ``follow``: GET the authorization URL through the recorded client without a person, not following the
  final redirect: ``code``, ``state`` and ``iss`` come from its ``Location`` (for authorization servers that
  approve at once, as test servers and the conformance suite's do). Redirects within the authorization
  server (a login page that approves at once) are followed, up to :data:`MAX_HOPS`.
* ``paste``: print the URL; the person opens it, signs in, and pastes the URL the browser was sent to.
* ``browser``: the system browser and the loopback listener (:mod:`loopback`, RFC 8252 section 7.3).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urljoin, urlsplit

from inspector.core.auth.loopback import LoopbackListener
from inspector.core.auth.model import NO_LISTENER_REDIRECT, RULES, AuthError, OAuthOptions, Step
from inspector.core.urls import shown_url, url_refusal

if TYPE_CHECKING:
    from inspector.core.transports.credentials import AuthIO

#: Redirects followed inside the authorization server before the one to the redirect URI.
MAX_HOPS = 5


class Authorizer(Protocol):
    async def open(self) -> str:
        """Get ready; returns the redirect URI to register and send."""

    async def obtain(self, url: str, state: str, io: AuthIO) -> str:
        """Have ``url`` visited; returns the URL the authorization server redirected to."""

    async def close(self) -> None:
        """Release what ``open`` took (the loopback port)."""

    def describe(self) -> str:
        """How it is done, for the step's sentence."""


class FollowAuthorizer:
    def __init__(self) -> None:
        self.redirect_uri = NO_LISTENER_REDIRECT

    async def open(self) -> str:
        return self.redirect_uri

    async def obtain(self, url: str, state: str, io: AuthIO) -> str:
        target = url
        for _ in range(MAX_HOPS):
            reply = await io.fetch("GET", target, "authorize", {"Accept": "text/html"}, None)
            location = reply.headers.get("location")
            if reply.status not in (301, 302, 303, 307, 308) or not location:
                raise AuthError(f"OAuth authorize: the authorization endpoint answered HTTP {reply.status} instead "
                                "of redirecting: --oauth-authorize follow works only with servers that approve "
                                f"without a person; use browser or paste ({RULES['authorize']})",
                                Step("authorize", target.split("?", 1)[0], "failed",
                                     f"HTTP {reply.status} instead of a redirect", RULES["authorize"]))
            location = urljoin(target, location)
            if location.split("?", 1)[0] == self.redirect_uri:
                return location
            refusal = url_refusal(location)
            if refusal is not None:
                raise _refused(f"a redirect of the authorization server was refused: {refusal}", location)
            if urlsplit(location).netloc != urlsplit(url).netloc:
                raise AuthError(f"OAuth authorize: the authorization server redirected to {location.split('?')[0]}, "
                                "neither itself nor the redirect URI, so the login cannot be followed without a "
                                f"person ({RULES['authorize']})")
            target = location
        raise AuthError(f"OAuth authorize: more than {MAX_HOPS} redirects inside the authorization server")

    async def close(self) -> None:
        return None

    def describe(self) -> str:
        return "followed without a person"


class PasteAuthorizer:
    def __init__(self, ask: Callable[[str], Awaitable[str]] | None = None) -> None:
        self.ask = ask or ask_on_terminal
        self.redirect_uri = NO_LISTENER_REDIRECT

    async def open(self) -> str:
        return self.redirect_uri

    async def obtain(self, url: str, state: str, io: AuthIO) -> str:
        answer = (await self.ask(url)).strip()
        if not answer:
            raise AuthError("OAuth authorize: no redirect URL was pasted, so the login was given up")
        return answer

    async def close(self) -> None:
        return None

    def describe(self) -> str:
        return "redirect URL pasted"


class BrowserAuthorizer:
    def __init__(self, open_url: Callable[[str], object] | None = None,
                 on_wait: Callable[[str], None] | None = None) -> None:
        self.open_url = open_url or open_in_system_browser
        self.on_wait = on_wait
        self.listener = LoopbackListener()

    async def open(self) -> str:
        return await self.listener.open()

    async def obtain(self, url: str, state: str, io: AuthIO) -> str:
        refusal = url_refusal(url)
        if refusal is not None:
            raise _refused(f"the authorization URL was not opened in the browser: {refusal}", url)
        if self.on_wait is not None:
            self.on_wait(self.listener.redirect_uri)
        self.open_url(url)
        return await self.listener.wait(state)

    async def close(self) -> None:
        await self.listener.close()

    def describe(self) -> str:
        return f"system browser, redirect to the loopback listener {self.listener.redirect_uri}"


async def ask_on_terminal(url: str) -> str:
    """Headless ``paste``: the URL on stderr, the redirect URL read from stdin."""
    print(f"mcp-inspector: open this URL in a browser and sign in:\n  {url}\nthen paste the URL the browser was "
          f"sent to (it starts with {NO_LISTENER_REDIRECT}):", file=sys.stderr, flush=True)
    return await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)


def _refused(sentence: str, url: str) -> AuthError:
    return AuthError(f"OAuth authorize: {sentence} ({RULES['url']})",
                     Step("authorize", shown_url(url), "failed", sentence, RULES["url"]))


def open_in_system_browser(url: str) -> None:
    """The system's URL opener (``webbrowser``, which honours ``BROWSER``), for a URL that keeps the URL rule
    only: anything else is said on stderr and opened nowhere."""
    import webbrowser

    refusal = url_refusal(url)
    if refusal is not None:
        print(f"mcp-inspector: not opened in a browser: {refusal}", file=sys.stderr, flush=True)
        return
    if not webbrowser.open(url):
        print(f"mcp-inspector: open this URL in a browser to sign in:\n  {url}", file=sys.stderr, flush=True)


def default_authorizer(options: OAuthOptions) -> Authorizer:
    if options.authorize == "follow":
        return FollowAuthorizer()
    if options.authorize == "paste":
        return PasteAuthorizer()
    return BrowserAuthorizer()
