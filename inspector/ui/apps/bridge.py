"""The postMessage bridge: how an app's messages reach Python, and Python's reach the app.

An app posts JSON-RPC to ``window.parent`` and listens for what its parent posts back (checking that it came
from its parent). Its parent is the host page, ``mcp-app://host/``: a page of another origin, so the app can
neither read it nor reach into it. The bridge's script runs in the host page in Qt WebEngine's *application
world*, a JavaScript world of its own beside the page's: only that world has the QWebChannel to Python
(``qt.webChannelTransport``), so the app, in the page's main world of another frame, has no way to the
inspector but postMessage. The script

- passes each message from the app's frame (``event.source`` is the iframe's window) to Python as JSON text;
- posts what Python sends to the app's frame, to the app's origin only;
- reports the app's Content-Security-Policy violations: a second script, in the application world of the
  app's own document, listens for ``securitypolicyviolation`` and posts each to the host page with a token only
  the application world knows, so the app cannot forge one; the host page's own (its ``frame-src`` stops the
  app's frame from being navigated elsewhere) are reported too.
"""

from __future__ import annotations

import json
import secrets

from PySide6.QtCore import QFile, QIODevice, QObject, Signal, Slot
from PySide6.QtWebEngineCore import QWebEngineScript

_BRIDGE = r"""
(function () {
  "use strict";
  const TOKEN = %(token)s, APP_ORIGIN = %(app_origin)s, HOST_ORIGIN = %(host_origin)s, MAX = %(max)d;
  if (window.top !== window) {
    if (location.origin !== APP_ORIGIN) return;
    document.addEventListener("securitypolicyviolation", function (e) {
      window.parent.postMessage({__mcpInspector: TOKEN, kind: "violation", detail: {
        blockedURI: e.blockedURI, violatedDirective: e.violatedDirective, effectiveDirective: e.effectiveDirective,
        sourceFile: e.sourceFile, lineNumber: e.lineNumber, disposition: e.disposition}}, HOST_ORIGIN);
    });
    if (window.navigation) {
      // a navigation of the app's frame away from its origin: the host page's CSP refuses it, but names no
      // data: or blob: URL; one to content the page made up is refused here, before it starts, and named
      window.navigation.addEventListener("navigate", function (e) {
        const url = String(e.destination.url);
        if (url.startsWith(APP_ORIGIN + "/")) return;
        const local = /^(data|blob|filesystem|javascript):/i.test(url);
        const refused = local && e.cancelable;
        if (refused) e.preventDefault();
        window.parent.postMessage({__mcpInspector: TOKEN, kind: "navigation", detail: {
          url: url.slice(0, 100000), refused: refused}}, HOST_ORIGIN);
      });
    }
    return;
  }
  let host = null;
  const queue = [];
  function send(kind, text) {
    if (host === null) { queue.push([kind, text]); return; }
    host.fromPage(kind, text);
  }
  document.addEventListener("securitypolicyviolation", function (e) {
    send("violation", JSON.stringify({blockedURI: e.blockedURI, violatedDirective: e.violatedDirective,
      effectiveDirective: e.effectiveDirective, sourceFile: e.sourceFile, lineNumber: e.lineNumber,
      disposition: e.disposition, documentURI: e.documentURI}));
  });
  new QWebChannel(qt.webChannelTransport, function (channel) {
    host = channel.objects.host;
    for (const [kind, text] of queue.splice(0)) host.fromPage(kind, text);
  });
  function frame() { return document.getElementById("app"); }
  window.addEventListener("message", function (event) {
    const app = frame();
    if (!app || event.source !== app.contentWindow) return;
    const data = event.data;
    if (data && typeof data === "object" && data.__mcpInspector === TOKEN) {
      send(String(data.kind), JSON.stringify(data.detail));
      return;
    }
    let text;
    try { text = JSON.stringify(data); } catch (e) { send("unserializable", String(e)); return; }
    if (text === undefined) { send("unserializable", "undefined"); return; }
    if (text.length > MAX) { send("oversize", String(text.length)); return; }  // each character a byte or more
    send("message", text);
  });
  window.__mcpInspectorDeliver = function (text) {
    const app = frame();
    if (app && app.contentWindow) app.contentWindow.postMessage(JSON.parse(text), APP_ORIGIN);
  };
  window.__mcpInspectorHeight = function (height) {
    const app = frame();
    if (app) app.style.height = height;
  };
})();
"""


#: The start of the console line the guard writes when a page asks for WebRTC (JSON follows: ``what``, ``urls``).
#: A page can write it too: it then reports itself, which is harmless.
WEBRTC_MARK = "mcp-inspector: WebRTC refused "

