"""The page of one app: what it may load, where it may go, what it is served.

- :class:`AppDocuments` serves the ``mcp-app:`` scheme: the host page (``mcp-app://host/``, the inspector's own
  page that holds the app in a sandboxed iframe) and the app's document (``mcp-app://app-ID/``, the resource's
  HTML with its Content-Security-Policy as a response header, so it holds from the first byte). Nothing else.
- :class:`PolicyInterceptor` sees every request the page makes and blocks each one the policy does not allow
  (:meth:`inspector.core.apps.policy.Policy.refusal`): a second wall behind the CSP, which blocks most before
  they are requests at all. Each block is reported.
- :class:`AppPage` lets the main frame go nowhere but the host page, opens no window and shows no dialog; the
  app's console lines are reported.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QUrl
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlSchemeHandler,
)

from inspector.core.apps.hints import hint_reason
from inspector.core.apps.policy import CONNECT, FRAME, RESOURCE, Policy
from inspector.core.apps.report import DNS_PREFETCH, PRECONNECT, WEBRTC, shown_url
from inspector.ui.apps.bridge import HINT_MARK, WEBRTC_MARK
from inspector.ui.apps.engine import HOST_NAME, SCHEME

#: ``(url, use, reason)``: a request the host did not let out.
BlockedCallback = Callable[[str, str, str], None]
_R = QWebEngineUrlRequestInfo.ResourceType
#: What each kind of request is for (the list of the policy that may allow it).
USE_OF = {
    _R.ResourceTypeXhr: CONNECT, _R.ResourceTypePing: CONNECT, _R.ResourceTypeWebSocket: CONNECT,
    _R.ResourceTypeStylesheet: RESOURCE, _R.ResourceTypeScript: RESOURCE, _R.ResourceTypeImage: RESOURCE,
    _R.ResourceTypeFontResource: RESOURCE, _R.ResourceTypeMedia: RESOURCE, _R.ResourceTypeFavicon: RESOURCE,
    _R.ResourceTypeWorker: RESOURCE, _R.ResourceTypeSharedWorker: RESOURCE, _R.ResourceTypeServiceWorker: RESOURCE,
    _R.ResourceTypePrefetch: RESOURCE, _R.ResourceTypeJson: RESOURCE,
    _R.ResourceTypeSubFrame: FRAME, _R.ResourceTypeNavigationPreloadSubFrame: FRAME,
    _R.ResourceTypeMainFrame: "navigation", _R.ResourceTypeNavigationPreloadMainFrame: "navigation",
    _R.ResourceTypeObject: "object", _R.ResourceTypePluginResource: "plug-in", _R.ResourceTypeCspReport: "report",
}
#: a request of no particular kind: allowed when the connect or the resource list allows it
ANY = "request"
#: Schemes whose documents a frame of the app is never navigated to: content made up by the page itself, which
#: Chromium's CSP reports of a blocked frame leave unnamed (an empty blockedURI)
LOCAL_SCHEMES = ("data", "blob", "filesystem", "javascript")


class AppDocuments(QWebEngineUrlSchemeHandler):
    """Serves the host page and the app's document, each once asked for by its own frame; nothing else."""

    def __init__(self, host_page: str, app_host: str, app_html: str, csp: str, parent: QObject) -> None:
        super().__init__(parent)
        self.app_host = app_host
        self._host_page = host_page.encode("utf-8")
        self._app_html = app_html.encode("utf-8", errors="surrogatepass")
        self._csp = csp.encode("ascii")
        self._host_csp = (f"default-src 'none'; style-src 'unsafe-inline'; frame-src mcp-app://{app_host}; "
                          "base-uri 'none'; form-action 'none'").encode("ascii")

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:  # Qt names it
        url = job.requestUrl()
        if job.requestMethod() != b"GET" or url.path() not in ("", "/"):
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        if url.host() == HOST_NAME:
            body, csp = self._host_page, self._host_csp
        elif url.host() == self.app_host:
            body, csp = self._app_html, self._csp
        else:
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        # a list per header: PySide6 passes the dict to a QMultiMap, whose values it iterates (a bare value is
        # taken as a list of one-letter values); its stub says otherwise
        headers: Any = {QByteArray(b"Content-Security-Policy"): [QByteArray(csp)],
                        QByteArray(b"X-Content-Type-Options"): [QByteArray(b"nosniff")],
                        QByteArray(b"Referrer-Policy"): [QByteArray(b"no-referrer")]}
        job.setAdditionalResponseHeaders(headers)
        buffer = QBuffer(job)
        buffer.setData(QByteArray(body))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(QByteArray(b"text/html;charset=utf-8"), buffer)


