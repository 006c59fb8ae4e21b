"""The widget that shows one app: a web view of the host page, the app in its sandboxed iframe.

:class:`AppView` builds everything one app needs and nothing it shares with another app: an off-the-record
profile, the scheme handler that serves its documents, the interceptor that holds it to its policy, the page,
the bridge. The app's iframe has ``sandbox="allow-scripts allow-same-origin allow-forms"`` (no popups, no
top navigation, no modal dialogs) and an ``allow`` attribute with the permissions granted; its origin,
``mcp-app://app-ID``, is its own and is not the host page's.

It says what happens through signals (each a plain value) and does nothing with them: :class:`~inspector.ui.apps.
run.AppRun` decides.
"""

from __future__ import annotations

import asyncio
import html
import secrets

from PySide6.QtCore import QSize, QUrl, Signal
from PySide6.QtGui import QImage
from PySide6.QtWebChannel import QWebChannel
from PySide6.QtWebEngineCore import QWebEnginePage, QWebEngineScript
from PySide6.QtWebEngineWidgets import QWebEngineView
from PySide6.QtWidgets import QVBoxLayout, QWidget

from inspector.core.apps.policy import Policy
from inspector.core.apps.sandbox import sandbox_refusal
from inspector.core.sizes import DEFAULT_MAX_MESSAGE
from inspector.core.waiting import wait_for
from inspector.ui.apps.bridge import Bridge, bridge_script, deliver_call, guard_script, height_call
from inspector.ui.apps.engine import HOST_NAME, SCHEME, app_profile, prepare
from inspector.ui.apps.page import AppDocuments, AppPage, PolicyInterceptor

#: How tall the app's frame is before it says its size.
INITIAL_HEIGHT = 400
#: What the visible text and a screenshot may wait for the page.
READ_TIMEOUT = 5.0
_APPLICATION_WORLD = QWebEngineScript.ScriptWorldId.ApplicationWorld

_HOST_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>mcp-inspector app host</title>
<style>html,body{{margin:0;padding:0;background:{background};color-scheme:{scheme}}}
iframe{{display:block;border:{border};width:100%;height:{height}px;box-sizing:border-box}}</style></head>
<body><iframe id="app" title="{title}" src="{src}" sandbox="allow-scripts allow-same-origin allow-forms"
allow="{allow}"></iframe></body></html>
"""


class SandboxUnavailable(RuntimeError):
    """Chromium's sandbox cannot run here and the user did not turn it off; ``str()`` is the sentence."""


