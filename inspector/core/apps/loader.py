"""Find a tool's app and read it, through the session: what a host does before it renders an app.

:func:`load_app` lists the server's tools (every page), finds the tool, takes its ``ui://`` resource from its
``_meta`` (:func:`~inspector.core.apps.meta.resource_uri`), reads it with ``resources/read`` and looks for its
``resources/list`` entry (``_meta.ui`` may be there too: "Hosts MUST check both locations"), then judges it
(:mod:`~inspector.core.apps.checks`) and builds its policy (:mod:`~inspector.core.apps.policy`). Every request is
the session's, so each is a row of the capture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from inspector.core.apps.checks import AppResource, read_resource
from inspector.core.apps.meta import resource_uri, tool_findings
from inspector.core.apps.policy import Policy, policy_of
from inspector.core.explore.listing import ListingError, list_all
from inspector.core.session.outcomes import error_text, result_of
from inspector.core.session.session import Session
from inspector.core.wire.events import Finding


class NoApp(Exception):
    """The tool has no app (or there is no such tool); ``str()`` is the sentence."""


class AppUnreadable(Exception):
    """The app's resource cannot be read (an error answer, no HTML); ``str()`` is the sentence, ``error`` the
    JSON-RPC error object when the server answered with one."""

    def __init__(self, sentence: str, error: Any = None) -> None:
        super().__init__(sentence)
        self.error = error


@dataclass
class AppSpec:
    """Everything about one tool's app before it is rendered."""

    tool: dict[str, Any]
    resource: AppResource
    policy: Policy
    tools: list[dict[str, Any]] = field(default_factory=list)  #: the server's tools (the app may call some)

    @property
    def name(self) -> str:
        return str(self.tool.get("name"))

    @property
    def findings(self) -> list[Finding]:
        """The tool's and the resource's findings, tool first."""
        return [*tool_findings(self.tool), *self.resource.findings]


async def find_tool(session: Session, name: str, timeout: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The tool ``name`` and every tool of the server; :class:`NoApp` when there is no such tool."""
    try:
        tools = (await list_all(session, "tools", timeout=timeout)).items
    except ListingError as exc:
        raise NoApp(f"the server's tools cannot be listed: {exc}") from None
    for tool in tools:
        if tool.get("name") == name:
            return tool, tools
    from inspector.core.explore.arguments import did_you_mean

    names = [str(t.get("name")) for t in tools]
    hint = did_you_mean(name, names)
    raise NoApp(f"the server has no tool named {name}" + (f"; {hint}" if hint else ""))


async def load_app(session: Session, tool: dict[str, Any], tools: list[dict[str, Any]], timeout: float) -> AppSpec:
    """Read the app of ``tool`` (one of ``tools``): :class:`NoApp` when it has none, :class:`AppUnreadable` when
    its resource cannot be read as HTML."""
    uri = resource_uri(tool)
    if uri is None:
        raise NoApp(f"the tool {tool.get('name')} has no app: its _meta names no ui:// resource "
                    "(_meta.ui.resourceUri)")
    response = await session.request("resources/read", {"uri": uri}, timeout=timeout)
    result, error = result_of(response)
    if error is not None:
        raise AppUnreadable(f"the server answered resources/read of {uri} with an error: {error_text(error)}", error)
    listing = await _listing_entry(session, uri, timeout)
    resource = read_resource(uri, result, listing)
    if not resource.html:
        first = resource.errors[0].text if resource.errors else "no HTML"
        raise AppUnreadable(f"the app {uri} has nothing to render: {first}")
    return AppSpec(tool, resource, policy_of(resource.ui_meta), tools)


async def _listing_entry(session: Session, uri: str, timeout: float) -> dict[str, Any] | None:
    """The ``resources/list`` entry of ``uri``, when the server lists resources and lists it (apps' resources
    need not be listed)."""
    capabilities = session.server.capabilities if session.server is not None else None
    if capabilities and "resources" not in capabilities:
        return None
    try:
        items = (await list_all(session, "resources", timeout=timeout)).items
    except ListingError:
        return None
    return next((item for item in items if item.get("uri") == uri), None)
