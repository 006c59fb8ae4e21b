"""The seat's tools: their names and JSON Schemas, and what each runs.

Each tool runs one of the inspector's own commands (``python -m inspector ...``) as a child process, from an
argument list (never a shell), bounded by a timeout, and reads its JSON form: so the seat reuses the whole
core (connect, check, doctor, record, show, diff, context) and a server that misbehaves can never write into
the seat's own stdout. A target that cannot start or connect gives a result with ``isError`` and the doctor's
first failing step, never a failure of the seat.
"""

from __future__ import annotations

import contextvars
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.capture import read_capture
from inspector.core.capture.format import CaptureError
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_INTERRUPTED, EXIT_OK, EXIT_TIMEOUT, EXIT_TOOL_ERROR
from inspector.core.paths import default_capture_path
from inspector.core.redaction import redact_shapes, redact_text
from inspector.core.seat.targets import TARGET_SCHEMA, TargetError, known_servers, target_options

#: how long a tool may run when its arguments name no timeout (seconds)
DEFAULT_TIMEOUT = 60.0
#: the most events show_capture returns at once
MAX_EVENTS = 200

_TIMEOUT_SCHEMA = {"type": "number", "exclusiveMinimum": 0, "maximum": 600,
                   "description": "seconds the tool may run (default 60)"}


def _schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": {**properties, "timeout": _TIMEOUT_SCHEMA}, "required": required,
            "additionalProperties": False}


@dataclass(frozen=True)
class SeatTool:
    """One tool: its listing and the function that runs it (arguments already valid against the schema)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    run: Callable[[dict[str, Any], Path], dict[str, Any]]

    def listing(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": self.input_schema}


# -- running the inspector's own commands ------------------------------------------------------------------------

@dataclass
class Ran:
    status: int
    stdout: str
    stderr: str
    seconds: float


@dataclass
class CallControl:
    """What a running tool call answers to: the agent's cancellation, and a progress callback (elapsed seconds
    and a sentence) when the agent asked for progress."""

    cancelled: threading.Event = field(default_factory=threading.Event)
    progress: Callable[[float, str], None] | None = None


#: the control of the tool call this thread runs (none: no cancellation, no progress)
CONTROL: contextvars.ContextVar[CallControl | None] = contextvars.ContextVar("seat_call_control", default=None)
#: how often a running command is looked at (cancelled? a progress notification due?), in seconds
POLL = 0.25
#: how long a command stopped with SIGINT gets to stop its server before it is killed
GRACE = 3.0


def _stop(process: subprocess.Popen[bytes]) -> None:
    """SIGINT first, as Ctrl-C, so the command stops the server it started; SIGKILL after GRACE."""
    try:
        process.send_signal(signal.SIGINT)
        process.wait(GRACE)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    except ProcessLookupError:
        pass


def run_inspector(args: list[str], timeout: float) -> Ran:
    """``python -m inspector ARGS`` with no stdin, its output captured. A run past ``timeout``, or cancelled by
    the agent (:data:`CONTROL`), is stopped and reported as EXIT_TIMEOUT or EXIT_INTERRUPTED; while it runs, a
    progress callback is told the elapsed time about once a second."""
    control = CONTROL.get() or CallControl()
    started = time.monotonic()
    env = {**os.environ, "NO_COLOR": "1"}
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-m", "inspector", *args], stdin=subprocess.DEVNULL,
                                   stdout=out, stderr=err, env=env)
        reported = 0.0
        status: int | None = None
        why = ""
        while status is None:
            try:
                status = process.wait(POLL)
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - started
                if control.cancelled.is_set():
                    _stop(process)
                    status, why = EXIT_INTERRUPTED, "The tool was cancelled."
                elif elapsed > timeout:
                    _stop(process)
                    status, why = EXIT_TIMEOUT, f"The tool did not finish within {timeout:g} s and was stopped."
                elif control.progress is not None and elapsed - reported >= 1.0:
                    reported = elapsed
                    control.progress(round(elapsed, 1), f"{args[0]} running for {elapsed:.0f} s")
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace")
    return Ran(status, "" if why else stdout, why or stderr, time.monotonic() - started)


def text_result(text: str, structured: dict[str, Any] | None = None, *, error: bool = False) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": error}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def _message(ran: Ran) -> str:
    """The command's last sentence on stderr, in the seat's words (its ``timeout`` argument is the command's
    ``--timeout``)."""
    lines = [line.removeprefix("mcp-inspector: ") for line in ran.stderr.strip().splitlines() if line.strip()]
    text = lines[-1] if lines else f"The inspector's command ended with status {ran.status}."
    return text.replace("raise --timeout", "raise the tool's timeout argument")


def first_failing_step(target_args: list[str], timeout: float) -> dict[str, Any] | None:
    """The doctor's first failed step for the target, or None when it finds none."""
    ran = run_inspector(["doctor", "--format", "json", "--timeout", f"{min(timeout, 10):g}", *target_args],
                        timeout + 5)
    try:
        steps = json.loads(ran.stdout).get("steps", [])
    except (json.JSONDecodeError, AttributeError):
        return None
    return next((step for step in steps if step.get("status") == "failed"), None)


