"""The official MCP extensions the inspector speaks, and the methods each adds to a revision that has extensions.

An extension is negotiated through ``capabilities.extensions`` (2026-07-28, SEP-2133): a server that declares
one serves its methods, which no core revision's schema defines. The protocol judge does not call those methods
foreign to the revision when the server declared their extension.

* ``io.modelcontextprotocol/tasks`` (SEP-2663): ``tasks/get``, ``tasks/update``, ``tasks/cancel``,
  ``notifications/tasks`` (:mod:`inspector.core.explore.tasks`);
* ``io.modelcontextprotocol/skills`` (SEP-2640): ``skills/list``, ``skills/get``, ``resources/directory/read``
  (:mod:`inspector.core.skills`).
"""

from __future__ import annotations

from typing import Any

TASKS = "io.modelcontextprotocol/tasks"
SKILLS = "io.modelcontextprotocol/skills"
#: extension -> the methods it adds
METHODS: dict[str, frozenset[str]] = {
    TASKS: frozenset({"tasks/get", "tasks/update", "tasks/cancel", "notifications/tasks"}),
    SKILLS: frozenset({"skills/list", "skills/get", "resources/directory/read"}),
}


def declared(capabilities: Any, extension: str) -> dict[str, Any] | None:
    """The settings of ``extension`` in ``capabilities.extensions`` (``{}`` when declared without any), or None."""
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    settings = extensions.get(extension) if isinstance(extensions, dict) else None
    return settings if isinstance(settings, dict) else None


def extension_methods(capabilities: Any) -> frozenset[str]:
    """Every method of the extensions ``capabilities`` declare."""
    found: set[str] = set()
    for extension, methods in METHODS.items():
        if declared(capabilities, extension) is not None:
            found |= methods
    return frozenset(found)
