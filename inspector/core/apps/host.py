"""The host side of the app protocol: what the inspector answers an MCP App, and when it may speak to it.

An app (the View) talks JSON-RPC to its host over postMessage
(https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx, "Communication
Protocol" and "Lifecycle"). :class:`AppHost` is that host, without a browser: the web view hands it each message
the app posted (:meth:`AppHost.receive`) and gives it a way to post back (:class:`HostPorts`). It

- answers ``ui/initialize`` with the host's capabilities and context (theme, display mode, locale, size, the
  policy it enforces), ``ping``, ``ui/message``, ``ui/update-model-context``, ``ui/request-display-mode`` and
  ``ui/open-link`` (which a person confirms: :attr:`HostPorts.open_link`);
- passes ``tools/call``, ``tools/list``, ``resources/read``, ``resources/list`` and ``resources/templates/list``
  to the server through the session, refusing a ``tools/call`` of a tool whose ``visibility`` lacks ``"app"``;
- sends nothing before the app's ``ui/notifications/initialized`` ("The Host MUST NOT send any request or
  notification to the View before it receives an initialized notification"), then the tool's input and its
  result, ``ui/notifications/host-context-changed`` and ``ui/resource-teardown``;
- records every message both ways as an ``app`` event of the session (:mod:`inspector.core.wire.app_lane`), a
  response paired with its request as on the wire.

Nothing here blocks: the server round trips run as tasks of the host's :class:`~inspector.core.tasks.Tasks`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from inspector.core.apps.meta import APPS_PROTOCOL_VERSION, app_may_call
from inspector.core.apps.policy import Policy
from inspector.core.session.outcomes import client_info, result_of
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.core.waiting import wait_for
from inspector.core.wire import app_lane as lane
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Finding
from inspector.core.wire.ids import IdKey, id_key

#: The app-protocol revisions this host answers in (the app's, when it is one of them; else the newest).
SUPPORTED_VERSIONS = (APPS_PROTOCOL_VERSION, "2025-11-21")
#: Methods the host passes to the server as they are (the app's id swapped for one of the session's).
FORWARDED = frozenset({"tools/call", "tools/list", "resources/read", "resources/list", "resources/templates/list"})
#: Display modes this host offers (``pip`` needs a floating window the inspector does not have).
DISPLAY_MODES = ("inline", "fullscreen")
#: JSON-RPC error codes of the host's refusals.
METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR, REFUSED = -32601, -32602, -32603, -32000
#: What a ``ui/resource-teardown`` may take before the host tears the app down anyway.
TEARDOWN_WAIT = 2.0


@dataclass
class HostContext:
    """What the host tells the app about where it is shown (``McpUiHostContext``)."""

    theme: str = "light"
    display_mode: str = "inline"
    width: int = 800
    max_height: int = 6000
    locale: str = "en-US"
    time_zone: str | None = None
    platform: str = "desktop"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"theme": self.theme, "displayMode": self.display_mode,
                               "availableDisplayModes": list(DISPLAY_MODES),
                               "containerDimensions": {"width": self.width, "maxHeight": self.max_height},
                               "locale": self.locale,
                               "userAgent": f"{client_info()['name']}/{client_info()['version']}",
                               "platform": self.platform, "deviceCapabilities": {"touch": False, "hover": True},
                               "safeAreaInsets": {"top": 0, "right": 0, "bottom": 0, "left": 0}}
        if self.time_zone:
            out["timeZone"] = self.time_zone
        return out


def system_locale() -> str:
    """This computer's language and region as BCP 47 (``en-US``), from the environment; ``en-US`` when unknown."""
    import locale
    import os

    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name, "").split(".")[0].split("@")[0]
        if value and value not in ("C", "POSIX"):
            return value.replace("_", "-")
    found = locale.getlocale()[0]
    return found.replace("_", "-") if found and found not in ("C", "POSIX") else "en-US"