def failure(ran: Ran, target_args: list[str] | None, timeout: float) -> dict[str, Any]:
    """A failed run as an ``isError`` result; when the target could not be reached, with the doctor's step."""
    text = _message(ran)
    structured: dict[str, Any] = {"status": ran.status, "error": text}
    if target_args is not None and ran.status in (EXIT_CANNOT_CONNECT, EXIT_TIMEOUT):
        step = first_failing_step(target_args, timeout)
        if step is not None:
            structured["failingStep"] = step
            detail = str(step["detail"]).replace("raise --timeout", "raise the tool's timeout argument")
            text += f"\nThe doctor's first failing step is {step['step']}: {detail}"
            if step.get("fix"):
                text += f"\nFix: {step['fix']}"
    return text_result(text, structured, error=True)


def _timeout(arguments: dict[str, Any]) -> float:
    return float(arguments.get("timeout", DEFAULT_TIMEOUT))


def _inner_timeout(arguments: dict[str, Any]) -> list[str]:
    # the command's own wait, a little inside the tool's bound so it can say what it waited for
    return ["--timeout", f"{max(_timeout(arguments) - 2, 1):g}"]


def _json_or_text(ran: Ran) -> Any:
    try:
        return json.loads(ran.stdout)
    except json.JSONDecodeError:
        return None


# -- the tools -------------------------------------------------------------------------------------------------

