"""Signing in to an OAuth-protected HTTP server from the window: the system browser, the loopback listener,
and a pasted redirect URL as the fallback.

The core runs the flow (:class:`inspector.core.auth.flow.OAuthClient`) and asks an authorizer to have the
authorization URL visited (:class:`inspector.core.auth.authorize.Authorizer`). :class:`WindowLogin` is the
window's side of it, Qt only through its signals: :meth:`WindowLogin.authorizer` is the factory
:func:`inspector.core.connect.target.make_transport` takes; each of its authorizers opens the loopback listener
of RFC 8252 section 7.3 (https://www.rfc-editor.org/rfc/rfc8252#section-7.3; 127.0.0.1, a port the kernel
picks, one request with the login's ``state``, closed at once or after
:data:`~inspector.core.auth.loopback.LOGIN_TIMEOUT`), opens the authorization URL in the system browser
(:data:`open_in_browser`, replaceable so a test can play the browser), says it waits, and takes whichever comes
first: the redirect on the listener, or a redirect URL the person pasted (:meth:`WindowLogin.paste`).

The Auth panel (:mod:`inspector.ui.panels.auth`) shows what this object says; it holds no logic of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from PySide6.QtCore import QObject, Signal

from inspector.core.auth.loopback import LoopbackListener
from inspector.core.auth.model import RULES, AuthError, OAuthOptions, Step, TokenSet
from inspector.core.urls import shown_url, url_refusal

if TYPE_CHECKING:
    from inspector.core.auth.flow import OAuthClient
    from inspector.core.transports.credentials import AuthIO


def system_browser(url: str) -> bool:
    """Open ``url`` in the person's browser (QDesktopServices); False when no browser could be started, or when
    ``url`` breaks the URL rule (:func:`inspector.core.urls.url_refusal`: https, or http to this computer), which
    is then opened nowhere."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    if url_refusal(url) is not None:
        return False
    return bool(QDesktopServices.openUrl(QUrl(url, QUrl.ParsingMode.StrictMode)))


#: How the window opens an authorization URL: looked up at each login, so a test can put a "browser" of its own
#: here (``monkeypatch.setattr(oauth, "open_in_browser", ...)``). Returns False when no browser was started.
open_in_browser: Callable[[str], object] = system_browser

WAITING = "waiting for you to log in in your browser… (the Auth tab has the address, and a field to paste the " \
          "redirect URL if the browser cannot come back)"
NO_BROWSER = "no browser could be opened: open the address in the Auth tab yourself, then paste the redirect URL " \
             "there"


