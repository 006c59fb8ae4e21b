"""What is wrong with an app's resource: its URI, mime type and content, and the shape of its ``_meta.ui``.

The rules are the extension's "UI Resource Format" and "Content Requirements"
(https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx): the URI starts
with ``ui://``, the mime type is ``text/html;profile=mcp-app``, the content is ``text`` or base64 ``blob``, an HTML5
document; ``_meta.ui`` may be on the ``resources/read`` content item or on the ``resources/list`` entry (the content
item's wins). Each problem is a :class:`~inspector.core.wire.events.Finding` (``error`` for a MUST, ``warning`` for
what works but should not be so, ``info`` for what the inspector does differently from what was asked).
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from inspector.core.apps.meta import APP_MIME_TYPE
from inspector.core.apps.policy import CSP_KEYS, PERMISSIONS
from inspector.core.wire.events import Finding

#: The keys of ``_meta.ui`` on a resource that the extension defines.
UI_RESOURCE_KEYS = ("csp", "permissions", "domain", "prefersBorder")


@dataclass
class AppResource:
    """An app's resource as read: its HTML and the metadata that governs it."""

    uri: str
    html: str = ""
    mime_type: Any = None
    #: ``_meta.ui`` in force (the content item's, else the listing entry's), and where it came from
    ui_meta: Any = None
    meta_source: str | None = None  #: ``content``, ``listing`` or None
    size: int = 0  #: bytes of the HTML (UTF-8)
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def _finding(severity: str, text: str) -> Finding:
    return Finding("app-resource", text, severity)


def read_resource(uri: str, result: Any, listing: Any = None) -> AppResource:
    """The app resource ``uri`` from a ``resources/read`` ``result`` (and its ``resources/list`` entry, if known),
    with every finding. ``html`` is empty when no content could be had (an error finding says why)."""
    resource = AppResource(uri)
    say = resource.findings.append
    if not uri.startswith("ui://"):
        say(_finding("error", f"the resource URI {uri!r} does not start with ui://"))
    contents = result.get("contents") if isinstance(result, dict) else None
    if not isinstance(contents, list) or not contents:
        say(_finding("error", f"resources/read of {uri} returned no contents"))
        return resource
    items = [c for c in contents if isinstance(c, dict)]
    item = next((c for c in items if c.get("uri") == uri), items[0] if items else None)
    if item is None:
        say(_finding("error", f"the contents of {uri} are not objects"))
        return resource
    if len(contents) > 1:
        say(_finding("warning", f"resources/read of {uri} returned {len(contents)} contents; the one with the same "
                                "URI is rendered"))
    if item.get("uri") != uri:
        say(_finding("warning", f"the content's uri is {item.get('uri')!r}, not {uri!r}"))
    resource.mime_type = item.get("mimeType")
    _check_mime(resource.mime_type, say)
    resource.html = _content(item, say)
    resource.size = len(resource.html.encode("utf-8", errors="surrogatepass"))
    if resource.html and not resource.html.lstrip("\ufeff \t\r\n").lower().startswith("<!doctype html"):
        say(_finding("warning", "the content does not start with <!DOCTYPE html>: an app must be an HTML5 document"))
    content_ui, listing_ui = _ui_of(item), _ui_of(listing)
    if content_ui is not None:
        resource.ui_meta, resource.meta_source = content_ui, "content"
        if listing_ui is not None and listing_ui != content_ui:
            say(_finding("info", "_meta.ui differs between resources/list and resources/read; the content item's "
                                 "is in force, as the extension says"))
    elif listing_ui is not None:
        resource.ui_meta, resource.meta_source = listing_ui, "listing"
    if resource.ui_meta is not None:
        resource.findings += ui_meta_findings(resource.ui_meta)
    return resource


def _ui_of(entry: Any) -> Any:
    meta = entry.get("_meta") if isinstance(entry, dict) else None
    return meta.get("ui") if isinstance(meta, dict) else None


def _check_mime(mime: Any, say: Any) -> None:
    if mime == APP_MIME_TYPE:
        return
    if not isinstance(mime, str):
        say(_finding("error", f"the content has no mimeType; an app's is {APP_MIME_TYPE}"))
    elif mime.replace(" ", "").lower() == APP_MIME_TYPE:
        say(_finding("warning", f"the mimeType is {mime!r}; exactly {APP_MIME_TYPE} is what hosts compare"))
    else:
        say(_finding("error", f"the mimeType is {mime!r}, not {APP_MIME_TYPE}"))


def _content(item: dict[str, Any], say: Any) -> str:
    text, blob = item.get("text"), item.get("blob")
    if text is not None and blob is not None:
        say(_finding("error", "the content has both text and blob; it must have one"))
    if isinstance(text, str):
        if not text.strip():
            say(_finding("error", "the content's text is empty"))
        return text
    if text is not None:
        say(_finding("error", "the content's text is not a string"))
        return ""
    if not isinstance(blob, str):
        say(_finding("error", "the content has neither text nor blob"))
        return ""
    try:
        data = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        say(_finding("error", "the content's blob is not base64"))
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        say(_finding("error", "the content's blob is not UTF-8 text"))
        return ""


def ui_meta_findings(ui: Any) -> list[Finding]:
    """What is wrong with the shape of a resource's ``_meta.ui``."""
    if not isinstance(ui, dict):
        return [_finding("error", "_meta.ui is not an object")]
    findings = [_finding("warning", f"_meta.ui has the key {key!r}, which the extension does not define (ignored)")
                for key in ui if key not in UI_RESOURCE_KEYS]
    csp = ui.get("csp")
    if csp is not None:
        if not isinstance(csp, dict):
            findings.append(_finding("error", "_meta.ui.csp is not an object"))
        else:
            findings += [_finding("warning", f"_meta.ui.csp has the key {key!r}, which the extension does not "
                                             "define (ignored)") for key in csp if key not in CSP_KEYS]
            for key in CSP_KEYS:
                value = csp.get(key)
                if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
                    findings.append(_finding("error", f"_meta.ui.csp.{key} is not a list of strings"))
    permissions = ui.get("permissions")
    if permissions is not None:
        if not isinstance(permissions, dict):
            findings.append(_finding("error", "_meta.ui.permissions is not an object"))
        else:
            for key, value in permissions.items():
                if key not in PERMISSIONS:
                    findings.append(_finding("warning", f"_meta.ui.permissions has {key!r}, which the extension does "
                                                        "not define (ignored)"))
                elif not isinstance(value, dict):
                    findings.append(_finding("error", f"_meta.ui.permissions.{key} is not an object ({{}})"))
    if "domain" in ui:
        if not isinstance(ui["domain"], str):
            findings.append(_finding("error", "_meta.ui.domain is not a string"))
        else:
            findings.append(_finding("info", f"_meta.ui.domain {ui['domain']!r} is not honoured: the inspector gives "
                                             "each app an origin of its own"))
    if "prefersBorder" in ui and not isinstance(ui["prefersBorder"], bool):
        findings.append(_finding("error", "_meta.ui.prefersBorder is not a boolean"))
    return findings
