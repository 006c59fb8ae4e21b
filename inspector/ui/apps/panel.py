"""The Apps tab of a live session: the app of the last tool called that has one, rendered, with its policy.

When a tool call made from the Explorer (or anything that calls through the session's catalog) comes back and
the tool has an app (``_meta.ui.resourceUri``), the tab reads the app's resource and renders it
(:class:`~inspector.ui.apps.run.AppRun`), gives it the call's input and result, and shows beside it the policy
requested, effective and blocked, the resource's checks and what the app said (:mod:`policy_view`). The app's
messages are rows of the timeline (the ``app`` lane). A link the app asks to open is opened only after the
person says yes; a device permission it declared is asked for the same way. Fullscreen (the button, or the app
asking with ``ui/request-display-mode``) shows the app in a window of its own; Escape brings it back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from inspector.core.apps.host import HostContext, system_locale, system_time_zone
from inspector.core.apps.loader import AppUnreadable, NoApp, load_app
from inspector.core.apps.meta import resource_uri
from inspector.core.apps.sandbox import sandbox_refusal, unsandboxed_sentence
from inspector.core.explore.catalog import Catalog, Notice
from inspector.core.notices import What
from inspector.core.session.outcomes import result_of
from inspector.core.sizes import DEFAULT_MAX_MESSAGE
from inspector.core.tasks import Tasks
from inspector.core.transports.base import TransportError
from inspector.core.urls import url_refusal
from inspector.core.wire.events import Event
from inspector.ui.apps.policy_view import PolicyView

#: What the app's frame may grow to, inline.
MAX_HEIGHT = 4000
#: At close, how long the app's teardown may take.
CLOSE_GRACE = 3.0
PLACEHOLDER = ("No app yet. Call a tool that has an MCP App (its _meta.ui.resourceUri) from the Explorer: its app "
               "is rendered here, sandboxed, with the policy its resource declares.")


async def _message_box(parent: QWidget, title: str, text: str) -> bool:
    """Ask a yes/no question without blocking the event loop; True for yes."""
    import asyncio

    box = QMessageBox(QMessageBox.Icon.Question, title, "", QMessageBox.StandardButton.Yes
                      | QMessageBox.StandardButton.No, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)  # an app's URL is shown as typed, never as markup
    box.setText(text)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    def answered(code: int) -> None:
        if not answer.done():
            answer.set_result(code == QMessageBox.StandardButton.Yes)

    box.finished.connect(answered)
    box.open()
    try:
        return await answer
    finally:
        box.deleteLater()


def _system_browser(url: str) -> bool:
    from inspector.ui import oauth

    return bool(oauth.open_in_browser(url))


#: Replaceable by tests: how a question is put to the person, and how a link is opened.
ask_user: Callable[[QWidget, str, str], Awaitable[bool]] = _message_box
open_link_in_browser: Callable[[str], bool] = _system_browser


class FullscreenHolder(QWidget):
    """A window of its own for an app in fullscreen mode; Escape, or closing it, asks for inline again."""

    leave = Signal()

    def __init__(self) -> None:
        super().__init__(None, Qt.WindowType.Window)
        self.setWindowTitle("MCP App")
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.leave.emit)

    def closeEvent(self, event: Any) -> None:  # Qt names it
        self.leave.emit()
        event.ignore()


class AppsPanel(QWidget):
    """The Apps tab of one live session, working through its catalog."""

    #: a sentence for the tab's status line, and whether it says something failed
    said = Signal(str, bool)
    #: an app is being rendered: the tab brings this panel forward (it was left behind another side tab) and
    #: gives it room; ``app_ended`` when it is over
    rendering = Signal()
    app_ended = Signal()

    def __init__(self, catalog: Catalog, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.catalog = catalog
        self.session = catalog.session
        self.tasks = Tasks(report=lambda sentence: self.say(sentence, failure=True))
        self.run: Any = None  #: the AppRun shown, if any
        self.count = 0  #: apps opened in this session (each app's number)
        self.max_message = DEFAULT_MAX_MESSAGE  #: the session's --max-message: its apps' messages are bound by it
        self.fullscreen: FullscreenHolder | None = None
        self.status = QLabel(PLACEHOLDER, self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setWordWrap(True)
        # wrapped to the width the buttons leave: it never widens the tab past a small screen (issue 39)
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.fullscreen_button = QPushButton("Fullscreen", self)
        self.fullscreen_button.setCheckable(True)
        self.fullscreen_button.toggled.connect(self._fullscreen_toggled)
        self.close_button = QPushButton("Close app", self)
        self.close_button.clicked.connect(lambda: self.tasks.spawn(self.close_app("closed by the user"),
                                                                   "closing the app"))
        buttons = QHBoxLayout()
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.fullscreen_button)
        buttons.addWidget(self.close_button)
        self.stage = QStackedWidget(self)
        self.placeholder = QLabel("", self.stage)
        self.holder = QWidget(self.stage)
        self.holder_box = QVBoxLayout(self.holder)
        self.holder_box.setContentsMargins(0, 0, 0, 0)
        self.stage.addWidget(self.placeholder)
        self.stage.addWidget(self.holder)
        self.policy = PolicyView(self)
        self.split = split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.stage)
        split.addWidget(self.policy)
        split.setStretchFactor(0, 3)  # the app gets most of the room the tab has, the policy the rest
        split.setStretchFactor(1, 1)
        split.setSizes([420, 220])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(buttons)
        layout.addWidget(split, 1)
        self._buttons()
        catalog.listeners.append(self._notice)

    def say(self, text: str, *, failure: bool = False) -> None:
        self.status.setText(text)
        self.said.emit(text, failure)

    def _buttons(self) -> None:
        live = self.run is not None and not self.run.closed
        self.fullscreen_button.setEnabled(live)
        self.close_button.setEnabled(live)

    # -- opening an app --------------------------------------------------------------------------------

    def _notice(self, notice: Notice) -> None:
        if notice.what != What.CALLED or not isinstance(notice.data, dict):
            return
        tool = self.catalog.find("tools", str(notice.data.get("name")))
        if tool is not None and resource_uri(tool) is not None:
            self.tasks.spawn(self.open(tool, notice.data.get("arguments") or {}, notice.data["response"]),
                             f"opening the app of {tool.get('name')}")

    async def open(self, tool: dict[str, Any], arguments: dict[str, Any], response: Event) -> None:
        """Render the app of ``tool``, called with ``arguments``, answered with ``response``."""
        refusal = sandbox_refusal()
        if refusal is not None:
            self.say(f"The app of {tool.get('name')} is not shown: {refusal}.", failure=True)
            return
        await self.close_app("another app was opened")
        self.say(f"reading the app of {tool.get('name')}…")
        try:
            spec = await load_app(self.session, tool, self.catalog.items.get("tools", []), self.catalog.timeout)
        except (NoApp, AppUnreadable, TransportError) as exc:
            self.say(f"The app of {tool.get('name')} cannot be shown: {exc}", failure=True)
            return
        try:
            from inspector.ui.apps.run import AppRun
        except ImportError as exc:  # a build without Qt WebEngine (the frozen app leaves it out)
            self.say(f"The app of {tool.get('name')} cannot be shown: this build of mcp-inspector has no Qt "
                     f"WebEngine ({exc}).", failure=True)
            return
        self.count += 1
        context = HostContext(theme=self._theme(), width=max(320, self.holder.width() or self.width()),
                              max_height=MAX_HEIGHT, locale=system_locale(), time_zone=system_time_zone())
        call_id = response.rpc.id if response.rpc is not None else None
        run = AppRun(self.session, spec, arguments, self.count, context=context, timeout=self.catalog.timeout,
                     call_id=call_id, open_link=self._open_link, ask_permission=self._ask_permission,
                     max_message=self.max_message, parent=self)
        self.run = run
        run.changed.connect(self._refresh)
        run.ended.connect(lambda why: self._ended(run, why))
        run.display_mode.connect(self._display_mode)
        self.holder_box.addWidget(run.view)
        self.stage.setCurrentWidget(self.holder)
        self.rendering.emit()
        QTimer.singleShot(0, self._share_room)  # once the room the tab gives is laid out
        run.start()
        result, error = result_of(response)
        if error is not None:
            run.host.tool_failed(error)
        else:
            run.host.tool_result(result)
        self._refresh()

    def _share_room(self) -> None:
        """Three quarters of the panel's height for the app, a quarter for its policy (sizes set before the
        panel was first shown were kept as they were given, and both panes opened a few lines high)."""
        total = sum(self.split.sizes()) or self.split.height()
        if total > 0:
            self.split.setSizes([total * 3 // 4, total - total * 3 // 4])

    def _theme(self) -> str:
        return "dark" if QApplication.palette().color(QPalette.ColorRole.Base).lightness() < 128 else "light"

    def _refresh(self) -> None:
        run = self.run
        self._buttons()
        if run is None:
            return
        state = run.host.state
        blocked = [b for b in run.blocked if b.request]
        text = f"app {run.number}: {run.spec.resource.uri} of {run.spec.name}, {state.phase}"
        if blocked:
            text += f"; {len(blocked)} request{'s' if len(blocked) != 1 else ''} blocked"
        if run.closed:
            text += " (closed)"
        unsandboxed = unsandboxed_sentence()
        if unsandboxed:  # the user turned the sandbox off: the tab keeps saying so
            text += f"; {unsandboxed}"
        self.status.setText(text)
        self.policy.show_policy(run.spec.policy, run.blocked)
        self.policy.show_checks(run.spec.findings, run.spec.policy.csp())
        self.policy.show_said(state)

    def _ended(self, run: Any, why: str) -> None:
        if run is not self.run:
            return
        self._leave_fullscreen()
        self._refresh()
        self.say(f"app {run.number} ended: {why}", failure=run.crash is not None)
        self.app_ended.emit()

    # -- asking the person -----------------------------------------------------------------------------

    async def _open_link(self, url: str) -> tuple[bool, str]:
        refusal = url_refusal(url)
        if refusal is not None:
            return False, refusal
        if not await ask_user(self, "Open a link?", f"The app asks to open this link in your browser:\n\n{url}\n\n"
                                                     "Open it?"):
            return False, "the user said no"
        if not open_link_in_browser(url):
            return False, "no browser could be started"
        return True, "the user said yes"

    async def _ask_permission(self, name: str) -> bool:
        return await ask_user(self, "Allow the app?", f"The app asks for {name}, which its resource declares. "
                                                      "Allow it?")

    # -- display modes ---------------------------------------------------------------------------------

    def _display_mode(self, mode: str) -> None:
        """The app asked for ``mode`` and the host granted it: show it so."""
        self.fullscreen_button.blockSignals(True)
        self.fullscreen_button.setChecked(mode == "fullscreen")
        self.fullscreen_button.blockSignals(False)
        self._enter_fullscreen() if mode == "fullscreen" else self._leave_fullscreen()

    def _fullscreen_toggled(self, on: bool) -> None:
        """The person chose: the app is told (``ui/notifications/host-context-changed``)."""
        if self.run is None or self.run.closed:
            return
        self._enter_fullscreen() if on else self._leave_fullscreen()
        self.run.host.change_context(display_mode="fullscreen" if on else "inline")

    def _enter_fullscreen(self) -> None:
        if self.run is None or self.fullscreen is not None:
            return
        self.fullscreen = FullscreenHolder()
        self.fullscreen.leave.connect(lambda: self.fullscreen_button.setChecked(False))
        self.fullscreen.box.addWidget(self.run.view)
        self.run.view.fill()
        self.fullscreen.showFullScreen()

    def _leave_fullscreen(self) -> None:
        if self.fullscreen is None:
            return
        holder, self.fullscreen = self.fullscreen, None
        if self.run is not None and not self.run.view.disposed:
            self.holder_box.addWidget(self.run.view)
            size = self.run.host.state.size or {}
            height = size.get("height")
            if isinstance(height, (int, float)) and height > 0:
                self.run.view.set_content_height(min(int(height), MAX_HEIGHT))
        holder.hide()
        holder.deleteLater()
        self.fullscreen_button.setChecked(False)

    # -- ending ----------------------------------------------------------------------------------------

    async def close_app(self, reason: str) -> None:
        """Tear the app shown down (``ui/resource-teardown``, recorded), if there is one."""
        run = self.run
        if run is None or run.closed:
            return
        self._leave_fullscreen()
        await run.close(reason)
        self.stage.setCurrentWidget(self.placeholder)
        self.placeholder.setText(f"app {run.number} closed: {reason}")
        self._refresh()

    async def close(self) -> None:  # type: ignore[override]  # not QWidget.close: ends the app first
        """Before the session closes: the app is torn down while its messages can still be recorded."""
        if self._notice in self.catalog.listeners:
            self.catalog.listeners.remove(self._notice)
        from inspector.core.waiting import wait_for

        try:
            await wait_for(self.close_app("the session is closing"), CLOSE_GRACE)
        except TimeoutError:
            pass
        await self.tasks.wait(CLOSE_GRACE)
