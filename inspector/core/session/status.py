"""The status line's sentence for what a window tab shows: a live session (its state, the server, the counts), a
live tap, or an opened capture. The wording lives here, beside the session, so the widget only shows it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from inspector.core.present.describe import target_words
from inspector.core.session.outcomes import ServerInfo
from inspector.core.text import counted


def live_status(state: str, sentence: str, info: ServerInfo | None, counts: Mapping[str, int],
                extra: str | None = None, paused: int = 0) -> str:
    """A live session: ``state`` (with ``sentence`` when it needs saying), how many messages wait at a breakpoint
    (``paused``, when any), the server's name, version, revision and capabilities once known, the session's counts
    (``c2s``, ``s2c``, ``framing_errors``, ``cut_by_stop``, ``findings``, ``stderr``) and ``extra`` last (what the
    live OTLP export is doing)."""
    parts = [f"{state}: {sentence}" if sentence else state]
    if paused:
        parts.append(f"{counted(paused, 'message')} paused at a breakpoint")
    if info is not None:
        name = " ".join(x for x in (info.name, info.version) if x)
        if name:
            parts.append(name)
        if info.protocol_version:
            parts.append(f"{info.protocol_version} ({info.era})")
        if info.capabilities:
            parts.append(", ".join(sorted(info.capabilities)))
    parts.append(f"{counts['c2s'] + counts['s2c']:,} messages ({counts['s2c']:,} in / {counts['c2s']:,} out)")
    if counts["framing_errors"]:
        parts.append(counted(counts["framing_errors"], "framing error"))
    if counts["cut_by_stop"]:  # ours, not the server's: the server was still writing when it was stopped
        parts.append("its last line cut by the stop")
    if counts["findings"]:
        parts.append(counted(counts["findings"], "protocol finding"))
    if counts["stderr"]:
        parts.append(counted(counts["stderr"], "stderr line"))
    if extra is not None:
        parts.append(extra)
    return " · ".join(parts)


def tap_status(hello: Mapping[str, Any], state: str, events: int, paused: int = 0) -> str:
    """A live tap, from the ``hello`` it sent (its name, target and capture): only the client drives it; how many
    of its messages wait at a breakpoint (``paused``), when any."""
    what = target_words(hello.get("target") or {}) or "?"
    waiting = f"{counted(paused, 'message')} paused at a breakpoint · " if paused else ""
    if hello.get("role") == "serve":  # mcp-inspector serve --live: the twin of a capture answers the client
        kept = f"capture {hello['capture']}" if hello.get("capture") else "not recorded (no --out)"
        return (f"serve {hello.get('name', '?')} ({state}) · read-only: the client drives, the capture answers · "
                f"{hello.get('serving')} · {events:,} events · {kept}")
    return (f"tap {hello.get('name', '?')} ({state}) · read-only: the client drives · {waiting}{what} · "
            f"{events:,} events · capture {hello.get('capture')}")


def tap_ended_state(end: Mapping[str, Any] | None, hello: Mapping[str, Any]) -> str:
    """How a tap's state reads once it ended (``end``: its last word, None when it went away without one)."""
    if end is None:
        return "the tap went away without saying how the server ended"
    if hello.get("role") == "serve":
        return "ended: the client closed the session"
    if (hello.get("target") or {}).get("url"):
        return "ended: the tap was stopped"  # an HTTP tap: no server process of its own
    return f"ended: the server exited with {end.get('exit')}"


def tap_dropped(dropped: int) -> str:
    """What follows a tap's status when the window could not keep up with its events."""
    return f" · {dropped:,} events were too fast for the window (all are in the capture)" if dropped else ""


def capture_status(path: Path | None, state: str, events: int, loading: bool, header: Mapping[str, Any],
                   target: Mapping[str, Any], warnings: Iterable[str]) -> str:
    """An opened capture: ``state`` (else "opened read-only"), the file, its events (so far, while
    ``loading``), when and from what it was recorded, and the reader's warnings once the whole file is read."""
    head = f"{state}: " if state else "opened read-only: "
    said = "; ".join(warnings)
    # the reader's warnings once the whole file is read: they stay while the judge goes through it after
    return (f"{head}{path} · {events:,} events{' so far' if loading else ''} · "
            f"recorded {header.get('created', '?')} from {target.get('transport', '?')} {target_words(target)}"
            + (f" · {said}" if said and not loading else ""))
