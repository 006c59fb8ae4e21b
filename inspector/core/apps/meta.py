"""Which tools have an app, and who may call them: the tool side of MCP Apps.

A tool names its app in ``_meta.ui.resourceUri``; the older flat key ``_meta["ui/resourceUri"]`` is deprecated
but hosts must read both (https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx,
"Resource Discovery"). ``_meta.ui.visibility`` says who may call the tool: ``"model"``, ``"app"`` or both (the
default); a host refuses an app's ``tools/call`` of a tool whose visibility lacks ``"app"``.
"""

from __future__ import annotations

from typing import Any

from inspector.core.wire.events import Finding

#: The extension's identifier, in the client's ``capabilities.extensions`` (SEP-1724).
EXTENSION_ID = "io.modelcontextprotocol/ui"
#: The one content type of an app resource.
APP_MIME_TYPE = "text/html;profile=mcp-app"
#: The deprecated flat key of the resource URI on a tool.
LEGACY_RESOURCE_URI_KEY = "ui/resourceUri"
#: The revision of the app protocol (``ui/initialize``'s ``protocolVersion``) this host speaks.
APPS_PROTOCOL_VERSION = "2026-01-26"
#: Who may call a tool when its ``visibility`` says nothing.
DEFAULT_VISIBILITY = ("model", "app")
VISIBILITIES = frozenset(DEFAULT_VISIBILITY)


def client_extension() -> dict[str, Any]:
    """What the inspector declares under ``capabilities.extensions`` when it renders apps."""
    return {EXTENSION_ID: {"mimeTypes": [APP_MIME_TYPE]}}


def _meta(tool: Any) -> dict[str, Any]:
    meta = tool.get("_meta") if isinstance(tool, dict) else None
    return meta if isinstance(meta, dict) else {}


def _ui(tool: Any) -> dict[str, Any]:
    ui = _meta(tool).get("ui")
    return ui if isinstance(ui, dict) else {}


def resource_uri(tool: Any) -> str | None:
    """The ``ui://`` resource of ``tool``'s app: ``_meta.ui.resourceUri``, else the deprecated
    ``_meta["ui/resourceUri"]``; None when the tool has no app (or names it with something that is no string)."""
    for value in (_ui(tool).get("resourceUri"), _meta(tool).get(LEGACY_RESOURCE_URI_KEY)):
        if isinstance(value, str) and value:
            return value
    return None


def visibility(tool: Any) -> tuple[str, ...]:
    """Who may call ``tool``: its ``_meta.ui.visibility`` when it is a list, else ``("model", "app")``."""
    value = _ui(tool).get("visibility")
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return DEFAULT_VISIBILITY


def app_may_call(tool: Any) -> bool:
    """Whether an app may call ``tool`` through its host (``"app"`` in its visibility)."""
    return "app" in visibility(tool)


def model_may_call(tool: Any) -> bool:
    """Whether ``tool`` is the model's to call (``"model"`` in its visibility); an app-only tool is not."""
    return "model" in visibility(tool)


def tool_findings(tool: Any) -> list[Finding]:
    """What is wrong with the MCP Apps metadata of ``tool`` (none for a tool without it)."""
    findings: list[Finding] = []
    meta = _meta(tool)
    ui = meta.get("ui")
    name = tool.get("name") if isinstance(tool, dict) else None
    if ui is not None and not isinstance(ui, dict):
        findings.append(Finding("app-tool-meta", f"_meta.ui of tool {name} is not an object", "error"))
        return findings
    nested = _ui(tool).get("resourceUri")
    flat = meta.get(LEGACY_RESOURCE_URI_KEY)
    for where, value in (("_meta.ui.resourceUri", nested), (f'_meta["{LEGACY_RESOURCE_URI_KEY}"]', flat)):
        if value is not None and not isinstance(value, str):
            findings.append(Finding("app-tool-meta", f"{where} of tool {name} is not a string", "error"))
        elif isinstance(value, str) and not value.startswith("ui://"):
            findings.append(Finding("app-tool-meta", f"{where} of tool {name} is {value!r}, which is not a ui:// URI",
                                    "error"))
    if isinstance(nested, str) and isinstance(flat, str) and nested != flat:
        findings.append(Finding("app-tool-meta", f"tool {name} names two apps: _meta.ui.resourceUri {nested!r} and "
                                                 f"the deprecated _meta[\"{LEGACY_RESOURCE_URI_KEY}\"] {flat!r}; the "
                                                 "first is used", "warning"))
    elif flat is not None and nested is None:
        findings.append(Finding("app-tool-meta", f"tool {name} names its app only with the deprecated "
                                                 f"_meta[\"{LEGACY_RESOURCE_URI_KEY}\"]; use _meta.ui.resourceUri",
                                "warning"))
    value = _ui(tool).get("visibility")
    if value is not None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            findings.append(Finding("app-tool-meta", f"_meta.ui.visibility of tool {name} is not a list of strings",
                                    "error"))
        else:
            unknown = [v for v in value if v not in VISIBILITIES]
            if unknown:
                findings.append(Finding("app-tool-meta", f"_meta.ui.visibility of tool {name} has "
                                                         f"{', '.join(map(repr, unknown))}: only \"model\" and "
                                                         "\"app\" mean something", "warning"))
    return findings