_WEBRTC_GUARD = r"""
(function () {
  "use strict";
  const say = console.warn.bind(console), stringify = JSON.stringify, MARK = %(mark)s;
  const define = Object.defineProperty, describe = Object.getOwnPropertyDescriptor, done = new WeakSet();
  function refuse(name, config) {
    let urls = [];
    try {
      const servers = config && config.iceServers;
      for (let i = 0; servers && i < servers.length && i < 20; i++) {
        const u = servers[i] && servers[i].urls;
        if (typeof u === "string") urls.push(u);
        else for (let j = 0; u && j < u.length && j < 20; j++) urls.push(String(u[j]));
      }
    } catch (e) {}
    say(MARK + stringify({what: name, urls: urls}));
    throw new DOMException("WebRTC is off for MCP Apps in mcp-inspector", "NotSupportedError");
  }
  // a frame the page makes (about:blank, srcdoc) has a window of its own, with a RTCPeerConnection of its own,
  // before any injected script runs in it: each DOM call that can add one guards every child window at once
  function children(win) {
    for (let i = 0; i < win.length; i++) { try { install(win[i]); } catch (e) {} }
  }
  function wrap(win, proto, name) {
    const d = proto && describe(proto, name);
    if (!d) return;
    if (typeof d.value === "function") {
      const f = d.value;
      d.value = function () { try { return f.apply(this, arguments); } finally { children(win); } };
    } else if (d.set || d.get) {
      const set = d.set, get = d.get;
      if (set) d.set = function (v) { try { set.call(this, v); } finally { children(win); } };
      if (get) d.get = function () { children(win); return get.call(this); };
    } else return;
    define(proto, name, d);
  }
  function install(win) {
    if (done.has(win)) return;
    done.add(win);
    for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection"]) {
      if (!(name in win)) continue;
      const guard = function (config) { return refuse(name, config); };
      define(win, name, {value: guard, writable: false, configurable: false, enumerable: false});
    }
    const N = win.Node && win.Node.prototype, E = win.Element && win.Element.prototype;
    for (const m of ["appendChild", "insertBefore", "replaceChild"]) wrap(win, N, m);
    for (const m of ["append", "prepend", "after", "before", "replaceWith", "replaceChildren", "insertAdjacentElement",
                     "insertAdjacentHTML", "setHTMLUnsafe", "innerHTML", "outerHTML"]) wrap(win, E, m);
    for (const m of ["write", "writeln"]) wrap(win, win.Document && win.Document.prototype, m);
    for (const m of ["insertNode", "surroundContents"]) wrap(win, win.Range && win.Range.prototype, m);
    for (const c of ["HTMLIFrameElement", "HTMLFrameElement", "HTMLObjectElement"]) {
      for (const m of ["contentWindow", "contentDocument"]) wrap(win, win[c] && win[c].prototype, m);
    }
    children(win);
  }
  install(window);
})();
"""


def webrtc_guard_script() -> QWebEngineScript:
    """The script that takes WebRTC away from every document of the app's page, before the page's own scripts
    run (in its main world, in every frame): ``new RTCPeerConnection(...)`` throws ``NotSupportedError`` and
    writes :data:`WEBRTC_MARK` and the ICE servers it named to the console, which the page reports as blocked."""
    script = QWebEngineScript()
    script.setName("mcp-inspector-webrtc-guard")
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(True)
    script.setSourceCode(_WEBRTC_GUARD % {"mark": json.dumps(WEBRTC_MARK)})
    return script


def _qwebchannel_js() -> str:
    """Qt's qwebchannel.js, from the resources Qt WebChannel ships."""
    source = QFile(":/qtwebchannel/qwebchannel.js")
    if not source.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError("Qt's qwebchannel.js cannot be read")
    try:
        return bytes(source.readAll().data()).decode("utf-8")
    finally:
        source.close()


def bridge_script(app_origin: str, host_origin: str, max_message: int) -> QWebEngineScript:
    """The bridge, in the application world of the host page and of the app's document. A message of the app
    longer than ``max_message`` characters of JSON (``--max-message``: bytes, and a character is at least one
    byte of UTF-8) is not passed on: its length is (``oversize``)."""
    source = _BRIDGE % {"token": json.dumps(secrets.token_hex(16)), "app_origin": json.dumps(app_origin),
                        "host_origin": json.dumps(host_origin), "max": max_message}
    script = QWebEngineScript()
    script.setName("mcp-inspector-bridge")
    script.setWorldId(QWebEngineScript.ScriptWorldId.ApplicationWorld)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(True)
    script.setSourceCode(_qwebchannel_js() + source)
    return script


def deliver_call(obj: object) -> str:
    """The JavaScript that posts ``obj`` to the app (run in the application world)."""
    return f"window.__mcpInspectorDeliver({json.dumps(json.dumps(obj, ensure_ascii=False))});"


def height_call(height: str) -> str:
    return f"window.__mcpInspectorHeight({json.dumps(height)});"


class Bridge(QObject):
    """The object the bridge script reaches in Python: one slot, one signal."""

    #: ``(kind, text)``: ``message`` (the app's JSON-RPC message), ``violation`` (a CSP violation, JSON),
    #: ``unserializable`` or ``oversize`` (a message that could not be passed on, and why)
    received = Signal(str, str)

    @Slot(str, str)
    def fromPage(self, kind: str, text: str) -> None:  # the script's name for it
        self.received.emit(kind, text)
