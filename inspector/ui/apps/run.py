"""One app of a session: the view that renders it, the core host that speaks for the inspector, the session
that records all of it.

:class:`AppRun` wires an :class:`~inspector.ui.apps.view.AppView` to an :class:`~inspector.core.apps.host.AppHost`:
the app's messages go to the host, the host's go to the app, and every one is an ``app`` event of the session
(:mod:`inspector.core.wire.app_lane`). A request the app sends to the server goes out through the session with
``data.app`` and ``data.app_request`` (the seq of the app's request) on its row: the timeline shows which app
request caused it. What the policy blocked, the app's console, a crash and the end are ``app`` events too.
The window's Apps tab and ``mcp-inspector app`` both use it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWebEngineCore import QWebEnginePermission

from inspector.core.apps.hints import hint_reason, refuse_hints
from inspector.core.apps.host import AppHost, HostContext, HostPorts
from inspector.core.apps.loader import AppSpec
from inspector.core.apps.report import NAVIGATIONS, UNNAMED_NAVIGATION, Blocked, shown_url
from inspector.core.apps.sandbox import unsandboxed_sentence
from inspector.core.session.session import Session
from inspector.core.sizes import DEFAULT_MAX_MESSAGE, format_size
from inspector.core.tasks import Tasks
from inspector.core.waiting import wait_for
from inspector.core.wire import app_lane as lane
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Finding, Kind
from inspector.core.wire.ids import id_key
from inspector.ui.apps.view import AppView

#: The console lines of one app that are recorded; later ones are counted, not kept.
MAX_CONSOLE_EVENTS = 500
#: The console errors kept for the report.
MAX_CONSOLE_ERRORS = 10
#: The longest console line kept whole.
MAX_CONSOLE_CHARS = 2000
_P = QWebEnginePermission.PermissionType
#: Browser permissions and the ``_meta.ui.permissions`` key that may grant each.
PERMISSION_KEYS = {_P.MediaVideoCapture: ("camera",), _P.MediaAudioCapture: ("microphone",),
                   _P.MediaAudioVideoCapture: ("camera", "microphone"), _P.Geolocation: ("geolocation",),
                   _P.ClipboardReadWrite: ("clipboardWrite",)}

#: What a CSP violation's ``blockedURI`` is when no URL was to be loaded: code the policy refused to run.
CODE_VIOLATIONS = {"eval": "eval() or new Function", "wasm-eval": "WebAssembly compilation",
                   "inline": "inline script, style or event handler", "trusted-types-sink": "string in a DOM sink",
                   "trusted-types-policy": "Trusted Types policy"}

OpenLink = Callable[[str], Awaitable[tuple[bool, str]]]
AskPermission = Callable[[str], Awaitable[bool]]


def oversize_reason(size: int, limit: int) -> str:
    """Why a message of the app was not passed on (as a server's line over the limit is said)."""
    return (f"a message of {size:,} bytes is over the size limit ({format_size(limit)} per message); it was not "
            "passed on and only its size is kept")


async def _headless_link(url: str) -> tuple[bool, str]:
    return False, "mcp-inspector app runs headless and opens no link"


class AppRun(QObject):
    """App number ``number`` of ``session``: ``spec`` rendered for a call of its tool with ``arguments``."""

    #: something the Apps tab shows changed (the app's state, a block, a message)
    changed = Signal()
    #: the app is gone: why (its renderer ended, or it was closed)
    ended = Signal(str)
    #: the app asked for this display mode and got it (``inline`` or ``fullscreen``)
    display_mode = Signal(str)
    #: the app's content is this many pixels tall now (inline; what its frame was made)
    sized = Signal(int)

    def __init__(self, session: Session, spec: AppSpec, arguments: dict[str, Any], number: int, *,
                 context: HostContext, timeout: float, call_id: Any = None, open_link: OpenLink | None = None,
                 ask_permission: AskPermission | None = None, max_message: int = DEFAULT_MAX_MESSAGE,
                 parent: QObject | None = None) -> None:
        """``max_message``: the largest message of the app passed on and recorded whole (``--max-message``, as
        for the server's); a longer one is counted and recorded as its size only."""
        super().__init__(parent)
        self.max_message = max_message
        self.oversize: list[int] = []  #: the size in bytes of each message of the app over ``max_message``
        self.session = session
        self.spec = spec
        self.number = number
        self.timeout = timeout
        self.ask_permission = ask_permission
        self.blocked: list[Blocked] = []
        self.console_errors: list[str] = []
        self.console_lines = 0
        self.crash: str | None = None
        self.hung = False  #: its renderer stopped responding
        self._navigating = ""  #: where the app's frame last set out for (to name a navigation the CSP refuses)
        self.closed = False
        self.tasks = Tasks()
        self._marks: dict[Any, int] = {}  # session request id -> the app request it carries
        self._activity: list[Callable[[], None]] = []
        ui = spec.resource.ui_meta if isinstance(spec.resource.ui_meta, dict) else {}
        html, self.hints = refuse_hints(spec.resource.html)  # connections no policy would see: never opened
        self.view = AppView(html, spec.policy, title=spec.resource.uri, theme=context.theme,
                            border=ui.get("prefersBorder") is True, max_message=max_message)
        ports = HostPorts(post=self.view.post, record=self._record, request=self._request,
                          open_link=open_link or _headless_link, display_mode=self.display_mode.emit,
                          size=self._size, teardown_requested=self._teardown_requested)
        self.host = AppHost(number, spec.tool, arguments, spec.policy, ports, tools=spec.tools, context=context,
                            call_id=call_id)
        self.view.message.connect(self.host.receive)
        self.view.sandbox_said.connect(self._sandbox_said)
        self.view.navigation.connect(self._navigation)
        self.view.blocked.connect(lambda url, use, reason: self._blocked(url, use, "host", reason))
        self.view.console.connect(self._console)
        self.view.crashed.connect(self._crashed)
        self.view.permission_asked.connect(self._permission)
        session.annotators.append(self._annotate)

    # -- the session -----------------------------------------------------------------------------------

    def _record(self, event: Event) -> Event:
        self.session.record(event)
        for wake in list(self._activity):
            wake()
        self.changed.emit()
        return event

    async def _request(self, method: str, params: Any, app_request: int) -> Event:
        msg_id = self.session.next_id()
        self._marks[id_key(msg_id)] = app_request
        try:
            return await self.session.request(method, params, msg_id=msg_id, timeout=self.timeout)
        finally:
            self._marks.pop(id_key(msg_id), None)

    def _annotate(self, events: list[Event]) -> None:
        """The requests the app caused carry its number and its request's seq (before they are saved)."""
        if not self._marks:
            return
        for event in events:
            rpc = event.rpc
            if event.kind == Kind.MESSAGE and event.dir == Direction.C2S and rpc is not None \
                    and rpc.kind == jsonrpc.REQUEST:
                app_request = self._marks.get(id_key(rpc.id))
                if app_request is not None:
                    event.put(app=self.number, app_request=app_request)

    # -- the app ---------------------------------------------------------------------------------------

    def start(self) -> None:
        """Record what is rendered under which policy, then load it."""
        policy = self.spec.policy
        self._record(lane.happening(
            lane.RENDERED, self.number, findings=self.spec.findings, resource=self.spec.resource.uri,
            tool=self.spec.name, origin=self.view.origin, csp=policy.csp(), effective=policy.effective(),
            permissions=list(policy.permissions), dropped=[d.to_json() for d in policy.dropped],
            sandbox="off" if unsandboxed_sentence() else "on"))
        for hint in self.hints:
            self._blocked(shown_url(hint.href) or f"a <link rel={hint.rel}>", hint.rel, "host",
                          hint_reason(hint.rel))
        self.view.load()

    def _blocked(self, url: str, use: str, by: str, reason: str) -> None:
        blocked = Blocked(url, use, by, reason)
        text = f"the app tried to reach {url}: {reason}" if blocked.request else f"the app's {url} code: {reason}"
        finding = Finding("app-blocked", text, "warning" if blocked.request else "info")
        event = self._record(lane.happening(lane.BLOCKED, self.number, findings=[finding], url=url, use=use, by=by,
                                            reason=reason))
        blocked.t = event.t
        self.blocked.append(blocked)
        self.changed.emit()

    def _sandbox_said(self, kind: str, text: str) -> None:
        if kind == "violation":
            try:
                detail = json.loads(text)
            except ValueError:
                detail = {}
            detail = detail if isinstance(detail, dict) else {}
            directive = str(detail.get("effectiveDirective") or detail.get("violatedDirective") or "")
            url = str(detail.get("blockedURI") or "")
            if not url and directive in NAVIGATIONS:  # Chromium names no data: or blob: URL: the app's did
                url = shown_url(self._navigating) if self._navigating else UNNAMED_NAVIGATION
            if url in CODE_VIOLATIONS:  # not a request: code the CSP refused to run (libraries probe for eval)
                reason = f"the Content-Security-Policy's {directive} allows no {CODE_VIOLATIONS[url]}"
            else:
                reason = f"the Content-Security-Policy's {directive} does not allow it"
            self._blocked(url, directive, "browser", reason)
        elif kind == "oversize":
            size = int(text) if text.isdigit() else self.max_message + 1
            self.oversize.append(size)
            self.host.last_activity = self.host.clock()  # the app is talking: not idle while it floods
            reason = oversize_reason(size, self.max_message)
            finding = Finding("app-oversize", reason, "warning")
            self._record(lane.happening(lane.OVERSIZE, self.number, findings=[finding], total_bytes=size,
                                        limit=self.max_message, reason=reason))
        else:
            self._record(lane.happening(lane.CONSOLE, self.number, level="error",
                                        text=f"the bridge could not pass on a message that is not JSON ({text})"))

    def _navigation(self, text: str) -> None:
        """The app's frame set out for another document: one to content the page made up (``data:``, ``blob:``)
        was refused before it started; another is remembered, to name it when the CSP refuses it."""
        try:
            detail = json.loads(text)
        except ValueError:
            return
        if not isinstance(detail, dict) or not isinstance(detail.get("url"), str):
            return
        url = detail["url"]
        if detail.get("refused") is True:
            scheme = url.split(":", 1)[0].lower()
            self._blocked(shown_url(url), "navigation", "host", f"an app's frame may not be navigated to a {scheme}: "
                                                               "URL")
        else:
            self._navigating = url

    def _console(self, level: str, text: str, line: int, source: str) -> None:
        self.console_lines += 1
        if level == "error" and len(self.console_errors) < MAX_CONSOLE_ERRORS:
            self.console_errors.append(text[:MAX_CONSOLE_CHARS])
        if self.console_lines <= MAX_CONSOLE_EVENTS:
            self._record(lane.happening(lane.CONSOLE, self.number, level=level, text=text[:MAX_CONSOLE_CHARS],
                                        line=line, source=source))
        elif self.console_lines == MAX_CONSOLE_EVENTS + 1:
            self.session.note(f"app {self.number} wrote more than {MAX_CONSOLE_EVENTS} console lines; the rest "
                              "are not recorded")

    def _crashed(self, why: str) -> None:
        self.crash = why
        self._record(lane.happening(lane.CRASHED, self.number, reason=why))
        self.ended.emit(f"the app's renderer ended: {why}")

    def unresponsive(self, why: str) -> None:
        """The app's renderer answers nothing (recorded; the host does not wait for it to tear down)."""
        self.hung = True
        self._record(lane.happening(lane.UNRESPONSIVE, self.number, reason=why))

    def _teardown_requested(self) -> None:
        self.tasks.spawn(self.close("the app asked to be torn down"), "closing the app")

    def _size(self, width: Any, height: Any) -> None:
        if isinstance(height, (int, float)) and not isinstance(height, bool) and height > 0 \
                and self.host.context.display_mode == "inline":
            shown = min(int(height), self.host.context.max_height)
            self.view.set_content_height(shown)
            self.sized.emit(shown)

    def _permission(self, permission: QWebEnginePermission) -> None:
        keys = PERMISSION_KEYS.get(permission.permissionType(), ())
        name = permission.permissionType().name
        declared = bool(keys) and all(k in self.spec.policy.permissions for k in keys)
        if not declared or self.ask_permission is None:
            permission.deny()
            reason = "the resource does not declare it" if not declared else "this host grants no device"
            self._record(lane.happening(lane.PERMISSION, self.number, permission=name, granted=False, reason=reason))
            return
        self.tasks.spawn(self._ask(permission, name), f"asking about {name}")

    async def _ask(self, permission: QWebEnginePermission, name: str) -> None:
        assert self.ask_permission is not None
        granted = await self.ask_permission(name)
        (permission.grant if granted else permission.deny)()
        self._record(lane.happening(lane.PERMISSION, self.number, permission=name, granted=granted,
                                    reason="asked the user"))

    # -- waiting and ending ----------------------------------------------------------------------------

    async def until(self, condition: Callable[[], bool], timeout: float, poll: float = 0.05) -> bool:
        """Wait until ``condition()`` holds (checked at each thing the app does, and every ``poll`` s: some
        conditions are about time), at most ``timeout`` seconds; whether it held."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        woken = asyncio.Event()
        self._activity.append(woken.set)
        try:
            while not condition():
                left = end - loop.time()
                if left <= 0 or self.crash is not None:
                    return condition()
                woken.clear()
                try:
                    await wait_for(woken.wait(), min(poll, left))
                except TimeoutError:
                    pass
            return True
        finally:
            self._activity.remove(woken.set)

    async def close(self, reason: str) -> None:
        """Tear the app down: ``ui/resource-teardown`` (answered or not), then the view; recorded."""
        if self.closed:
            return
        self.closed = True
        if self.crash is None and not self.hung:
            await self.host.teardown(reason)
        self._record(lane.happening(lane.CLOSED, self.number, reason=reason))
        if self._annotate in self.session.annotators:
            self.session.annotators.remove(self._annotate)
        self.view.dispose()
        self.ended.emit(reason)
