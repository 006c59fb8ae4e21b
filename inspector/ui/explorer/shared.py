"""What the Explorer's panel gives each of its pages (:class:`PageContext`): the session's catalog and whether it
is ready, the Explorer's tasks, its status line, the clipboard, completions, the page switcher. A page knows its
panel only through it, and no page knows another: what one page asks of another (read a resource link on the
Resources page, keep a call in the History, call again on the Tools page, keep the roots in the profile), it
says with a signal of its own that the panel connects (inspector/ui/explorer/panel.py)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from inspector.core.explore.catalog import Catalog
    from inspector.ui.explorer.widgets import CompletingField


class PageContext(Protocol):
    """The Explorer as its pages see it (:class:`~inspector.ui.explorer.panel.ExplorerPanel` fulfils it)."""

    catalog: Catalog | None  #: the session's catalog, once bound
    ready: bool  #: the handshake is done and the connection holds

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str) -> None:
        """Run ``coro`` among the Explorer's tasks (a failure is said in its status line as ``what``)."""
        ...

    def say(self, text: str, *, failure: bool = False) -> None:
        """A sentence in the Explorer's status line."""
        ...

    def copy(self, text: str) -> None:
        """``text`` to the clipboard (said)."""
        ...

    def command(self, tool: str, arguments: dict[str, Any]) -> str:
        """The ``mcp-inspector call`` line of this call to this session's server."""
        ...

    def asker(self, ask: Callable[[str], None], name: str) -> Callable[[str], None] | None:
        """What a field of argument ``name`` calls to ask for completions (None: the server declares none)."""
        ...

    def complete(self, field: CompletingField, ref: dict[str, Any], name: str, others: dict[str, str]) -> None:
        """Ask the server for completions of ``name`` and offer them in ``field``."""
        ...

    def as_task(self) -> bool:
        """Whether the user asked for the selected tool's call to run as a task."""
        ...

    def show_page(self, page: QWidget) -> None:
        """Bring ``page`` forward."""
        ...

    def follow_task_support(self, tool: dict[str, Any] | None) -> None:
        """The selected tool (listed again) may run as a task or not: the Run as task option follows it."""
        ...