def system_time_zone() -> str | None:
    """This computer's IANA time zone (``Europe/Paris``): ``TZ``, else what /etc/localtime points at."""
    import os

    zone = os.environ.get("TZ", "").lstrip(":")
    if "/" in zone and not zone.startswith("/"):
        return zone
    try:
        target = os.path.realpath("/etc/localtime")
    except OSError:
        return None
    marker = "/zoneinfo/"
    return target.split(marker, 1)[1] if marker in target else None


async def _never_opened(url: str) -> tuple[bool, str]:
    return False, "this host opens no links"


@dataclass
class HostPorts:
    """What the host needs from outside: the web view, the session, and a person."""

    #: post a message to the app (the web view's bridge)
    post: Callable[[dict[str, Any]], None]
    #: add an event to the session (numbered, saved, shown); returns it numbered
    record: Callable[[Event], Event]
    #: send a request to the server through the session: ``(method, params, app_request_seq)`` -> the response
    request: Callable[[str, Any, int], Awaitable[Event]]
    #: ask a person whether to open a link: ``(opened, reason)``; headless: never opened
    open_link: Callable[[str], Awaitable[tuple[bool, str]]] = _never_opened
    #: the display mode changed (``inline``/``fullscreen``)
    display_mode: Callable[[str], None] = lambda mode: None
    #: the app's content has this size now (``ui/notifications/size-changed``)
    size: Callable[[Any, Any], None] = lambda width, height: None
    #: the app asked to be torn down
    teardown_requested: Callable[[], None] = lambda: None


class AppPhase(StrEnum):
    """Where an app is in its life with the host (its value is the word the Apps panel and the report show)."""

    LOADING = "loading"  #: shown, ui/initialize not answered yet
    INITIALIZING = "initializing"  #: ui/initialize answered, initialized not sent yet
    READY = "ready"  #: initialized: the host may speak to it
    CLOSED = "closed"  #: torn down


@dataclass
class AppState:
    """What the app said about itself and did, for the Apps panel and the report."""

    phase: AppPhase = AppPhase.LOADING
    protocol_version: Any = None
    app_info: Any = None
    app_capabilities: Any = None
    model_context: Any = None  #: the last ui/update-model-context's params
    messages: list[Any] = field(default_factory=list)  #: ui/message params, in order
    logs: list[Any] = field(default_factory=list)  #: notifications/message params
    links: list[dict[str, Any]] = field(default_factory=list)  #: {url, opened, reason}
    size: dict[str, Any] | None = None
    refused_calls: list[str] = field(default_factory=list)  #: tools the app called that it may not call
    input_sent: bool = False
    result_sent: bool = False


