"""Tool definitions approved once, and checked again later: ``baseline save`` and ``baseline check``.

A server can change what its tools say after a person approved them (the "rug pull": a description that now
tells the model to read ~/.ssh, a schema that now takes a command). A baseline keeps a SHA-256 of each tool's
definition as the server listed it, with the definition itself, so that a check names what drifted: a tool
added, removed, or changed, and which fields inside it (``description``, ``inputSchema.properties.path``,
``annotations.destructiveHint``), found by the replay's differ.

The file (``mcp-inspector-baseline``, version 1; JSON)::

    {"format": "mcp-inspector-baseline", "version": 1, "created": ISO-8601,
     "server": {"name", "version"}, "source": "the command or URL",
     "tools": {"NAME": {"sha256": HEX, "definition": {...the tool as listed...}}}}

Prompts and resource templates are kept the same way (``"prompts"``, ``"templates"``: name or URI template ->
sha256 and definition), and the server's instructions as ``"instructions": {"sha256", "text"}`` (text null when
the server gave none); each is checked when the baseline has it and the server was listed for it (a baseline
of a window session keeps tools only; one saved before these were kept checks tools only).

The hash is over the definition's canonical JSON (keys sorted, no spaces, UTF-8), so the order in which a
server writes its members does not count; everything the server says of a tool does (``_meta`` too). A file
whose stored definition no longer has its hash was edited by hand: it is refused rather than trusted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.compare.differ import KIND_NAMES, InterfaceChange, diff_interface
from inspector.core.compare.sessions import ServerRecord, keyed

FORMAT = "mcp-inspector-baseline"
VERSION = 1
#: the kinds besides tools that a baseline keeps when they were listed
PINNED_KINDS = ("prompts", "templates")


class BaselineError(Exception):
    """A baseline file cannot be read or written; ``str()`` is a sentence."""


def tool_hash(definition: dict[str, Any]) -> str:
    """The SHA-256 of a tool definition's canonical JSON, in hex."""
    text = json.dumps(definition, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Baseline:
    """The approved tools of a server, by name."""

    tools: dict[str, dict[str, Any]]  #: name -> definition
    server_name: str | None = None
    server_version: str | None = None
    source: str = ""
    created: str = field(default_factory=lambda: dt.datetime.now().astimezone().isoformat(timespec="seconds"))
    #: the other kinds the model sees, when they were listed: prompts, templates -> key -> definition
    others: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    instructions: str | None = None
    instructions_pinned: bool = False  #: whether the instructions are kept (the handshake was seen)

    @classmethod
    def of(cls, record: ServerRecord) -> Baseline:
        """The baseline of what ``record`` listed. Raises BaselineError when it never listed its tools."""
        tools = record.interface.get("tools")
        if tools is None:
            raise BaselineError(f"{record.source} has no complete tools/list, so there is no tool to keep")
        others = {kind: dict(found) for kind in PINNED_KINDS if (found := record.interface.get(kind)) is not None}
        return cls(dict(tools), record.name, record.version, record.source, others=others,
                   instructions=record.instructions, instructions_pinned=record.instructions_known)

    def hashes(self) -> dict[str, str]:
        return {name: tool_hash(definition) for name, definition in self.tools.items()}

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION, "created": self.created,
                "server": {"name": self.server_name, "version": self.server_version}, "source": self.source,
                "tools": {name: {"sha256": tool_hash(d), "definition": d} for name, d in self.tools.items()},
                **{kind: {key: {"sha256": tool_hash(d), "definition": d} for key, d in items.items()}
                   for kind, items in self.others.items()},
                **({"instructions": {"sha256": tool_hash({"text": self.instructions}), "text": self.instructions}}
                   if self.instructions_pinned else {})}

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the file atomically. Raises BaselineError."""
        target = Path(path)
        text = json.dumps(self.to_json(), ensure_ascii=False, indent=1) + "\n"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temp, target)
        except OSError as exc:
            raise BaselineError(f"cannot write the baseline {target}: {exc.strerror or exc}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Baseline:
        """Read a baseline file. Raises BaselineError with a sentence."""
        name = os.fspath(path)
        try:
            data = json.loads(Path(name).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BaselineError(f"{name}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise BaselineError(f"{name} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
        except ValueError as exc:
            raise BaselineError(f"{name} is not JSON ({exc})") from None
        except RecursionError:  # Python's json reads about a thousand levels: the stack ends there
            raise BaselineError(f"{name} is JSON nested too deep to read") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BaselineError(f"{name} is not a tool baseline (no \"format\": \"{FORMAT}\")")
        if data.get("version") != VERSION:
            raise BaselineError(f"{name} is a baseline of version {data.get('version')!r}; this inspector reads "
                                f"version {VERSION}")
        tools = data.get("tools")
        if not isinstance(tools, dict):
            raise BaselineError(f"{name} has no \"tools\" object")
        definitions = _definitions(name, "tool", tools)
        others = {kind: _definitions(name, KIND_NAMES[kind], data[kind]) for kind in PINNED_KINDS
                  if isinstance(data.get(kind), dict)}
        pinned = data.get("instructions")
        instructions = None
        if isinstance(pinned, dict):
            instructions = _text(pinned.get("text"))
            if tool_hash({"text": instructions}) != pinned.get("sha256"):
                raise BaselineError(f"{name}: the stored instructions do not match their sha256 (the file was "
                                    "edited); save the baseline again from a server you trust")
        found = data.get("server")
        server: dict[str, Any] = found if isinstance(found, dict) else {}
        return cls(definitions, _text(server.get("name")), _text(server.get("version")),
                   _text(data.get("source")) or "", _text(data.get("created")) or "", others=others,
                   instructions=instructions, instructions_pinned=isinstance(pinned, dict))


@dataclass
class Drift:
    """How a server's tools differ from a baseline; ``changes`` empty when they do not."""

    baseline: Baseline
    record: ServerRecord
    changes: list[InterfaceChange]

    @property
    def drifted(self) -> bool:
        return bool(self.changes)

    def summary(self) -> str:
        """One sentence: ``no drift: 3 tools as approved`` or ``drift: tool echo changed (description), ...``."""
        if not self.changes:
            n = len(self.baseline.tools)
            return f"no drift: {n} tool{'' if n == 1 else 's'} as approved"
        return "drift: " + "; ".join(change.describe() for change in self.changes)

    def to_json(self) -> dict[str, Any]:
        from inspector.core.compare.report import interface_json

        return {"drifted": self.drifted, "source": self.record.source,
                "server": {"name": self.record.name, "version": self.record.version},
                "baseline": {"created": self.baseline.created, "source": self.baseline.source,
                             "tools": len(self.baseline.tools)},
                "changes": [interface_json(change) for change in self.changes]}