class WindowLogin(QObject):
    """One session's OAuth in the window: the steps so far, the login waiting for a person, log out."""

    step_added = Signal(object)  #: a Step of the flow, as the core recorded it
    waiting = Signal(str, str)  #: the authorization URL to visit, and the loopback redirect URI
    waiting_ended = Signal()
    said = Signal(str)  #: a sentence about the login (no browser, an unusable paste)
    tokens_changed = Signal()  #: a token came, or the tokens were forgotten
    attention = Signal()  #: the login waits for the person, or failed: the Auth tab should be in view

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.client: OAuthClient | None = None
        self.url = ""  #: the authorization URL while a login waits, else ""
        self.redirect_uri = ""
        self._state = ""
        self._pasted: asyncio.Future[str] | None = None
        self._generation = -1

    # -- wiring ---------------------------------------------------------------------------------------------

    def bind(self, client: OAuthClient | None) -> None:
        """Follow ``client``'s steps (those already taken are announced at once)."""
        self.client = client
        if client is None:
            return
        client.listeners.append(self._step)
        for step in list(client.steps):
            self.step_added.emit(step)

    def authorizer(self, options: OAuthOptions) -> WindowAuthorizer:
        """The factory :func:`~inspector.core.connect.target.make_transport` takes: one authorizer per login."""
        return WindowAuthorizer(self)

    def _step(self, step: Step) -> None:
        self.step_added.emit(step)
        if self.client is not None and self.client.generation != self._generation:
            self._generation = self.client.generation
            self.tokens_changed.emit()

    # -- what the person does -------------------------------------------------------------------------------

    @property
    def is_waiting(self) -> bool:
        return self._pasted is not None and not self._pasted.done()

    def paste(self, text: str) -> str | None:
        """Complete the waiting login with the URL the browser was sent to; the reason it cannot, or None."""
        text = text.strip()
        if not self.is_waiting or self._pasted is None:
            return "no login is waiting for a redirect URL"
        params = dict(parse_qsl(urlsplit(text).query, keep_blank_values=True))
        if "code" not in params and "error" not in params:
            return "that address carries no code (nor an error): paste the whole address the browser was sent " \
                   f"to, which starts with {self.redirect_uri}"
        if params.get("state") != self._state:
            return "that address belongs to another login (its state does not match this one's): paste the " \
                   "address of the latest login"
        self._pasted.set_result(text)
        return None

    def cancel(self, why: str = "the session was stopped") -> None:
        """Give the waiting login up (the listener closes)."""
        if self._pasted is not None and not self._pasted.done():
            self._pasted.set_exception(AuthError(f"OAuth authorize: the login was given up: {why}",
                                                 Step("authorize", self.redirect_uri, "failed",
                                                      f"the login was given up: {why}", RULES["authorize"])))

    def held(self) -> TokenSet | None:
        """The token this session holds now (None before a login and after log out)."""
        return self.client.tokens if self.client is not None else None

    def logout(self) -> None:
        """Forget this server's tokens (memory and keyring): the next request signs in again."""
        if self.client is not None:
            self.client.logout()  # records a "logout" step, which announces the change

    # -- what the authorizer tells ----------------------------------------------------------------------------

    def _begin(self, url: str, redirect_uri: str, state: str) -> asyncio.Future[str]:
        self.url, self.redirect_uri, self._state = url, redirect_uri, state
        self._pasted = asyncio.get_running_loop().create_future()
        self.waiting.emit(url, redirect_uri)
        self.attention.emit()
        return self._pasted

    def _end(self) -> None:
        if self._pasted is not None and not self._pasted.done():
            self._pasted.cancel()
        self._pasted = None
        self.url = self._state = ""
        self.waiting_ended.emit()


class WindowAuthorizer:
    """The window's authorization step (:class:`inspector.core.auth.authorize.Authorizer`): the system browser
    and the loopback listener, or a pasted redirect URL, whichever comes first."""

    def __init__(self, login: WindowLogin) -> None:
        self.login = login
        self.listener = LoopbackListener()

    async def open(self) -> str:
        return await self.listener.open()

    async def obtain(self, url: str, state: str, io: AuthIO) -> str:
        refusal = url_refusal(url)
        if refusal is not None:  # the flow refuses it first; an opener never gets one either way
            sentence = f"the authorization URL was not opened in the browser: {refusal}"
            raise AuthError(f"OAuth authorize: {sentence} ({RULES['url']})",
                            Step("authorize", shown_url(url), "failed", sentence, RULES["url"]))
        pasted = self.login._begin(url, self.listener.redirect_uri, state)
        redirected = asyncio.ensure_future(self.listener.wait(state))
        try:
            try:
                opened = open_in_browser(url)
            except Exception:  # a browser that cannot start is no browser: the person can still paste
                opened = False
            if opened is False:
                self.login.said.emit(NO_BROWSER)
            done, _ = await asyncio.wait({redirected, pasted}, return_when=asyncio.FIRST_COMPLETED)
            first = pasted if pasted in done else redirected
            return first.result()
        finally:
            redirected.cancel()
            with contextlib.suppress(asyncio.CancelledError, AuthError):
                await redirected
            self.login._end()

    async def close(self) -> None:
        await self.listener.close()

    def describe(self) -> str:
        return f"system browser, redirect to the loopback listener {self.listener.redirect_uri} (or a pasted " \
               "redirect URL)"
