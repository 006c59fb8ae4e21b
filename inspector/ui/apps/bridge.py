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
#: The start of the console line the guard writes when it takes a resource hint out of what a page inserts
#: (JSON follows: ``rel``, ``href``).
HINT_MARK = "mcp-inspector: hint refused "

_GUARD = r"""
(function () {
  "use strict";
  const say = console.warn.bind(console), stringify = JSON.stringify, WEBRTC = %(webrtc)s, HINT = %(hint)s;
  const define = Object.defineProperty, describe = Object.getOwnPropertyDescriptor, done = new WeakSet();
  const call = Function.prototype.call, apply = Function.prototype.apply;
  const bound = (f) => call.bind(f);  // f(thisArg, ...args), immune to later changes of Function.prototype
  const replace = bound(String.prototype.replace), split = bound(String.prototype.split);
  const lower = bound(String.prototype.toLowerCase), join = bound(Array.prototype.join);
  const push = bound(Array.prototype.push);
  const getAttr = bound(Element.prototype.getAttribute), setAttr = bound(Element.prototype.setAttribute);
  const elementQuery = bound(Element.prototype.querySelectorAll);
  const fragmentQuery = bound(DocumentFragment.prototype.querySelectorAll);
  const nodeType = bound(describe(Node.prototype, "nodeType").get);
  const localName = bound(describe(Element.prototype, "localName").get);
  const REFUSED = ["preconnect", "dns-prefetch"], relLists = new WeakSet();
  const LINK_TAG = /<link[^>]*>?/gi, WORD = /(^|[\s"'=])(preconnect|dns-prefetch)(?=[\s"'>\/]|$)/gi;

  function refuse(name, config) {
    let urls = [];
    try {
      const servers = config && config.iceServers;
      for (let i = 0; servers && i < servers.length && i < 20; i++) {
        const u = servers[i] && servers[i].urls;
        if (typeof u === "string") push(urls, u);
        else for (let j = 0; u && j < u.length && j < 20; j++) push(urls, String(u[j]));
      }
    } catch (e) {}
    say(WEBRTC + stringify({what: name, urls: urls}));
    throw new DOMException("WebRTC is off for MCP Apps in mcp-inspector", "NotSupportedError");
  }
  // Resource hints a page inserts: Chromium opens a preconnect's connection when its <link> is inserted, where
  // no policy sees it; the refused rel tokens are taken out before then (the HTML served had them taken out)
  function refused(token) { const t = lower(token); return t === REFUSED[0] || t === REFUSED[1]; }
  function filterRel(value, href) {
    const kept = [], tokens = split(String(value), /\s+/);
    let changed = false;
    for (let i = 0; i < tokens.length; i++) {
      if (!tokens[i]) continue;
      if (refused(tokens[i])) {
        changed = true;
        say(HINT + stringify({rel: lower(tokens[i]), href: String(href || "")}));
      } else push(kept, tokens[i]);
    }
    return changed ? join(kept, " ") : value;
  }
  function isLink(node) {
    try { return nodeType(node) === 1 && localName(node) === "link"; } catch (e) { return false; }
  }
  function scrubLink(link) {
    const rel = getAttr(link, "rel");
    if (rel === null) return;
    const kept = filterRel(rel, getAttr(link, "href"));
    if (kept !== rel) setAttr(link, "rel", kept);
  }
  function scrubNode(node) {
    try {
      if (!node || typeof node !== "object") return;
      const type = nodeType(node);
      if (type === 1 && localName(node) === "link") scrubLink(node);
      const links = type === 1 ? elementQuery(node, "link") : type === 11 ? fragmentQuery(node, "link") : [];
      for (let i = 0; i < links.length; i++) scrubLink(links[i]);
    } catch (e) {}
  }
  function scrubHTML(html) {
    if (typeof html !== "string") return html;
    return replace(html, LINK_TAG, (tag) => replace(tag, WORD, (all, before, word) => {
      say(HINT + stringify({rel: lower(word), href: ""}));
      return before + "refused-" + word;
    }));
  }
  const nodes = (args) => { for (let i = 0; i < args.length; i++) scrubNode(args[i]); };
  const strings = (args) => { for (let i = 0; i < args.length; i++) args[i] = scrubHTML(args[i]); };
  const last = (args) => { if (args.length) args[args.length - 1] = scrubHTML(args[args.length - 1]); };

  // a frame the page makes (about:blank, srcdoc) has a window of its own, with a RTCPeerConnection of its own,
  // before any injected script runs in it: each DOM call that can add one guards every child window at once, and
  // so does a mutation observer, before the parser runs the next script (a frame in the page's own markup)
  const lengths = new WeakMap();  // each window's own "length" getter: a page may replace window.length
  function children(win) {
    const length = lengths.get(win);
    const count = length ? length() : 0;
    for (let i = 0; i < count; i++) { try { install(win[i]); } catch (e) {} }
  }
  function wrap(win, proto, name, before) {
    const d = proto && describe(proto, name);
    if (!d) return;
    if (typeof d.value === "function") {
      const f = d.value;
      d.value = function () {
        const args = [];
        for (let i = 0; i < arguments.length; i++) push(args, arguments[i]);
        if (before) before(args, this);
        try { return apply.call(f, this, args); } finally { children(win); }
      };
    } else if (d.set || d.get) {
      const set = d.set, get = d.get;
      if (set) d.set = function (v) {
        const args = [v];
        if (before) before(args, this);
        try { call.call(set, this, args[0]); } finally { children(win); }
      };
      if (get) d.get = function () { children(win); return call.call(get, this); };
    } else return;
    define(proto, name, d);
  }
  function install(win) {
    if (done.has(win)) return;
    done.add(win);
    const length = describe(win, "length");
    if (length && length.get) lengths.set(win, bound(length.get).bind(null, win));
    try {
      new win.MutationObserver(() => children(win)).observe(win.document, {childList: true, subtree: true});
    } catch (e) {}
    for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection"]) {
      if (!(name in win)) continue;
      const guard = function (config) { return refuse(name, config); };
      define(win, name, {value: guard, writable: false, configurable: false, enumerable: false});
    }
    const N = win.Node && win.Node.prototype, E = win.Element && win.Element.prototype;
    for (const m of ["appendChild", "insertBefore", "replaceChild"]) wrap(win, N, m, nodes);
    for (const m of ["append", "prepend", "after", "before", "replaceWith", "replaceChildren"]) wrap(win, E, m, nodes);
    wrap(win, E, "insertAdjacentElement", nodes);
    for (const m of ["innerHTML", "outerHTML", "setHTMLUnsafe"]) wrap(win, E, m, strings);
    wrap(win, E, "insertAdjacentHTML", last);
    const D = win.Document && win.Document.prototype;
    for (const m of ["write", "writeln"]) wrap(win, D, m, strings);
    const R = win.Range && win.Range.prototype;
    wrap(win, R, "insertNode", nodes);
    wrap(win, R, "surroundContents", nodes);
    wrap(win, R, "createContextualFragment", strings);
    const rel = (args, self) => {
      if (isLink(self) && lower(String(args[0])) === "rel") args[1] = filterRel(args[1], getAttr(self, "href"));
    };
    wrap(win, E, "setAttribute", rel);
    wrap(win, E, "setAttributeNS", (args, self) => {
      if (isLink(self) && lower(String(args[1])) === "rel") args[2] = filterRel(args[2], getAttr(self, "href"));
    });
    const L = win.HTMLLinkElement && win.HTMLLinkElement.prototype;
    wrap(win, L, "rel", (args, self) => { args[0] = filterRel(args[0], getAttr(self, "href")); });
    const relList = L && describe(L, "relList");
    if (relList && relList.get) {
      const get = relList.get;
      relList.get = function () { const list = call.call(get, this); relLists.add(list); return list; };
      define(L, "relList", relList);
    }
    const T = win.DOMTokenList && win.DOMTokenList.prototype;
    const tokens = (args, self) => {
      if (!relLists.has(self)) return;
      for (let i = 0; i < args.length; i++) {
        if (typeof args[i] === "string" && refused(args[i])) {
          say(HINT + stringify({rel: lower(args[i]), href: ""}));
          args[i] = "refused-" + args[i];
        }
      }
    };
    for (const m of ["add", "toggle", "replace"]) wrap(win, T, m, tokens);
    wrap(win, T, "value", (args, self) => { if (relLists.has(self)) args[0] = filterRel(args[0], ""); });
    for (const c of ["HTMLIFrameElement", "HTMLFrameElement", "HTMLObjectElement"]) {
      for (const m of ["contentWindow", "contentDocument"]) wrap(win, win[c] && win[c].prototype, m);
    }
    children(win);
  }
  install(window);
})();
"""


def guard_script() -> QWebEngineScript:
    """The script that guards every document of the app's page, before the page's own scripts run (in its main
    world, in every frame, and in every frame the page makes): ``new RTCPeerConnection(...)`` throws
    ``NotSupportedError`` and writes :data:`WEBRTC_MARK` and the ICE servers it named to the console; a
    ``preconnect`` or ``dns-prefetch`` token is taken out of each ``<link>`` the page inserts or changes (by a node,
    an HTML string, an attribute, ``rel`` or ``relList``), with :data:`HINT_MARK` and the hint on the console. The
    page reports both as blocked. A page that replaces the built-ins the guard calls (``RegExp``'s, say) can get a
    hint through in an HTML string; WebRTC's UDP is off in Chromium whatever the page does."""
    script = QWebEngineScript()
    script.setName("mcp-inspector-guard")
    script.setWorldId(QWebEngineScript.ScriptWorldId.MainWorld)
    script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
    script.setRunsOnSubFrames(True)
    script.setSourceCode(_GUARD % {"webrtc": json.dumps(WEBRTC_MARK), "hint": json.dumps(HINT_MARK)})
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
