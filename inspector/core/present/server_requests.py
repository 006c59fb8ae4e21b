"""A request the server sent the client, in words for the window's Server requests panel: one line of what it
asks for (:func:`summary`: the last message of a sampling request, an elicitation's message and fields, roots)
and how long it has waited (:func:`waited`). No Qt.
"""

from __future__ import annotations

import json
from typing import Any

#: A list row's summary is cut to this many characters.
SUMMARY_CHARS = 160


def summary(method: str, params: Any) -> str:
    """One line saying what the server asks for."""
    params = params if isinstance(params, dict) else {}
    if method == "sampling/createMessage":
        messages = params.get("messages") if isinstance(params.get("messages"), list) else []
        last = text_of(messages[-1].get("content")) if messages and isinstance(messages[-1], dict) else ""
        tokens = params.get("maxTokens")
        text = f"“{last}”" if last else f"{len(messages)} message{'s' if len(messages) != 1 else ''}"
        return one_line(text + (f" · max {tokens} tokens" if isinstance(tokens, int) else ""))
    if method == "elicitation/create":
        message = params.get("message") if isinstance(params.get("message"), str) else ""
        if params.get("mode") == "url":
            return one_line(f"open {params.get('url')} · {message}")
        schema = params.get("requestedSchema") if isinstance(params.get("requestedSchema"), dict) else {}
        fields = list(schema.get("properties") or {}) if isinstance(schema.get("properties"), dict) else []
        return one_line(f"{message} · fields: {', '.join(fields)}" if fields else message)
    if method == "roots/list":
        return "the client's root directories"
    if not params:
        return ""
    return one_line(json.dumps(params, ensure_ascii=False))


def text_of(content: Any) -> str:
    """The text of a content block or a list of them (``[image]`` for a block that is not text)."""
    if isinstance(content, dict):
        return text if content.get("type") == "text" and isinstance(text := content.get("text"), str) \
            else f"[{content.get('type')}]"
    if isinstance(content, list):
        return " ".join(text_of(block) for block in content)
    return ""


def one_line(text: str, limit: int = SUMMARY_CHARS) -> str:
    """``text`` on one line (its white space folded), cut to ``limit`` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def waited(seconds: float) -> str:
    """How long a request has waited: ``42 s``, ``3 min 5 s``, ``1 h 2 min``."""
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