def check(baseline: Baseline, record: ServerRecord) -> Drift:
    """What drifted between ``baseline`` and the tools ``record`` listed (a server that declares no tools has
    none). Raises BaselineError when ``record`` never listed its tools."""
    tools = record.interface.get("tools")
    if tools is None:
        raise BaselineError(f"{record.source} has no complete tools/list to check")
    approved = baseline.hashes()
    now = {name: tool_hash(definition) for name, definition in tools.items()}
    changes = [] if approved == now else diff_interface("tools", baseline.tools, tools)
    for kind, items in baseline.others.items():
        listed = record.interface.get(kind)
        if listed is not None:
            changes += diff_interface(kind, items, listed)
    if baseline.instructions_pinned and record.instructions_known and baseline.instructions != record.instructions:
        changes += diff_interface("instructions", {"instructions": {"text": baseline.instructions}},
                                  {"instructions": {"text": record.instructions}})
    return Drift(baseline, record, changes)


def record_of_tools(tools: list[dict[str, Any]], source: str, name: str | None = None,
                    version: str | None = None) -> ServerRecord:
    """A record holding only a tools list (the window's live session, a test)."""
    return ServerRecord(source, name, version, interface={"tools": keyed("tools", tools)})


def _definitions(name: str, what: str, entries: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The definitions of a kept kind, each checked against its sha256. Raises BaselineError."""
    definitions: dict[str, dict[str, Any]] = {}
    for key, entry in entries.items():
        definition = entry.get("definition") if isinstance(entry, dict) else None
        digest = entry.get("sha256") if isinstance(entry, dict) else None
        if not isinstance(definition, dict) or not isinstance(digest, str):
            raise BaselineError(f"{name}: the {what} {key!r} has no definition and sha256")
        if tool_hash(definition) != digest:
            raise BaselineError(f"{name}: the stored definition of {key!r} does not match its sha256 (the file "
                                "was edited); save the baseline again from a server you trust")
        definitions[key] = definition
    return definitions


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
