"""The sandbox of an app, in a real web view: an app that tries to reach an origin its policy does not allow
(by fetch, img and script, and by navigating) reaches nothing, and each attempt is reported; it cannot see the
inspector (no qt object, no way into the host page); what it posts reaches Python and what Python posts
reaches it; and the request interceptor holds even when the page's CSP would let everything through."""

from __future__ import annotations

import json
from typing import Any

import pytest
from app_servers.support import recording_origins
from helpers import until

from inspector.core.apps.policy import Policy, policy_of
from inspector.ui.apps.view import AppView

#: a web view starts its renderer and runs a small page well within this on a loaded machine
BOUND = 30

HOSTILE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="log"></pre><script>
const BLOCKED = %(blocked)s, ALLOWED = %(allowed)s;
const log = (line) => {
  document.getElementById("log").textContent += line + "\\n";
  window.parent.postMessage({jsonrpc: "2.0", method: "log", params: {line}}, "*");
};
window.addEventListener("message", (event) => {
  if (event.source !== window.parent) return;
  log("got: " + JSON.stringify(event.data));
  if (event.data.method === "go") go();
});
function go() {
  fetch(BLOCKED + "/by-fetch").then(() => log("fetch: reached"), () => log("fetch: refused"));
  const img = new Image(); img.onload = () => log("img: reached"); img.onerror = () => log("img: refused");
  img.src = BLOCKED + "/by-img.png";
  const s = document.createElement("script"); s.onload = () => log("script: reached");
  s.onerror = () => log("script: refused"); s.src = BLOCKED + "/by-script.js"; document.head.append(s);
  fetch(ALLOWED + "/allowed").then((r) => r.text()).then((t) => log("allowed: " + t), () => log("allowed: refused"));
  log("qt: " + typeof qt);
  try { log("parent: " + window.parent.document.title); } catch (e) { log("parent: unreachable"); }
  const popup = window.open(BLOCKED + "/by-popup"); log("popup: " + (popup ? "opened" : "refused"));
  window.parent.postMessage({__mcpInspector: "a guess", kind: "violation", detail: {blockedURI: "forged"}}, "*");
  window.parent.postMessage({jsonrpc: "2.0", method: "went"}, "*");
}
window.parent.postMessage({jsonrpc: "2.0", method: "hello", params: {n: 1}}, "*");
</script></body></html>"""


class WideOpen(Policy):
    """A policy whose CSP lets everything through: only the request interceptor stands."""

    def csp(self) -> str:
        return "default-src * 'unsafe-inline'; img-src * data:; script-src * 'unsafe-inline'"


def render(qloop: Any, policy: Policy, blocked_origin: str, allowed_origin: str) -> tuple[AppView, dict[str, list]]:
    html = HOSTILE % {"blocked": json.dumps(blocked_origin), "allowed": json.dumps(allowed_origin)}
    view = AppView(html, policy, title="hostile")
    seen: dict[str, list] = {"messages": [], "sandbox": [], "blocked": [], "console": []}
    view.message.connect(seen["messages"].append)
    view.sandbox_said.connect(lambda kind, text: seen["sandbox"].append((kind, json.loads(text))))
    view.blocked.connect(lambda url, use, reason: seen["blocked"].append((url, use, reason)))
    view.console.connect(lambda level, text, line, source: seen["console"].append(text))
    view.resize(600, 400)
    view.show()
    view.load()
    qloop.run_until_complete(until(lambda: seen["messages"], BOUND, "the app's first message"))
    return view, seen


def logged(seen: dict[str, list]) -> list[str]:
    """The lines the app wrote in its page (it posts each one too)."""
    return [json.loads(m)["params"]["line"] for m in seen["messages"] if '"method":"log"' in m]


def play(qloop: Any, view: AppView, seen: dict[str, list]) -> str:
    """Tell the app to go, wait until it wrote down how each of its attempts ended; the text it shows."""
    view.post({"jsonrpc": "2.0", "method": "go"})
    qloop.run_until_complete(until(
        lambda: all(any(line.startswith(f"{what}: ") for line in logged(seen))
                    for what in ("fetch", "img", "script", "allowed", "popup")), BOUND, "the app's outcomes"))
    return qloop.run_until_complete(view.visible_text())


def test_an_app_reaches_no_origin_its_csp_does_not_allow_and_each_attempt_is_reported(qtbot, qloop):
    with recording_origins() as origins:
        view, seen = render(qloop, policy_of({"csp": {"connectDomains": [origins.allowed]}}), origins.blocked,
                            origins.allowed)
        try:
            text = play(qloop, view, seen)
            qloop.run_until_complete(until(lambda: len(seen["sandbox"]) >= 3, BOUND, "three violations"))
        finally:
            view.dispose()
        assert {"fetch: refused", "img: refused", "script: refused", "allowed: ok"} <= set(text.splitlines())
        assert origins.blocked not in origins.hits, "nothing reached the blocked origin"
        assert origins.hits[origins.allowed] == ["/allowed"], "the allowed origin was reached"
        violations = {(d["blockedURI"], d["effectiveDirective"]) for kind, d in seen["sandbox"] if kind == "violation"}
        assert {(origins.blocked + "/by-fetch", "connect-src"), (origins.blocked + "/by-img.png", "img-src"),
                (origins.blocked + "/by-script.js", "script-src-elem")} <= violations
        assert not any(d.get("blockedURI") == "forged" for _, d in seen["sandbox"]), "the app cannot forge a report"
        assert any('"__mcpInspector":"a guess"' in m for m in seen["messages"]), "it is an ordinary message"


def test_an_app_cannot_see_the_inspector_open_a_window_or_reach_into_its_host(qtbot, qloop):
    with recording_origins() as origins:
        view, seen = render(qloop, policy_of({}), origins.blocked, origins.allowed)
        try:
            text = play(qloop, view, seen)
        finally:
            view.dispose()
        assert "qt: undefined" in text and "parent: unreachable" in text and "popup: refused" in text
        assert json.loads(seen["messages"][0]) == {"jsonrpc": "2.0", "method": "hello", "params": {"n": 1}}
        assert 'got: {"jsonrpc":"2.0","method":"go"}' in text, "what Python posts reaches the app"
        assert origins.hits == {}


def test_the_request_interceptor_blocks_what_a_permissive_csp_would_let_through(qtbot, qloop):
    with recording_origins() as origins:
        policy = WideOpen(**vars(policy_of({"csp": {"connectDomains": [origins.allowed]}})))
        view, seen = render(qloop, policy, origins.blocked, origins.allowed)
        try:
            text = play(qloop, view, seen)
            qloop.run_until_complete(until(lambda: len(seen["blocked"]) >= 3, BOUND, "three blocks by the host"))
        finally:
            view.dispose()
        assert {"fetch: refused", "img: refused", "script: refused", "allowed: ok"} <= set(text.splitlines())
        assert origins.blocked not in origins.hits and origins.hits[origins.allowed] == ["/allowed"]
        assert {(url, use) for url, use, _ in seen["blocked"]} >= {
            (origins.blocked + "/by-fetch", "connect"), (origins.blocked + "/by-img.png", "resource"),
            (origins.blocked + "/by-script.js", "resource")}
        assert all("not in connectDomains" in reason or "resourceDomains" in reason
                   for url, _, reason in seen["blocked"] if url.startswith(origins.blocked))
        assert seen["sandbox"] == [], "the CSP let everything through: the host alone blocked it"


@pytest.mark.parametrize("target", ["top", "frame"])
def test_an_app_cannot_navigate_the_host_page_or_its_own_frame_away(qtbot, qloop, target):
    with recording_origins() as origins:
        html = ("<!DOCTYPE html><html><body><script>window.parent.postMessage({jsonrpc: '2.0', method: 'hello'}, '*');"
                f"setTimeout(() => {{ try {{ {'window.top' if target == 'top' else 'window'}.location = "
                f"{json.dumps(origins.blocked + '/navigated')}; }} catch (e) {{}} "
                "window.parent.postMessage({jsonrpc: '2.0', method: 'tried'}, '*'); }, 50);</script></body></html>")
        view = AppView(html, policy_of({}), title="navigator")
        messages: list[str] = []
        reported: list[tuple[str, str]] = []  # (url, what stopped it)
        view.message.connect(messages.append)
        view.blocked.connect(lambda url, use, reason: reported.append((url, use)))
        view.sandbox_said.connect(lambda kind, text: reported.append((json.loads(text)["blockedURI"],
                                                                      json.loads(text)["effectiveDirective"])))
        view.show()
        view.load()
        try:
            qloop.run_until_complete(until(lambda: any("tried" in m for m in messages), BOUND, "the attempt"))
            if target == "frame":
                qloop.run_until_complete(until(lambda: reported, BOUND, "the navigation reported"))
            assert view.page.url().toString() == "mcp-app://host/"
        finally:
            view.dispose()
        assert origins.hits == {}
        if target == "frame":  # the host page's frame-src stops it before it is a request
            assert reported[0] == (origins.blocked, "frame-src"), "a violation names the origin only"