class AppHost:
    """The host of one app, number ``app`` of its session, shown for one call of ``tool``."""

    def __init__(self, app: int, tool: dict[str, Any], arguments: dict[str, Any], policy: Policy,
                 ports: HostPorts, *, tools: list[dict[str, Any]] | None = None, context: HostContext | None = None,
                 call_id: Any = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.app = app
        self.tool = tool
        self.arguments = arguments
        self.policy = policy
        self.ports = ports
        self.tools = {t.get("name"): t for t in (tools or [tool]) if isinstance(t, dict)}
        self.context = context or HostContext()
        self.call_id = call_id  #: the JSON-RPC id of the tools/call that made the app (``toolInfo.id``)
        self.clock = clock
        self.state = AppState()
        self.counts: Counter[tuple[str, str]] = Counter()  #: (direction, method or "response") -> messages
        self.tasks = Tasks()
        self._result: tuple[str, Any] | None = None  #: ("result", CallToolResult) or ("cancelled", reason)
        self._pending: dict[IdKey, tuple[str, asyncio.Future[Any], int, float]] = {}  # host requests by id
        self._next_id = 1
        self._serving = 0  #: app requests being answered (a server round trip, a person's confirmation)
        self.last_activity = clock()

    # -- from the app ----------------------------------------------------------------------------------

    def receive(self, text: str) -> Event:
        """One message the app posted (as JSON text): recorded, then acted on. Returns its event."""
        received = self.last_activity = self.clock()
        raw = text.encode("utf-8", errors="surrogatepass")
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            obj = None
        findings: list[Finding] = []
        data: dict[str, Any] = {}
        pending = None
        if isinstance(obj, dict) and "method" not in obj and ("result" in obj or "error" in obj):
            pending = self._pending.pop(id_key(obj.get("id")), None)
            if pending is not None:
                data = {"reply_to": pending[2], "latency": round(self.clock() - pending[3], 6),
                        "request_method": pending[0]}
            else:
                findings.append(Finding("app-unknown-id", "the app answered an id the host never asked with",
                                        "warning"))
        method = obj.get("method") if isinstance(obj, dict) else None
        closed = self.state.phase == AppPhase.CLOSED and pending is None
        if closed:
            findings.append(Finding("app-after-teardown", "the app sent this after its teardown: it is not acted on",
                                    "warning"))
        elif isinstance(method, str) and self.state.phase == AppPhase.LOADING and method != "ui/initialize":
            findings.append(Finding("app-before-initialize", f"the app sent {method} before ui/initialize",
                                    "warning"))
        event = self.ports.record(lane.message_event(Direction.A2H, raw, self.app, findings, **data))
        self.counts[(Direction.A2H, method if isinstance(method, str) else "response")] += 1
        if pending is not None:
            future = pending[1]
            if not future.done():
                future.set_result(obj)
        elif closed:
            pass
        elif event.rpc is not None and event.rpc.kind == jsonrpc.REQUEST and isinstance(method, str):
            self._serving += 1
            self.tasks.spawn(self._serve(event, obj, received), f"answering the app's {method}")
        elif event.rpc is not None and event.rpc.kind == jsonrpc.NOTIFICATION and isinstance(method, str):
            self._notified(method, obj.get("params"))
        return event

    async def _serve(self, request: Event, obj: dict[str, Any], received: float) -> None:
        method, params = obj["method"], obj.get("params")
        try:
            handler = self._handlers().get(method)
            try:
                if handler is not None:
                    result, error = await handler(params, request)
                elif method in FORWARDED:
                    result, error = await self._forward(method, params, request)
                else:
                    result, error = None, {"code": METHOD_NOT_FOUND, "message": f"this host does not handle {method}"}
            except Exception as exc:  # the app still gets an answer; the failure is reported as a sentence
                self.tasks.report(f"answering the app's {method} failed: {exc or type(exc).__name__}")
                result, error = None, {"code": INTERNAL_ERROR, "message": f"the host failed: {exc}"}
            self._answer(request, obj.get("id"), result, error, received)
        finally:
            self._serving -= 1
            self.last_activity = self.clock()

    def _handlers(self) -> dict[str, Callable[[Any, Event], Awaitable[tuple[Any, Any]]]]:
        return {"ui/initialize": self._initialize, "ping": self._ping, "ui/message": self._message,
                "ui/update-model-context": self._model_context, "ui/request-display-mode": self._display_mode,
                "ui/open-link": self._open_link}

    def _answer(self, request: Event, msg_id: Any, result: Any, error: Any, received: float) -> None:
        obj: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id}
        if error is not None:
            obj["error"] = error
        else:
            obj["result"] = result if result is not None else {}
        data = {"reply_to": request.seq, "latency": round(max(0.0, self.clock() - received), 6),
                "request_method": request.rpc.method if request.rpc else None}
        self._post(obj, **data)

    async def _initialize(self, params: Any, request: Event) -> tuple[Any, Any]:
        params = params if isinstance(params, dict) else {}
        asked = params.get("protocolVersion")
        self.state.protocol_version = asked if asked in SUPPORTED_VERSIONS else APPS_PROTOCOL_VERSION
        self.state.app_info = params.get("appInfo")
        self.state.app_capabilities = params.get("appCapabilities")
        if self.state.phase == AppPhase.LOADING:
            self.state.phase = AppPhase.INITIALIZING
        return {"protocolVersion": self.state.protocol_version, "hostInfo": client_info(),
                "hostCapabilities": self.capabilities(), "hostContext": self.host_context()}, None

    def capabilities(self) -> dict[str, Any]:
        """``McpUiHostCapabilities``: what this host does for the app (the policy it enforces among them)."""
        sandbox: dict[str, Any] = {"csp": self.policy.effective()}
        if self.policy.permissions:
            sandbox["permissions"] = self.policy.effective_permissions()
        return {"openLinks": {}, "serverTools": {}, "serverResources": {}, "logging": {}, "sandbox": sandbox,
                "message": {"text": {}}, "updateModelContext": {"text": {}, "structuredContent": {}}}

    def host_context(self) -> dict[str, Any]:
        context = self.context.to_json()
        context["toolInfo"] = {"tool": self.tool, **({"id": self.call_id} if self.call_id is not None else {})}
        return context

    async def _ping(self, params: Any, request: Event) -> tuple[Any, Any]:
        return {}, None

    async def _message(self, params: Any, request: Event) -> tuple[Any, Any]:
        if not isinstance(params, dict) or not isinstance(params.get("content"), (dict, list)):
            return None, {"code": INVALID_PARAMS, "message": "ui/message needs a role and content"}
        self.state.messages.append(params)  # the inspector has no conversation: the message is shown, kept
        return {}, None

    async def _model_context(self, params: Any, request: Event) -> tuple[Any, Any]:
        if params is not None and not isinstance(params, dict):
            return None, {"code": INVALID_PARAMS, "message": "ui/update-model-context takes an object"}
        self.state.model_context = params  # each update replaces the last
        return {}, None

    async def _display_mode(self, params: Any, request: Event) -> tuple[Any, Any]:
        mode = params.get("mode") if isinstance(params, dict) else None
        declared = (self.state.app_capabilities or {}).get("availableDisplayModes") \
            if isinstance(self.state.app_capabilities, dict) else None
        allowed = mode in DISPLAY_MODES and (not isinstance(declared, list) or mode in declared)
        if allowed and mode != self.context.display_mode:
            self.context.display_mode = str(mode)
            self.ports.display_mode(self.context.display_mode)
        return {"mode": self.context.display_mode}, None

    async def _open_link(self, params: Any, request: Event) -> tuple[Any, Any]:
        url = params.get("url") if isinstance(params, dict) else None
        if not isinstance(url, str) or not url:
            return None, {"code": INVALID_PARAMS, "message": "ui/open-link needs a url"}
        opened, reason = await self.ports.open_link(url)
        self.state.links.append({"url": url, "opened": opened, "reason": reason})
        self.ports.record(lane.happening(lane.LINK, self.app, url=url, opened=opened, reason=reason))
        if opened:
            return {}, None
        return None, {"code": REFUSED, "message": f"Link opening denied: {reason}"}

    async def _forward(self, method: str, params: Any, request: Event) -> tuple[Any, Any]:
        if method == "tools/call":
            name = params.get("name") if isinstance(params, dict) else None
            tool = self.tools.get(name)
            if tool is not None and not app_may_call(tool):
                self.state.refused_calls.append(str(name))
                return None, {"code": INVALID_PARAMS, "message": f"the tool {name} is not callable by apps (its "
                                                                 "_meta.ui.visibility lacks \"app\")"}
        try:
            response = await self.ports.request(method, params, request.seq)
        except TransportError as exc:
            return None, {"code": INTERNAL_ERROR, "message": str(exc)}
        result, error = result_of(response)
        return result, error

    def _notified(self, method: str, params: Any) -> None:
        if method == "ui/notifications/initialized":
            if self.state.phase in (AppPhase.LOADING, AppPhase.INITIALIZING):
                self.state.phase = AppPhase.READY
                self._send_tool_data()
        elif method == "ui/notifications/size-changed" and isinstance(params, dict):
            self.state.size = {"width": params.get("width"), "height": params.get("height")}
            self.ports.size(params.get("width"), params.get("height"))
        elif method == "notifications/message":
            self.state.logs.append(params)
        elif method == "ui/notifications/request-teardown":
            self.ports.teardown_requested()

    # -- to the app ------------------------------------------------------------------------------------

    def _post(self, obj: dict[str, Any], **data: Any) -> Event:
        event = self.ports.record(lane.message_event(Direction.H2A, lane.encode(obj), self.app, **data))
        method = obj.get("method")
        self.counts[(Direction.H2A, method if isinstance(method, str) else "response")] += 1
        self.ports.post(obj)
        return event

    def _notify(self, method: str, params: Any) -> bool:
        """Send a notification, if the app may be spoken to yet (after its initialized)."""
        if self.state.phase != AppPhase.READY:
            return False
        self._post({"jsonrpc": "2.0", "method": method, "params": params})
        return True

    def tool_result(self, result: Any) -> None:
        """The tool call that made the app came back with ``result`` (a CallToolResult): the app gets it once it
        is ready."""
        self._result = ("result", result)
        self._send_tool_data()

    def tool_failed(self, error: Any) -> None:
        """The tool call came back with a JSON-RPC error (or none came): the app gets it as an error result."""
        text = error.get("message") if isinstance(error, dict) else str(error)
        self.tool_result({"content": [{"type": "text", "text": str(text)}], "isError": True})

    def tool_cancelled(self, reason: str) -> None:
        self._result = ("cancelled", reason)
        self._send_tool_data()

    def _send_tool_data(self) -> None:
        if self.state.phase != AppPhase.READY:
            return
        if not self.state.input_sent:
            self.state.input_sent = self._notify("ui/notifications/tool-input", {"arguments": self.arguments})
        if self._result is not None and not self.state.result_sent:
            kind, value = self._result
            if kind == "result":
                self.state.result_sent = self._notify("ui/notifications/tool-result", value)
            else:
                self.state.result_sent = self._notify("ui/notifications/tool-cancelled", {"reason": value})

    def change_context(self, **changes: Any) -> None:
        """Some of the host context changed (``theme``, ``display_mode``, ``width``): the app is told what did."""
        before = self.context.to_json()
        for name, value in changes.items():
            setattr(self.context, name, value)
        after = self.context.to_json()
        delta = {key: value for key, value in after.items() if before.get(key) != value}
        if delta:
            self._notify("ui/notifications/host-context-changed", delta)

    async def teardown(self, reason: str, timeout: float = TEARDOWN_WAIT) -> bool:
        """Send ``ui/resource-teardown`` and wait (at most ``timeout``) for the app's answer; True when it
        answered. Only an app that is ready is asked."""
        if self.state.phase != AppPhase.READY:
            self.state.phase = AppPhase.CLOSED
            return False
        msg_id = f"host-{self._next_id}"
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        event = self._post({"jsonrpc": "2.0", "id": msg_id, "method": "ui/resource-teardown",
                            "params": {"reason": reason}})
        self._pending[id_key(msg_id)] = ("ui/resource-teardown", future, event.seq, self.clock())
        try:
            await wait_for(future, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            self._pending.pop(id_key(msg_id), None)
            self.state.phase = AppPhase.CLOSED

    # -- how the app stands ----------------------------------------------------------------------------

    @property
    def settled(self) -> bool:
        """Ready, its tool data delivered, and nothing in flight either way."""
        return (self.state.phase == AppPhase.READY and self.state.input_sent and self.state.result_sent
                and self._serving == 0 and not self._pending)

    def quiet_for(self) -> float:
        """Seconds since the app last said something or was last answered."""
        return self.clock() - self.last_activity

    def message_counts(self) -> dict[str, dict[str, int]]:
        """Messages per method, each way (``app_to_host``, ``host_to_app``)."""
        out: dict[str, dict[str, int]] = {"app_to_host": {}, "host_to_app": {}}
        for (direction, method), count in sorted(self.counts.items()):
            out["app_to_host" if direction == Direction.A2H else "host_to_app"][method] = count
        return out

