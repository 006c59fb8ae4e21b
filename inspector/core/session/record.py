"""The headless ``record`` run: launch, handshake, send a script of messages, wait, shut down, summarize.

Used by ``mcp-inspector record`` and ``--demo``; returns a :class:`RecordResult` instead of printing, so the
CLI, the GUI and tests share it. Exit status contract: 0 when the handshake and every request got a response
(an error response counts: the server answered), 1 when the server failed us, 2 when our input was bad.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.capture.writer import CaptureWriter, make_header
from inspector.core.session.answers import AnswerPolicy
from inspector.core.session.session import HandshakeError, Session
from inspector.core.session.target import InputError, Target, make_transport
from inspector.core.transports.base import TransportError

#: Default wait after the last response, for trailing notifications.
DEFAULT_IDLE = 0.5

EXIT_OK = 0
EXIT_SERVER_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  #: the shell convention for Ctrl-C


@dataclass
class RecordOptions:
    """What to record (the ``target``: its handshake, timeout and redaction too), where, and what to send."""

    target: Target
    out: Path
    messages: list[dict[str, Any]] = field(default_factory=list)
    idle: float = DEFAULT_IDLE
    roots: list[dict[str, str]] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)  #: headless answers: elicitation=..., sampling=...
    progress: bool = False  #: add a progressToken to requests of the script that have none
    max_time: float = 600.0  #: bound on one request however much progress it reports


@dataclass
class RecordResult:
    exit_code: int
    summary: str
    error: str | None = None
    server: Any = None


def load_messages(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read a ``--send`` file: one JSON object per line; blank lines and ``//`` comments are skipped."""
    name = os.fspath(path)
    try:
        text = Path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{name} cannot be read: {exc}") from None
    messages = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{name} line {number} is not JSON: {exc.msg} at column {exc.colno}") from None
        if not isinstance(obj, dict):
            raise InputError(f"{name} line {number} is not a JSON object")
        if not isinstance(obj.get("method"), str) and "result" not in obj and "error" not in obj:
            raise InputError(f'{name} line {number} has no "method"')
        obj.setdefault("jsonrpc", "2.0")
        messages.append(obj)
    return messages


def is_notification(obj: dict[str, Any]) -> bool:
    method = obj.get("method")
    return isinstance(method, str) and method.startswith("notifications/") and "id" not in obj


def with_progress_token(request: dict[str, Any]) -> dict[str, Any]:
    """The request with ``params._meta.progressToken`` (``progress-<id>``) unless it has one."""
    params = dict(request.get("params") or {})
    meta = dict(params.get("_meta") or {})
    meta.setdefault("progressToken", f"progress-{request.get('id')}")
    params["_meta"] = meta
    return {**request, "params": params}


async def record(options: RecordOptions) -> RecordResult:
    try:
        transport = make_transport(options.target)
        handler = AnswerPolicy.parse(options.answers)
    except (TransportError, ValueError) as exc:
        return RecordResult(EXIT_BAD_INPUT, "", str(exc))
    header = make_header(transport.describe())
    try:
        writer = CaptureWriter(options.out, header)
    except OSError as exc:
        return RecordResult(EXIT_BAD_INPUT, "", f"cannot write the capture {options.out}: {exc.strerror or exc}")
    session = Session(transport, capture=writer, roots=options.roots, keep_events=False,
                      server_request_handler=handler)
    error: str | None = None
    try:
        error = await _drive(session, options)
    finally:
        await session.close()
        writer.close()
    exit_code = EXIT_OK if error is None else EXIT_SERVER_FAILED
    return RecordResult(exit_code, summarize(session, options.out), error, session.server)


async def _drive(session: Session, options: RecordOptions) -> str | None:
    """Run the script; returns None on success or the one sentence that says what went wrong."""
    try:
        await session.start()
    except TransportError as exc:
        session.note(str(exc), failure=True)
        return str(exc)
    session.max_request_time = options.max_time
    target = options.target
    try:
        await session.handshake(target.handshake, target.protocol_version, target.timeout)
        for obj in options.messages:
            if "method" in obj and not is_notification(obj):
                request = session.prepare_request(obj)
                if options.progress:
                    request = with_progress_token(request)
                await session.request_object(request, timeout=target.timeout)
            else:
                await session.send_object(obj)
    except HandshakeError as exc:  # the capture says why the session ended (a timeout or an exit says so already)
        session.note(str(exc))
        return str(exc)
    except TransportError as exc:
        return str(exc)
    if options.idle > 0 and not session.closed:
        try:
            await asyncio.wait_for(session.wait_closed(), options.idle)
        except TimeoutError:
            pass
    return None


def summarize(session: Session, out: Path) -> str:
    c = session.counts
    parts = [f"{c['c2s']} sent", f"{c['s2c']} received", _plural(c["framing_errors"], "framing error"),
             _plural(c["stderr"], "stderr line")]
    if c["findings"]:
        parts.append(_plural(c["findings"], "protocol finding"))
    return f"{out}: {', '.join(parts)}; {session.ending()}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
