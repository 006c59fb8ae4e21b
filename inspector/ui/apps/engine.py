"""Qt WebEngine, set up for untrusted apps: the ``mcp-app:`` scheme, one off-the-record profile per app.

The scheme must be registered before the web engine starts (before the first profile or page is made), so
:func:`prepare` runs before any app is shown (the window calls it when it starts, ``mcp-inspector app`` before
it makes its application). Each app gets a profile of its own that keeps nothing on disk (no cookies, cache or
storage outlive it) and has every feature an app does not need turned off: it can open no window, read no
file, reach no plug-in or PDF viewer, activate no window, prefetch nothing. Downloads are refused. WebRTC sends
no UDP (:data:`ISOLATION_FLAGS`).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, QtMsgType, qInstallMessageHandler
from PySide6.QtWebEngineCore import (
    QWebEngineDownloadRequest,
    QWebEngineProfile,
    QWebEngineSettings,
    QWebEngineUrlScheme,
)

#: The scheme of the host page and of every app's document: ``mcp-app://host/`` and ``mcp-app://app-ID/``,
#: each host name an origin of its own.
SCHEME = b"mcp-app"
HOST_NAME = "host"
#: Chromium flags for rendering offscreen (no GPU to find; log only what is fatal).
HEADLESS_FLAGS = ("--disable-gpu", "--log-level=3")
#: Chromium flags for every app, in the window too: WebRTC sends no UDP that no proxy carries (no STUN, no UDP
#: TURN, no host candidates), whatever a page's settings say. Its connections are no requests: neither the CSP nor
#: the request interceptor sees them. What is left of WebRTC (TURN over TCP) the page never gets: the guard script
#: (:func:`inspector.ui.apps.bridge.webrtc_guard_script`) takes RTCPeerConnection away.
ISOLATION_FLAGS = ("--force-webrtc-ip-handling-policy=disable_non_proxied_udp",)
#: The settings an app's profile turns off, and on.
_OFF = ("JavascriptCanOpenWindows", "JavascriptCanAccessClipboard", "LocalContentCanAccessRemoteUrls",
        "LocalContentCanAccessFileUrls", "PluginsEnabled", "FullScreenSupportEnabled", "ScreenCaptureEnabled",
        "HyperlinkAuditingEnabled", "ErrorPageEnabled", "PdfViewerEnabled", "NavigateOnDropEnabled",
        "AllowRunningInsecureContent", "AllowGeolocationOnInsecureOrigins", "DnsPrefetchEnabled",
        "AllowWindowActivationFromJavaScript", "WebGLEnabled", "Accelerated2dCanvasEnabled",
        "SpatialNavigationEnabled", "TouchIconsEnabled", "FocusOnNavigationEnabled")
_ON = ("JavascriptEnabled", "LocalStorageEnabled", "WebRTCPublicInterfacesOnly", "PlaybackRequiresUserGesture")

_prepared = False


def prepare(*, headless: bool = False) -> None:
    """Register the ``mcp-app:`` scheme (once; before the web engine starts) and add :data:`ISOLATION_FLAGS` and,
    ``headless``, the flags for rendering offscreen to ``QTWEBENGINE_CHROMIUM_FLAGS`` (after the user's own)."""
    global _prepared
    if _prepared:
        return
    scheme = QWebEngineUrlScheme(SCHEME)
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)
    QWebEngineUrlScheme.registerScheme(scheme)
    own = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
    ours = [*ISOLATION_FLAGS, *(HEADLESS_FLAGS if headless else ())]
    os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = " ".join([*own, *(f for f in ours if f not in own)])
    _prepared = True


def share_contexts() -> None:
    """Qt WebEngine wants OpenGL contexts shared, set before the application is made."""
    from PySide6.QtCore import QCoreApplication

    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)


def app_profile(parent: QObject | None) -> QWebEngineProfile:
    """A fresh off-the-record profile for one app: nothing kept on disk, nothing it does not need."""
    profile = QWebEngineProfile(parent)  # no storage name: off the record
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
    profile.setSpellCheckEnabled(False)
    settings = profile.settings()
    for name in _OFF:
        settings.setAttribute(getattr(QWebEngineSettings.WebAttribute, name), False)
    for name in _ON:
        settings.setAttribute(getattr(QWebEngineSettings.WebAttribute, name), True)
    profile.downloadRequested.connect(_refuse_download)
    return profile


def _refuse_download(download: QWebEngineDownloadRequest) -> None:
    download.cancel()


#: Qt's own chatter when Chromium renders without a GPU or a display, which says nothing to a user.
_QUIET_PREFIXES = ("QRhi", "Failed to create RHI", "This plugin does not support createPlatformVulkanInstance",
                   "QVulkanInstance", "GBM is not supported", "Sandboxing disabled by user", "GPUInfo",
                   "Qt WebEngine seems to be initialized from a plugin")


def quiet_qt_messages(say: Callable[[str], None]) -> None:
    """Headless: Qt's warnings about rendering without a GPU are dropped; anything else Qt says goes to
    ``say`` (stderr), critical and fatal messages always."""

    def handler(kind: QtMsgType, _context: object, text: str) -> None:
        if kind in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg):
            return
        if kind == QtMsgType.QtWarningMsg and text.startswith(_QUIET_PREFIXES):
            return
        say(text)

    qInstallMessageHandler(handler)