class AppView(QWidget):
    """One app, rendered. Call :meth:`load`, then :meth:`post` what the host says; :meth:`dispose` at the end."""

    #: the app posted this JSON text
    message = Signal(str)
    #: ``(kind, text)`` from the app's document: ``violation`` (JSON of a CSP violation), ``unserializable``,
    #: ``oversize``
    sandbox_said = Signal(str, str)
    #: the app's frame set out for another document (JSON: ``url``, and ``refused`` when the bridge stopped it)
    navigation = Signal(str)
    #: ``(url, use, reason)``: the host blocked a request
    blocked = Signal(str, str, str)
    #: ``(level, text, line, source)``: a line of the app's console
    console = Signal(str, str, int, str)
    #: the host page loaded (True) or failed (False)
    loaded = Signal(bool)
    #: the renderer process ended abnormally: why
    crashed = Signal(str)
    #: the app asks for a browser permission (a ``QWebEnginePermission``: grant or deny it, now or later)
    permission_asked = Signal(object)

    def __init__(self, html_text: str, policy: Policy, *, title: str = "app", theme: str = "light",
                 border: bool = False, max_message: int = DEFAULT_MAX_MESSAGE, parent: QWidget | None = None) -> None:
        """``max_message``: the largest message of the app passed on whole (bytes of UTF-8, ``--max-message``);
        a longer one is said as ``oversize`` with its size."""
        super().__init__(parent)
        self.max_message = max_message
        refusal = sandbox_refusal()
        if refusal is not None:  # Chromium would end the whole process: say why instead
            raise SandboxUnavailable(refusal)
        prepare()  # the scheme, before the first profile (a no-op once done)
        self.app_host = f"app-{secrets.token_hex(8)}"
        self.origin = f"{SCHEME.decode()}://{self.app_host}"
        self.host_url = QUrl(f"{SCHEME.decode()}://{HOST_NAME}/")
        # ownership, so that each goes after what uses it: the page owns the profile, which owns its handlers
        self.profile = app_profile(None)
        page_html = _HOST_PAGE.format(
            background="#1e1e1e" if theme == "dark" else "#ffffff", scheme="dark" if theme == "dark" else "light",
            border="1px solid #8888" if border else "0", height=INITIAL_HEIGHT, title=html.escape(title),
            src=html.escape(self.origin + "/"), allow=html.escape(policy.allow_attribute()))
        self.documents = AppDocuments(page_html, self.app_host, html_text, policy.csp(), self.profile)
        self.profile.installUrlSchemeHandler(SCHEME, self.documents)
        self.interceptor = PolicyInterceptor(policy, self.app_host, self.blocked.emit, self.profile)
        self.profile.setUrlRequestInterceptor(self.interceptor)
        self.page = AppPage(self.profile, self.host_url, self.blocked.emit, self.console.emit, self)
        self.profile.setParent(self.page)
        self.page.renderProcessTerminated.connect(self._terminated)
        self.page.loadFinished.connect(self.loaded.emit)
        self.page.permissionRequested.connect(self.permission_asked.emit)
        self.bridge = Bridge(self.page)
        self.bridge.received.connect(self._received)
        self.channel = QWebChannel(self.page)
        self.channel.registerObject("host", self.bridge)
        self.page.setWebChannel(self.channel, _APPLICATION_WORLD)
        self.page.scripts().insert(bridge_script(self.origin, f"{SCHEME.decode()}://{HOST_NAME}", max_message))
        self.page.scripts().insert(guard_script())
        self.web = QWebEngineView(self)
        self.web.setPage(self.page)
        self.web.setContextMenuPolicy(self.web.contextMenuPolicy().NoContextMenu)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.web)
        self.disposed = False

    def load(self) -> None:
        self.page.load(self.host_url)

    def _received(self, kind: str, text: str) -> None:
        if kind == "message":
            size = len(text.encode("utf-8", errors="surrogatepass"))
            if size > self.max_message:  # under the limit in characters, over it in bytes
                self.sandbox_said.emit("oversize", str(size))
                return
            self.message.emit(text)
        elif kind == "navigation":
            self.navigation.emit(text)
        else:
            self.sandbox_said.emit(kind, text)

    def _terminated(self, status: QWebEnginePage.RenderProcessTerminationStatus, code: int) -> None:
        if status != QWebEnginePage.RenderProcessTerminationStatus.NormalTerminationStatus:
            self.crashed.emit(f"{status.name} (exit code {code})")

    def post(self, obj: object) -> None:
        """Post ``obj`` to the app (from the host page, to the app's origin only)."""
        if not self.disposed:
            self.page.runJavaScript(deliver_call(obj), _APPLICATION_WORLD)

    def set_content_height(self, height: int) -> None:
        """Make the app's frame ``height`` pixels tall (what the app says its content needs)."""
        if not self.disposed:
            self.page.runJavaScript(height_call(f"{max(1, int(height))}px"), _APPLICATION_WORLD)

    def fill(self) -> None:
        """Make the app's frame as tall as the view (fullscreen)."""
        if not self.disposed:
            self.page.runJavaScript(height_call("100vh"), _APPLICATION_WORLD)

    def app_frame(self) -> object | None:
        for frame in self.page.mainFrame().children():
            if frame.url().host() == self.app_host:
                return frame
        return None

    async def responsive(self, timeout: float) -> bool:
        """Whether the app's renderer runs a script within ``timeout`` seconds (in the application world of the
        app's document, or of the host page when the app's frame is gone): a renderer whose page loops for
        ever answers nothing, although nothing crashed."""
        frame = self.app_frame()
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()

        def done(value: object) -> None:
            if not future.done():
                future.set_result(value)

        if frame is None:
            self.page.runJavaScript("1", _APPLICATION_WORLD, done)
        else:
            frame.runJavaScript("1", _APPLICATION_WORLD, done)  # type: ignore[attr-defined]  # QWebEngineFrame
        try:
            await wait_for(future, timeout)
        except TimeoutError:
            return False
        return True

    async def visible_text(self) -> str:
        """The text the app shows (its document's ``innerText``), "" when it has none to read."""
        frame = self.app_frame()
        if frame is None:
            return ""
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()

        def done(value: object) -> None:
            if not future.done():
                future.set_result(value)

        frame.runJavaScript("document.body ? document.body.innerText : ''", _APPLICATION_WORLD,  # type: ignore[attr-defined]  # QWebEngineFrame
                            done)
        try:
            value = await wait_for(future, READ_TIMEOUT)
        except TimeoutError:
            return ""
        return value if isinstance(value, str) else ""

    def screenshot(self, size: QSize | None = None) -> QImage:
        """What the view shows, as an image; ``size``: resize the view to it first."""
        if size is not None:
            self.resize(size)
        return self.web.grab().toImage()

    def dispose(self) -> None:
        """Tear the view and the page down (the page's profile goes after it, as Qt WebEngine wants)."""
        if self.disposed:
            return
        self.disposed = True
        self.web.deleteLater()
        self.page.deleteLater()  # and with it its profile
