"""Local ``$ref`` resolution, shared by the tool forms and the CLI's argument typing: a JSON pointer into the
schema (``#/$defs/x``), the schema's own ``$id`` as base, and plain-name anchors (``#foo``: ``$anchor`` or a
draft-07 ``$id: "#foo"``). Anything that would need a fetch resolves to nothing: server schemas are untrusted.
"""

from __future__ import annotations

from typing import Any


def ref_target(root: Any, ref: str) -> tuple[bool, Any]:
    """``(found, schema)`` for a ``$ref`` inside ``root``; ``(False, None)`` for anything that would need a fetch."""
    base = root.get("$id") if isinstance(root, dict) and isinstance(root.get("$id"), str) else None
    if base and ref.startswith(base):
        ref = ref[len(base):] or "#"
    if not ref.startswith("#"):
        return False, None
    pointer = ref[1:]
    node: Any = root
    if pointer == "":
        return True, root
    if not pointer.startswith("/"):
        return _anchor(root, pointer)
    for raw in pointer[1:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        part = _unquote(part)
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node


def _unquote(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text) if "%" in text else text


def _anchor(root: Any, name: str) -> tuple[bool, Any]:
    """A plain-name fragment (``#foo``): the subschema whose ``$anchor`` (or draft-07 ``$id: "#foo"``) it is."""
    todo = [root]
    seen = 0
    while todo and seen < 10_000:
        node = todo.pop()
        seen += 1
        if isinstance(node, dict):
            if node.get("$anchor") == name or node.get("$id") == f"#{name}":
                return True, node
            todo.extend(node.values())
        elif isinstance(node, list):
            todo.extend(node)
    return False, None