class PolicyInterceptor(QWebEngineUrlRequestInterceptor):
    """Blocks every request of the app that its policy does not allow, and says which."""

    def __init__(self, policy: Policy, app_host: str, blocked: BlockedCallback, parent: QObject) -> None:
        super().__init__(parent)
        self.policy = policy
        self.app_host = app_host
        self.blocked = blocked

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:  # Qt names it
        url = info.requestUrl()
        text = url.toString(QUrl.ComponentFormattingOption.FullyEncoded)
        scheme = url.scheme().lower()
        if scheme == SCHEME.decode():
            if url.host() in (HOST_NAME, self.app_host):
                return
            reason = "another origin of the inspector's scheme"
        elif scheme in ("data", "blob", "about"):
            return  # the document's own content: the CSP decides
        else:
            reason = self.refusal(text, USE_OF.get(info.resourceType(), ANY)) or ""
            if not reason:
                return
        info.block(True)
        self.blocked(text, USE_OF.get(info.resourceType(), ANY), reason)

    def refusal(self, url: str, use: str) -> str | None:
        if use == ANY:
            connect = self.policy.refusal(url, CONNECT)
            return None if connect is None or self.policy.refusal(url, RESOURCE) is None else connect
        return self.policy.refusal(url, use)


class AppPage(QWebEnginePage):
    """A page whose main frame shows the host page and nothing else, which opens no window and no dialog."""

    def __init__(self, profile: QWebEngineProfile, host_url: QUrl, blocked: BlockedCallback,
                 console: Callable[[str, str, int, str], None], parent: QObject) -> None:
        super().__init__(profile, parent)
        self.host_url = host_url
        self.blocked = blocked
        self.console = console
        self.newWindowRequested.connect(lambda request: self.blocked(
            request.requestedUrl().toString(), "popup", "an app may open no window"))

    def acceptNavigationRequest(self, url: QUrl | str, kind: QWebEnginePage.NavigationType,
                                is_main_frame: bool) -> bool:
        target = QUrl(url) if isinstance(url, str) else url
        if not is_main_frame:
            scheme = target.scheme().lower()
            if scheme in LOCAL_SCHEMES:  # the CSP refuses these too, but names no URL: refused here, named
                self.blocked(shown_url(target.toString()), "navigation",
                             f"an app's frame may not be navigated to a {scheme}: URL")
                return False
            return True  # a frame of the app: the interceptor holds it to frameDomains
        if target.scheme() == self.host_url.scheme() and target.host() == self.host_url.host() \
                and target.path() in ("", "/") and not target.hasQuery():
            return True
        self.blocked(target.toString(), "navigation", "the app may not navigate the host page away")
        return False

    def javaScriptConsoleMessage(self, level: QWebEnginePage.JavaScriptConsoleMessageLevel,
                                 message: str, line: int, source: str) -> None:
        if message.startswith(WEBRTC_MARK):
            self._webrtc_refused(message[len(WEBRTC_MARK):])
        elif message.startswith(HINT_MARK):
            self._hint_refused(message[len(HINT_MARK):])
        names = {QWebEnginePage.JavaScriptConsoleMessageLevel.InfoMessageLevel: "info",
                 QWebEnginePage.JavaScriptConsoleMessageLevel.WarningMessageLevel: "warning",
                 QWebEnginePage.JavaScriptConsoleMessageLevel.ErrorMessageLevel: "error"}
        self.console(names.get(level, "info"), message, line, source)

    def _webrtc_refused(self, text: str) -> None:
        """The guard refused a page's ``RTCPeerConnection``: each ICE server it named is a blocked request."""
        detail = _guard_detail(text)
        urls = [str(u) for u in detail.get("urls") or [] if isinstance(u, str)][:20] or [str(detail.get("what"))]
        for url in urls:
            self.blocked(shown_url(url), WEBRTC, "WebRTC is off for apps: its STUN and TURN connections are no "
                                                 "requests the policy could hold")

    def _hint_refused(self, text: str) -> None:
        """The guard took a resource hint out of what the page inserted: a blocked request."""
        detail = _guard_detail(text)
        rel = PRECONNECT if detail.get("rel") == PRECONNECT else DNS_PREFETCH
        href = detail.get("href")
        href = href if isinstance(href, str) else ""
        self.blocked(shown_url(href) or f"a <link rel={rel}>", rel, hint_reason(rel))

    def javaScriptAlert(self, origin: QUrl | str, text: str) -> None:  # no dialog for an app
        self.console("info", f"alert() not shown: {text}", 0, QUrl(origin).toString())

    def javaScriptConfirm(self, origin: QUrl | str, text: str) -> bool:
        self.console("info", f"confirm() not shown (answered no): {text}", 0, QUrl(origin).toString())
        return False

    def javaScriptPrompt(self, origin: QUrl | str, text: str, default: str) -> tuple[bool, str]:
        self.console("info", f"prompt() not shown (cancelled): {text}", 0, QUrl(origin).toString())
        return False, ""


def _guard_detail(text: str) -> dict[str, Any]:
    """What the app's guard script said of a refusal (a JSON object after its mark); {} when it is none."""
    try:
        detail = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return detail if isinstance(detail, dict) else {}
