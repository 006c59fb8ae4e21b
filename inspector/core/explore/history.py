"""The explorer's call history: each tool call kept per profile, to run again, copy as a command or as JSON-RPC.

Kept in ``explorer-history.json`` in the data folder (:func:`inspector.core.paths.data_dir`): an object of
profile name -> calls, newest last, at most :data:`MAX_PER_PROFILE` each. The file is small and rewritten
atomically; one that cannot be read is left alone and counts as empty (the history is a convenience, never a
reason to fail).
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core import paths
from inspector.core.interop.copy_as import as_command

FILE_NAME = "explorer-history.json"
#: calls kept per profile: enough to find yesterday's, small enough to read at every start
MAX_PER_PROFILE = 100
#: a result summary is one line of at most this many characters
SUMMARY_CHARS = 120


@dataclass
class Call:
    """One tool call: what was called with what, a one-line result, when (epoch seconds)."""

    tool: str
    arguments: dict[str, Any]
    summary: str = ""
    at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"tool": self.tool, "arguments": self.arguments, "summary": self.summary, "at": self.at}

    @classmethod
    def from_json(cls, data: Any) -> Call | None:
        if not isinstance(data, dict) or not isinstance(data.get("tool"), str):
            return None
        arguments = data.get("arguments")
        at = data.get("at")
        return cls(data["tool"], arguments if isinstance(arguments, dict) else {},
                   s if isinstance(s := data.get("summary"), str) else "",
                   float(at) if isinstance(at, (int, float)) and not isinstance(at, bool) else 0.0)


class History:
    """The history file; every method reads it, and :meth:`add` writes it back."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else paths.data_dir() / FILE_NAME

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def calls(self, profile: str) -> list[Call]:
        """``profile``'s calls, oldest first."""
        found = self._read().get(profile)
        if not isinstance(found, list):
            return []
        return [call for item in found if (call := Call.from_json(item)) is not None]

    def add(self, profile: str, call: Call) -> None:
        """Keep ``call`` for ``profile`` (the oldest beyond :data:`MAX_PER_PROFILE` go). Raises OSError when
        the folder cannot be written."""
        data = self._read()
        kept = [c.to_json() for c in self.calls(profile)] + [call.to_json()]
        data[profile] = kept[-MAX_PER_PROFILE:]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(prefix=FILE_NAME, dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False, indent=1)
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


def summarize(result: Any, error: Any = None) -> str:
    """One line for a ``tools/call`` answer: the error, the tool error, the first text, or the content's kinds."""
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        return _line(f"error: {message}")
    if not isinstance(result, dict):
        return "(no result)"
    found = result.get("content")
    content: list[Any] = found if isinstance(found, list) else []
    texts = [b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text"
             and isinstance(b.get("text"), str)]
    others = [str(b.get("type")) for b in content if isinstance(b, dict) and b.get("type") != "text"]
    text = texts[0] if texts else ", ".join(others) or ("structured content" if "structuredContent" in result
                                                          else "(empty)")
    if texts and others:
        text += f" (+ {', '.join(others)})"
    return _line(("tool error: " if result.get("isError") is True else "") + text)


def _line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"


def command_line(tool: str, arguments: dict[str, Any], server: list[str]) -> str:
    """The ``mcp-inspector call`` line that makes the same call (:func:`inspector.core.interop.copy_as.as_command`:
    ``KEY=VALUE`` where each value reads back as itself, ``--args JSON`` for the rest). ``server``: the options
    that reach the server (``Target.command_options()``: ``--oauth`` and the like kept, secrets left out)."""
    return as_command({"method": "tools/call", "params": {"name": tool, "arguments": arguments}}, server)
