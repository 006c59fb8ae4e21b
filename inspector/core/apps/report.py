"""What ``mcp-inspector app`` found, as one JSON object and as a few lines for a person.

The report (``--json``) has: the tool and its arguments; the resource (URI, mime type, size, where its
``_meta.ui`` came from); the metadata checks (findings); the policy requested, effective and what was dropped,
with the Content-Security-Policy header; every blocked request (by the host's interceptor or by the browser's
CSP); the messages each way per method; what the app said about itself (its info, capabilities, size, display
mode, model context, messages, links); how the run ended; the app's visible text (with ``--text``) and the
screenshot and capture paths. docs/user-guide.md ("MCP Apps") documents the fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.core.apps.host import AppHost, AppPhase
from inspector.core.apps.loader import AppSpec

#: How a run ended (``outcome.state``).
IDLE, WAITED, BUSY, NOT_INITIALIZED, CRASHED, UNRESPONSIVE, TORN_DOWN = (
    "idle", "waited", "busy", "never-initialized", "crashed", "unresponsive", "torn-down")


#: The longest URL a report keeps whole (a data: URL carries a whole document)
MAX_URL_SHOWN = 200
#: What a blocked navigation of a frame is called when the browser names no URL (it leaves data: and blob: URLs
#: out of its CSP reports) and the app's document did not say where it was going
UNNAMED_NAVIGATION = "a data: or blob: URL (the browser names none)"
#: The uses of a blocked request that are navigations of a frame (a request even when the URL is not named)
NAVIGATIONS = ("navigation", "frame-src", "child-src")
#: What a blocked connection the CSP does not cover was for: WebRTC (its STUN and TURN servers), a resource hint
WEBRTC, PRECONNECT, DNS_PREFETCH = "webrtc", "preconnect", "dns-prefetch"
#: The uses that are always requests, named or not
_REQUESTS = (*NAVIGATIONS, WEBRTC, PRECONNECT, DNS_PREFETCH)


def shown_url(url: str) -> str:
    """``url`` as a report shows it: whole up to :data:`MAX_URL_SHOWN` characters, else its start and its size."""
    if len(url) <= MAX_URL_SHOWN:
        return url
    return f"{url[:MAX_URL_SHOWN]}… ({len(url):,} characters)"


@dataclass
class Blocked:
    """A request of the app that did not go out."""

    url: str
    use: str  #: connect, resource, frame, navigation, popup, download, ...
    by: str  #: ``host`` (the request interceptor, the navigation rule) or ``browser`` (the CSP)
    reason: str
    t: float = 0.0  #: seconds since the session started

    @property
    def request(self) -> bool:
        """Whether something was to be fetched or navigated to (a URL), not code the CSP refused to run
        (``eval``, ``inline``)."""
        return "://" in self.url or self.url.startswith(("data:", "blob:")) or self.use in _REQUESTS

    def to_json(self) -> dict[str, Any]:
        return {"url": self.url, "use": self.use, "by": self.by, "reason": self.reason, "t": round(self.t, 3),
                "request": self.request}


@dataclass
class Outcome:
    state: str  #: one of IDLE, WAITED, BUSY, NOT_INITIALIZED, CRASHED, UNRESPONSIVE, TORN_DOWN
    seconds: float  #: how long the app ran
    sentence: str = ""  #: what went wrong, when something did
    console_errors: list[str] = field(default_factory=list)  #: the app's console errors, the first few


def build_report(spec: AppSpec, host: AppHost, blocked: list[Blocked], outcome: Outcome, *,
                 text: str | None = None, screenshot: str | None = None, capture: str | None = None,
                 unsandboxed: str | None = None, oversize: list[int] | None = None,
                 max_message: int | None = None) -> dict[str, Any]:
    """The ``--json`` report of one app run; ``oversize``: the size of each message of the app over the size
    limit, ``max_message`` (not passed on)."""
    policy = spec.policy
    state = host.state
    report: dict[str, Any] = {
        "tool": spec.name,
        "arguments": host.arguments,
        "resource": {"uri": spec.resource.uri, "mimeType": spec.resource.mime_type, "bytes": spec.resource.size,
                     "meta": spec.resource.meta_source},
        "checks": [f.to_json() for f in spec.findings],
        "policy": {
            "requested": {"csp": policy.requested_csp, "permissions": policy.requested_permissions},
            "effective": {"csp": policy.effective(), "permissions": policy.effective_permissions()},
            "dropped": [d.to_json() for d in policy.dropped],
            "header": policy.csp(),
            "sandbox": "off (QTWEBENGINE_DISABLE_SANDBOX)" if unsandboxed else "on",
        },
        "blocked": [b.to_json() for b in blocked],
        "oversize": {"count": len(oversize or []), "largest": max(oversize or [0]), "limit": max_message},
        "messages": {**host.message_counts(),
                     "total": sum(host.counts.values())},
        "app": {"initialized": state.phase in (AppPhase.READY, AppPhase.CLOSED) and state.input_sent,
                "protocolVersion": state.protocol_version, "appInfo": state.app_info,
                "appCapabilities": state.app_capabilities, "displayMode": host.context.display_mode,
                "size": state.size, "modelContext": state.model_context, "messages": state.messages,
                "links": state.links, "logs": len(state.logs), "refusedCalls": state.refused_calls},
        "outcome": {"state": outcome.state, "seconds": round(outcome.seconds, 3), "sentence": outcome.sentence,
                    "consoleErrors": outcome.console_errors},
    }
    if text is not None:
        report["text"] = text
    if screenshot is not None:
        report["screenshot"] = screenshot
    if capture is not None:
        report["capture"] = capture
    return report


def summary_lines(report: dict[str, Any]) -> list[str]:
    """The report as a few lines for a terminal (what ``app`` prints without ``--json`` or ``--text``)."""
    lines = [f"app {report['resource']['uri']} of tool {report['tool']}: {report['outcome']['state']} after "
             f"{report['outcome']['seconds']:.1f} s"]
    if report["outcome"]["sentence"]:
        lines.append(f"  {report['outcome']['sentence']}")
    counts = report["messages"]
    lines.append(f"  messages: {sum(counts['app_to_host'].values())} from the app, "
                 f"{sum(counts['host_to_app'].values())} to it ("
                 + ", ".join(f"{m} {n}" for m, n in counts["app_to_host"].items()) + ")")
    effective = report["policy"]["effective"]["csp"]
    allowed = [f"{key} {' '.join(v)}" for key, v in effective.items() if v]
    lines.append("  policy: " + ("; ".join(allowed) if allowed else "no origin outside the app"))
    for dropped in report["policy"]["dropped"]:
        lines.append(f"  dropped from {dropped['key']}: {dropped['entry']!r} ({dropped['reason']})")
    oversize = report.get("oversize") or {}
    if oversize.get("count"):
        lines.append(f"  {oversize['count']} message(s) of the app over the size limit ({oversize['limit']:,} bytes "
                     f"per message), the largest of {oversize['largest']:,} bytes: not passed on")
    for item in report["blocked"]:
        what = "blocked" if item["request"] else "refused to run"
        lines.append(f"  {what} by the {item['by']}: {item['use']} {item['url']} ({item['reason']})")
    for check in report["checks"]:
        mark = {"error": "!", "warning": "~"}.get(check["severity"], "i")
        lines.append(f"  {mark} {check['text']}")
    for link in report["app"]["links"]:
        lines.append(f"  ui/open-link {link['url']}: not opened ({link['reason']})")
    for message in report["app"]["messages"]:
        content = message.get("content") if isinstance(message, dict) else None
        texts = [str(c.get("text")) for c in (content if isinstance(content, list) else [content])
                 if isinstance(c, dict) and isinstance(c.get("text"), str)]
        lines.append(f"  ui/message: {' '.join(texts) or '(no text)'}")
    for key in ("screenshot", "capture"):
        if key in report:
            lines.append(f"  {key}: {report[key]}")
    return lines
