"""An MCP server with apps, built on the ``mcp`` SDK's own MCP Apps extension (``mcp.server.apps``), for the
app tests. Run: ``python probe_app_server.py BLOCKED_ORIGIN ALLOWED_ORIGIN`` (stdio).

- ``probe`` has the app ``ui://probe/app.html``, a hand-written app (no SDK) that speaks the protocol and, once
  it has its tool result, tries to reach ``BLOCKED_ORIGIN`` by fetch, img and script (its csp allows only
  ``ALLOWED_ORIGIN``, which it also fetches), calls the app-only tool and the model-only one, reads a resource,
  updates the model context, sends a ui/message, asks to open a link, and writes each outcome in its page.
  The tool says whether the client negotiated MCP Apps.
- ``loose`` has ``ui://probe/loose.html``, a minimal app whose csp asks for entries a host must not grant as
  written.
- ``blank`` has ``ui://probe/blank.html``, an app that never sends ui/initialize.
- ``app-only-step`` is callable by apps only (``visibility: ["app"]``), ``model-only`` by the model only.
- ``plain`` has no app.
"""

import sys

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer

BLOCKED, ALLOWED = sys.argv[1], sys.argv[2]

PROBE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>probe</title></head>
<body><h1>Probe app</h1><pre id="log"></pre>
<script>
const BLOCKED = "%(blocked)s", ALLOWED = "%(allowed)s";
const log = (line) => { document.getElementById("log").textContent += line + "\\n"; };
let next = 1;
const waiting = new Map();
function request(method, params) {
  const id = next++;
  window.parent.postMessage({jsonrpc: "2.0", id, method, params}, "*");
  return new Promise((resolve) => waiting.set(id, resolve));
}
function notify(method, params) { window.parent.postMessage({jsonrpc: "2.0", method, params}, "*"); }
window.addEventListener("message", async (event) => {
  if (event.source !== window.parent) return;
  const m = event.data;
  if (m.id !== undefined && !m.method && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); return; }
  if (m.method === "ui/notifications/tool-input") log("input: " + JSON.stringify(m.params.arguments));
  if (m.method === "ui/notifications/tool-result") { log("result: " + m.params.content[0].text); await act(); }
  if (m.method === "ui/resource-teardown") window.parent.postMessage({jsonrpc: "2.0", id: m.id, result: {}}, "*");
});
function reach() {
  fetch(BLOCKED + "/by-fetch").then(() => log("fetch: reached")).catch(() => log("fetch: refused"));
  const img = new Image();
  img.onload = () => log("img: reached"); img.onerror = () => log("img: refused");
  img.src = BLOCKED + "/by-img.png";
  const script = document.createElement("script");
  script.onload = () => log("script: reached"); script.onerror = () => log("script: refused");
  script.src = BLOCKED + "/by-script.js";
  document.head.append(script);
}
async function act() {
  reach();
  try { log("allowed: " + await (await fetch(ALLOWED + "/allowed")).text()); } catch (e) { log("allowed: refused"); }
  const step = await request("tools/call", {name: "app-only-step", arguments: {}});
  log("app-only-step: " + (step.result ? step.result.content[0].text : "error " + step.error.message));
  const other = await request("tools/call", {name: "model-only", arguments: {}});
  log("model-only: " + (other.error ? "refused" : "called"));
  const read = await request("resources/read", {uri: "ui://probe/blank.html"});
  log("read: " + (read.result ? read.result.contents[0].uri : "error"));
  await request("ui/update-model-context", {content: [{type: "text", text: "probe context"}]});
  await request("ui/message", {role: "user", content: [{type: "text", text: "hello from the probe"}]});
  const link = await request("ui/open-link", {url: "https://example.com/probe"});
  log("open-link: " + (link.error ? "denied" : "opened"));
  log("qt: " + typeof qt);
  try { log("parent: " + window.parent.document.title); } catch (e) { log("parent: unreachable"); }
  notify("ui/notifications/size-changed", {width: 640, height: 360});
  log("done");
}
(async () => {
  const init = await request("ui/initialize", {appInfo: {name: "probe", version: "1"},
    appCapabilities: {availableDisplayModes: ["inline", "fullscreen"]}, protocolVersion: "2026-01-26"});
  log("host: " + init.result.hostInfo.name + ", theme " + init.result.hostContext.theme);
  notify("ui/notifications/initialized", {});
})();
</script></body></html>
"""

BLANK = "<!DOCTYPE html><html><body><p>This app never speaks.</p></body></html>"

#: An app that does the handshake, shows its result and answers the teardown: nothing more.
MINIMAL = """<!DOCTYPE html><html><body><p id="out">waiting</p><script>
window.addEventListener("message", (event) => {
  const m = event.data;
  if (m.id === 1 && !m.method) window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized"}, "*");
  const out = document.getElementById("out");
  if (m.method === "ui/notifications/tool-result") out.textContent = m.params.content[0].text;
  if (m.method === "ui/resource-teardown") window.parent.postMessage({jsonrpc: "2.0", id: m.id, result: {}}, "*");
});
window.parent.postMessage({jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {protocolVersion: "2026-01-26",
  appInfo: {name: "minimal", version: "1"}, appCapabilities: {}}}, "*");
</script></body></html>"""

apps = Apps()


@apps.tool(resource_uri="ui://probe/app.html", description="An app that probes its host")
def probe(ctx: Context, note: str = "") -> str:
    return f"apps negotiated: {'yes' if client_supports_apps(ctx) else 'no'}"


@apps.tool(resource_uri="ui://probe/loose.html", description="An app whose csp asks too much")
def loose() -> str:
    return "loose"


@apps.tool(resource_uri="ui://probe/blank.html", description="An app that never initializes")
def blank() -> str:
    return "blank"


@apps.tool(resource_uri="ui://probe/app.html", visibility=["app"], name="app-only-step", description="For the app only")
def app_only_step() -> str:
    return "step done"


@apps.tool(resource_uri="ui://probe/app.html", visibility=["model"], name="model-only",
           description="For the model only")
def model_only() -> str:
    return "model only"


apps.add_html_resource("ui://probe/app.html", PROBE % {"blocked": BLOCKED, "allowed": ALLOWED},
                       csp=ResourceCsp(connect_domains=[ALLOWED]))
apps.add_html_resource("ui://probe/loose.html", MINIMAL,
                       csp=ResourceCsp(connect_domains=["*", "https://api.example.com; script-src *",
                                                        "https://*.example.com", "ftp://files.example.com"],
                                       resource_domains=["'unsafe-eval'", "https://cdn.example.com/lib/"]))
apps.add_html_resource("ui://probe/blank.html", BLANK)

server = MCPServer("probe-apps", extensions=[apps])


@server.tool()
def plain() -> str:
    return "no app here"


server.run()