def _list_servers(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    servers = known_servers()
    names = ", ".join(server["name"] for server in servers) or "none"
    return text_result(f"{len(servers)} server(s) known: {names}.", {"servers": servers})


def _on_target(arguments: dict[str, Any], command: list[str],
               then: Callable[[Ran, Any], dict[str, Any]], *, ok: tuple[int, ...] = (EXIT_OK,)) -> dict[str, Any]:
    try:
        target_args = target_options(arguments["target"])
    except TargetError as exc:
        return text_result(str(exc), {"error": str(exc)}, error=True)
    ran = run_inspector([*command, *target_args], _timeout(arguments))
    data = _json_or_text(ran)
    if ran.status not in ok or data is None:
        return failure(ran, target_args, _timeout(arguments))
    return then(ran, data)


def _list_tools(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    def done(ran: Ran, data: Any) -> dict[str, Any]:
        names = [tool.get("name") for tool in data.get("tools", [])]
        return text_result(f"{len(names)} tool(s): {', '.join(map(str, names))}.", data)
    return _on_target(arguments, ["tools", "--json", *_inner_timeout(arguments)], done)


def _call_tool(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    out = default_capture_path(f"seat-{arguments['tool']}", captures)
    command = ["call", arguments["tool"], "--args", json.dumps(arguments.get("arguments") or {}), "--json",
               "--out", str(out), *_inner_timeout(arguments)]

    def done(ran: Ran, data: Any) -> dict[str, Any]:
        seen = {"latencySeconds": round(ran.seconds, 3), "capture": str(out),
                "stderr": redact_text(redact_shapes(ran.stderr.strip()[-2000:])), **what_the_capture_shows(out)}
        result = {"content": [{"type": "text", "text": json.dumps({"result": data, "inspector": seen})}],
                  "structuredContent": {"result": data, "inspector": seen}, "isError": False}
        return result
    return _on_target(arguments, command, done, ok=(EXIT_OK, EXIT_TOOL_ERROR))


def what_the_capture_shows(path: Path) -> dict[str, Any]:
    """The framing errors (bytes on stdout that are not JSON-RPC, with why) and the protocol findings of a
    capture, each list bounded: what the inspector saw beside the server's answer."""
    try:
        events = read_capture(path).events
    except CaptureError:
        return {}
    framing = [{"raw": redact_shapes(event.raw[:500].decode("utf-8", "replace")), "reason": event.reason}
               for event in events if event.kind == "framing_error"]
    findings = [finding.to_json() for event in events for finding in event.findings]
    return {"framingErrors": framing[:20], "findings": findings[:20]}


def _read_resource(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    def done(ran: Ran, data: Any) -> dict[str, Any]:
        return text_result(json.dumps(data), data)
    return _on_target(arguments, ["read", arguments["uri"], "--json", *_inner_timeout(arguments)], done)


def _check_summary(data: dict[str, Any]) -> str:
    counts = data.get("counts") or {}
    if data.get("error"):
        return f"The check could not run: {data['error']}"
    return (f"Check: {counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed, "
            f"{counts.get('not applicable', 0)} not applicable, {counts.get('incomplete', 0)} incomplete; "
            f"{len(data.get('extra_findings') or [])} per-message finding(s).")


def _diff_summary(data: dict[str, Any]) -> str:
    if data.get("same"):
        return "No differences."
    return (f"{data.get('differences', 0)} difference(s): {len(data.get('interface') or [])} in the interface, "
            f"{len(data.get('behaviour') or [])} in the answers.")


def _context_summary(data: dict[str, Any]) -> str:
    totals = data.get("totals") or {}
    return (f"The listing costs {totals.get('tokens', '?')} tokens ({totals.get('bytes', '?')} bytes, "
            f"{data.get('tokenizer')}) for {len(data.get('tools') or [])} tool(s); "
            f"{len(data.get('findings') or [])} tool-poisoning finding(s)"
            + ("; over the budget." if data.get("overBudget") else "."))


#: each report's paragraph for the model, before its JSON form
SUMMARIES: dict[str, Callable[[dict[str, Any]], str]] = {
    "check": _check_summary, "diff": _diff_summary, "context": _context_summary}


def _report(kind: str) -> Callable[[Ran, Any], dict[str, Any]]:
    def done(ran: Ran, data: Any) -> dict[str, Any]:
        report = data if isinstance(data, dict) else {"report": data}
        return text_result(SUMMARIES[kind](report) + "\n" + json.dumps(data), report)
    return done


def _check_server(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    command = ["check", "--format", "json", *_inner_timeout(arguments)]
    return _on_target(arguments, command, _report("check"), ok=(0, 1))


def _doctor(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    try:
        target_args = target_options(arguments["target"])
    except TargetError as exc:
        return text_result(str(exc), {"error": str(exc)}, error=True)
    ran = run_inspector(["doctor", "--format", "json", *_inner_timeout(arguments), *target_args],
                        _timeout(arguments))
    data = _json_or_text(ran)
    if not isinstance(data, dict):
        return failure(ran, None, _timeout(arguments))
    failed = next((step for step in data.get("steps", []) if step.get("status") == "failed"), None)
    if failed is None:
        summary = "Every step of the doctor passed."
    else:
        summary = f"The first failing step is {failed['step']}: {failed['detail']} Fix: {failed.get('fix', '')}"
    return text_result(summary + "\n" + json.dumps(data), data, error=failed is not None)


def _record_session(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    out = default_capture_path("seat-record", captures)
    with tempfile.TemporaryDirectory() as folder:
        send = Path(folder) / "send.jsonl"
        send.write_text("".join(json.dumps(message) + "\n" for message in arguments.get("send", [])),
                        encoding="utf-8")
        command = ["record", "--out", str(out), "--send", str(send), *_inner_timeout(arguments)]
        try:
            target_args = target_options(arguments["target"])
        except TargetError as exc:
            return text_result(str(exc), {"error": str(exc)}, error=True)
        ran = run_inspector([*command, *target_args], _timeout(arguments))
    if ran.status != EXIT_OK and not out.exists():
        return failure(ran, target_args, _timeout(arguments))
    summary = _message(ran) if ran.stderr.strip() else ran.stdout.strip().splitlines()[-1:] or [""]
    line = summary if isinstance(summary, str) else summary[0]
    return text_result(f"Recorded {out} (exit status {ran.status}): {line}",
                       {"capture": str(out), "status": ran.status, "summary": line}, error=ran.status != EXIT_OK)


def is_problem(event: dict[str, Any]) -> bool:
    """A framing error (bytes that are not a JSON-RPC message), or an error response."""
    rpc = event.get("rpc")
    return event.get("kind") == "framing_error" or (isinstance(rpc, dict) and rpc.get("kind") == "error")


def _event_matches(event: dict[str, Any], arguments: dict[str, Any]) -> bool:
    text = json.dumps(event)
    if arguments.get("method") and arguments["method"] not in text:
        return False
    if arguments.get("direction") and event.get("dir") != arguments["direction"]:
        return False
    if arguments.get("problemsOnly") and not is_problem(event):
        return False
    return not (arguments.get("search") and arguments["search"].lower() not in text.lower())


def _show_capture(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    ran = run_inspector(["show", "--json", arguments["path"]], _timeout(arguments))
    if ran.status != EXIT_OK:
        return failure(ran, None, _timeout(arguments))
    events = []
    for line in ran.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    chosen = [event for event in events if isinstance(event, dict) and _event_matches(event, arguments)]
    start = int(arguments.get("cursor") or 0)
    limit = int(arguments.get("limit", 50))
    page = chosen[start:start + limit]
    more = start + limit < len(chosen)
    structured: dict[str, Any] = {"events": page, "total": len(chosen)}
    if more:
        structured["nextCursor"] = str(start + limit)
    text = "\n".join(json.dumps(event) for event in page)
    head = f"{len(page)} of {len(chosen)} event(s) from {start}" + (f"; nextCursor {start + limit}" if more else "")
    return text_result(head + "\n" + text, structured)


def _diff(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    if "b" in arguments:
        ran = run_inspector(["diff", arguments["a"], arguments["b"], "--format", "json"], _timeout(arguments))
        data = _json_or_text(ran)
        if ran.status not in (0, 1) or data is None:
            return failure(ran, None, _timeout(arguments))
        return _report("diff")(ran, data)
    if "target" not in arguments:
        return text_result("diff needs b (a second capture) or target (a live server).", error=True)
    return _on_target(arguments, ["diff", arguments["a"], "--against", "--format", "json",
                                  *_inner_timeout(arguments)], _report("diff"), ok=(0, 1))


def _context_cost(arguments: dict[str, Any], captures: Path) -> dict[str, Any]:
    if "capture" in arguments:
        ran = run_inspector(["context", "--capture", arguments["capture"], "--format", "json"],
                            _timeout(arguments))
        data = _json_or_text(ran)
        if data is None:
            return failure(ran, None, _timeout(arguments))
        return _report("context")(ran, data)
    if "target" not in arguments:
        return text_result("context_cost needs target (a live server) or capture (a capture's path).", error=True)
    return _on_target(arguments, ["context", "--format", "json", *_inner_timeout(arguments)], _report("context"),
                      ok=(0, 1, 10))


_TARGET = {"target": TARGET_SCHEMA}
_PATH = {"type": "string", "description": "a capture's path"}

TOOLS: tuple[SeatTool, ...] = (
    SeatTool("list_servers", "The servers the inspector knows: saved profiles and servers named in the clients' "
             "config files (Claude, Cursor, VS Code, ...).", _schema({}, []), _list_servers),
    SeatTool("list_tools", "List a server's tools (every page), as the server gives them.",
             _schema(_TARGET, ["target"]), _list_tools),
    SeatTool("call_tool", "Call one tool of a server; returns the server's result as it gave it, plus what the "
             "inspector saw (latency, framing errors, protocol findings, the server's stderr) and the path of "
             "the session's capture.",
             _schema({**_TARGET, "tool": {"type": "string", "description": "the tool's name"},
                      "arguments": {"type": "object", "description": "the tool's arguments"}},
                     ["target", "tool"]), _call_tool),
    SeatTool("read_resource", "Read one resource of a server by its URI.",
             _schema({**_TARGET, "uri": {"type": "string"}}, ["target", "uri"]), _read_resource),
    SeatTool("check_server", "Probe a server with the spec's rules; returns the check report (JSON).",
             _schema(_TARGET, ["target"]), _check_server),
    SeatTool("doctor", "Explain why a connection to a server fails, step by step (command, start, stdout, "
             "handshake; for a URL: DNS, TCP, TLS, HTTP, auth), with the fix. Start here.",
             _schema(_TARGET, ["target"]), _doctor),
    SeatTool("record_session", "Launch or connect to a server, run the handshake, send these messages, and save "
             "the session as a capture; returns the capture's path and the summary line.",
             _schema({**_TARGET, "send": {"type": "array", "items": {"type": "object"},
                                          "description": "JSON-RPC messages to send after the handshake"}},
                     ["target"]), _record_session),
    SeatTool("show_capture", "A capture's timeline, one JSON event per line, filtered (method, direction, "
             "problems only, a text search) and paged (limit, default 50; cursor from nextCursor).",
             _schema({"path": _PATH, "method": {"type": "string"},
                      "direction": {"type": "string", "enum": ["c2s", "s2c"],
                                    "description": "c2s: sent to the server; s2c: from it"},
                      "problemsOnly": {"type": "boolean", "description": "only framing errors and error responses"},
                      "search": {"type": "string", "description": "text the event must contain"},
                      "limit": {"type": "integer", "minimum": 1, "maximum": MAX_EVENTS},
                      "cursor": {"type": "string", "pattern": "^[0-9]+$"}}, ["path"]), _show_capture),
    SeatTool("diff", "Compare two captures (a and b), or a capture with a live target: interface and answers.",
             _schema({"a": _PATH, "b": _PATH, **_TARGET}, ["a"]), _diff),
    SeatTool("context_cost", "What a server's listing costs a model's context, in tokens, and tool-poisoning "
             "findings; from a live target or a capture.",
             _schema({**_TARGET, "capture": _PATH}, []), _context_cost),
)

TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}
