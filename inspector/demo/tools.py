"""The demo's tools: a few honest ones and several that misbehave on purpose.

Tools: https://modelcontextprotocol.io/specification/2025-11-25/server/tools

Each tool is a :class:`Tool` (its ``tools/list`` entry plus an implementation).
Implementations receive a :class:`ToolContext`, implemented by the server, so
they never touch stdin/stdout or server state directly. They return the
era-neutral ``CallToolResult`` dict, or ``None`` when the call was cancelled
(a cancelled request gets no response:
https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/cancellation).

Argument errors are reported as tool results with ``isError: true`` rather
than as JSON-RPC errors, as the 2025-11-25 tools page asks for input
validation errors, so that a model could read them and retry.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from inspector.demo import protocol

MODERN = "modern"
LEGACY = "legacy"


@dataclass
class SamplingOutcome:
    """What became of a ``sampling/createMessage`` request sent to the client.

    Exactly one of ``result`` (the client's result), ``error`` (the client's
    JSON-RPC error object) or ``failure`` (a local reason: timeout, stdin
    closed, cancelled) is set.
    """

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    failure: str | None = None
    cancelled: bool = False


class ToolContext(Protocol):
    """What a running tool may do; implemented by the server per call."""

    era: str
    progress_token: Any

    def is_cancelled(self) -> bool: ...

    def wait_cancelled(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; return True (early) if the call was cancelled."""

    def progress(self, progress: float, total: float | None, message: str) -> None:
        """Send ``notifications/progress`` if the request carried a progressToken."""

    def log(self, level: str, data: Any) -> None:
        """Send ``notifications/message`` if the client's log level allows it."""

    def send(self, message: dict[str, Any]) -> None:
        """Send any JSON-RPC message, bypassing log-level filtering."""

    def write_stdout_raw(self, data: bytes) -> None: ...

    def write_stderr_raw(self, data: bytes) -> None: ...

    def client_can_sample(self) -> bool: ...

    def sample(self, params: dict[str, Any]) -> SamplingOutcome: ...

    def exit_process(self, code: int, message: str) -> NoReturn: ...


class ToolInputError(Exception):
    """Arguments that do not match the tool's ``inputSchema``."""


@dataclass(frozen=True)
class Tool:
    """A tool: its ``tools/list`` entry plus the function that runs it.

    ``background`` tools run on their own thread so the server keeps reading
    stdin while they wait (for the clock, or for the client's answer).
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    run: Callable[[ToolContext, dict[str, Any]], dict[str, Any] | None]
    background: bool = False
    annotations: dict[str, Any] = field(default_factory=dict)
    output_schema: dict[str, Any] | None = None

    def describe(self) -> dict[str, Any]:
        """The ``Tool`` object for ``tools/list``."""
        entry: dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
        }
        if self.output_schema is not None:
            entry["outputSchema"] = self.output_schema
        if self.annotations:
            entry["annotations"] = self.annotations
        return entry


# ---------------------------------------------------------------- helpers


def text_result(text: str, *, is_error: bool = False) -> dict[str, Any]:
    """A ``CallToolResult`` with one text content block."""
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
    if is_error:
        result["isError"] = True
    return result


def _schema(properties: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    return schema


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_type(name: str, spec: dict[str, Any], value: Any) -> Any:
    """Check one argument against its (flat) property schema; return it normalised."""
    kind = spec.get("type")
    if kind == "string" and not isinstance(value, str):
        raise ToolInputError(f"'{name}' must be a string")
    if kind == "number" and not _is_number(value):
        raise ToolInputError(f"'{name}' must be a number")
    if kind == "integer":
        # 5.0 is an integer in JSON Schema; "5" and true are not.
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ToolInputError(f"'{name}' must be an integer")
    if "minimum" in spec and value < spec["minimum"]:
        raise ToolInputError(f"'{name}' must be >= {spec['minimum']}")
    if "maximum" in spec and value > spec["maximum"]:
        raise ToolInputError(f"'{name}' must be <= {spec['maximum']}")
    return value


def apply_schema(schema: dict[str, Any], arguments: Any) -> dict[str, Any]:
    """Validate ``arguments`` against a flat object schema and fill defaults.

    Only what the demo's own schemas use is supported (object of scalar
    properties with type, minimum, maximum, default, required and
    ``additionalProperties: false``); a general validator would need a
    third-party package.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise ToolInputError("arguments must be an object")
    properties: dict[str, Any] = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise ToolInputError(f"unknown argument(s): {', '.join(unknown)}")
    missing = [name for name in schema.get("required", []) if name not in arguments]
    if missing:
        raise ToolInputError(f"missing required argument(s): {', '.join(missing)}")
    clean: dict[str, Any] = {}
    for name, spec in properties.items():
        if name in arguments:
            clean[name] = _check_type(name, spec, arguments[name])
        elif "default" in spec:
            clean[name] = spec["default"]
    return clean


# ---------------------------------------------------------------- honest tools


def _echo(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    return text_result(args["text"])


def _add(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    total = args["a"] + args["b"]
    result = text_result(str(total))
    # structuredContent matches outputSchema (2025-06-18+); older clients
    # ignore it and read the text block.
    result["structuredContent"] = {"sum": total}
    return result


def _slow_count(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any] | None:
    count, delay_ms = args["count"], args["delay_ms"]
    ctx.log("debug", {"tool": "slow_count", "count": count, "delay_ms": delay_ms})
    for i in range(1, count + 1):
        if ctx.wait_cancelled(delay_ms / 1000):
            return None
        ctx.progress(i, count, f"counted {i} of {count}")
        ctx.log("info", f"slow_count: {i}/{count}")
    if ctx.is_cancelled():
        return None
    return text_result(f"counted to {count}")


_MODERN_SAMPLING_EXPLANATION = (
    "ask_llm is not available in the 2026-07-28 (modern) era of this demo: there "
    "the server may not send sampling/createMessage as a request of its own; it "
    "must return an input_required result (multi round-trip request) and let the "
    "client retry with the model's answer. The demo does not implement "
    "input_required. Connect with initialize (a legacy revision) and declare the "
    "sampling capability to try ask_llm."
)


def _sampling_text(result: dict[str, Any]) -> str:
    """The text of a ``CreateMessageResult`` (single block or, in 2025-11-25, a list)."""
    content = result.get("content")
    blocks = content if isinstance(content, list) else [content]
    texts = [b["text"] for b in blocks
             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    if texts:
        return "\n".join(texts)
    return json.dumps(content, ensure_ascii=False)


def _ask_llm(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any] | None:
    if ctx.era == MODERN:
        return text_result(_MODERN_SAMPLING_EXPLANATION, is_error=True)
    if not ctx.client_can_sample():
        return text_result(
            "ask_llm needs the client to sample from its LLM, but the client did not "
            "declare the 'sampling' capability in initialize, so the server must not "
            "send sampling/createMessage.",
            is_error=True,
        )
    outcome = ctx.sample(
        {
            "messages": [{"role": "user", "content": {"type": "text", "text": args["prompt"]}}],
            "maxTokens": 256,
            "includeContext": "none",
        }
    )
    if outcome.cancelled:
        return None
    if outcome.error is not None:
        message = outcome.error.get("message", "") if isinstance(outcome.error, dict) else outcome.error
        code = outcome.error.get("code") if isinstance(outcome.error, dict) else None
        return text_result(f"the client answered sampling/createMessage with error {code}: {message}", is_error=True)
    if outcome.failure is not None:
        return text_result(outcome.failure, is_error=True)
    return text_result(_sampling_text(outcome.result or {}))


# ---------------------------------------------------------------- misbehaving tools

JUNK_BAD_BYTES = b"\xff\xfe bad bytes\n"


def _junk_stdout(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    text: str = args["text"]
    # Exactly what a stray print() does: text that is not a JSON-RPC message.
    # surrogatepass keeps even unpaired surrogates byte-for-byte "as printed".
    ctx.write_stdout_raw(text.encode("utf-8", "surrogatepass") + b"\n")
    ctx.write_stdout_raw(JUNK_BAD_BYTES)
    return text_result(
        f"wrote {text!r} plus a newline, then the invalid UTF-8 line {JUNK_BAD_BYTES!r}, "
        "to stdout as raw bytes (not JSON-RPC)"
    )


def _stderr_burst(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    lines, width = args["lines"], args["bytes_per_line"]
    chunk = bytearray()
    for i in range(1, lines + 1):
        label = f"stderr_burst line {i}/{lines} "
        chunk += label.ljust(width, ".")[:width].encode("ascii") + b"\n"
        if len(chunk) >= 65536:
            ctx.write_stderr_raw(bytes(chunk))
            chunk.clear()
    ctx.write_stderr_raw(bytes(chunk))
    return text_result(f"wrote {lines} lines of {width} bytes (+ newline) to stderr")


def _flood(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    count = args["count"]
    for n in range(count):
        # ctx.send, not ctx.log: the log level is deliberately ignored.
        ctx.send(protocol.notification("notifications/message",
                                       {"level": "debug", "logger": "flood", "data": {"i": n}}))
    return text_result(f"sent {count} notifications/message at level debug, ignoring the log level")


_BIG_PATTERN = "The quick brown fox jumps over the lazy dog. 0123456789 "


def _big_message(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    size = args["size_bytes"]
    # ASCII only, so the text is exactly size bytes; JSON framing adds a bit.
    text = (_BIG_PATTERN * (size // len(_BIG_PATTERN) + 1))[:size]
    return text_result(text)


def _exit(ctx: ToolContext, args: dict[str, Any]) -> NoReturn:
    ctx.exit_process(args["code"], args["message"])


def _split_json(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    message = protocol.notification(
        "notifications/message",
        {"level": "info", "logger": "split_json", "data": "this notification was pretty-printed over several lines"},
    )
    pretty = json.dumps(message, indent=2)
    ctx.write_stdout_raw(pretty.encode("utf-8") + b"\n")
    return text_result(
        f"wrote a notifications/message as pretty-printed JSON spanning {pretty.count(chr(10)) + 1} lines; "
        "newline-delimited framing forbids embedded newlines"
    )


# ---------------------------------------------------------------- registry

_READ_ONLY = {"readOnlyHint": True, "openWorldHint": False}
_MISBEHAVES = {"readOnlyHint": True, "openWorldHint": False, "idempotentHint": False}

TOOLS: tuple[Tool, ...] = (
    Tool(
        name="echo",
        title="Echo",
        description="Returns the given text unchanged as a text content block.",
        input_schema=_schema({"text": {"type": "string", "description": "Text to echo back"}}, ("text",)),
        run=_echo,
        annotations={**_READ_ONLY, "idempotentHint": True},
    ),
    Tool(
        name="add",
        title="Add two numbers",
        description="Returns a + b as text (and as structuredContent {sum}).",
        input_schema=_schema(
            {"a": {"type": "number", "description": "First addend"},
             "b": {"type": "number", "description": "Second addend"}},
            ("a", "b"),
        ),
        output_schema={"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]},
        run=_add,
        annotations={**_READ_ONLY, "idempotentHint": True},
    ),
    Tool(
        name="slow_count",
        title="Count slowly",
        description=(
            "Counts from 1 to count, waiting delay_ms before each step. Sends "
            "notifications/progress when the request carries _meta.progressToken and "
            "notifications/message log lines (legacy: per logging/setLevel, default info; "
            "modern: only when _meta sets io.modelcontextprotocol/logLevel). Stops on "
            "notifications/cancelled."
        ),
        input_schema=_schema(
            {
                "count": {"type": "integer", "minimum": 0, "maximum": 10000, "default": 5,
                          "description": "How far to count"},
                "delay_ms": {"type": "integer", "minimum": 0, "maximum": 60000, "default": 100,
                             "description": "Pause before each step, in milliseconds"},
            }
        ),
        run=_slow_count,
        background=True,
        annotations=_READ_ONLY,
    ),
    Tool(
        name="ask_llm",
        title="Ask the client's LLM",
        description=(
            "Legacy era only: sends sampling/createMessage to the client (which must have "
            "declared the sampling capability) and returns the model's text."
        ),
        input_schema=_schema({"prompt": {"type": "string", "description": "What to ask the model"}}, ("prompt",)),
        run=_ask_llm,
        background=True,
        annotations={"readOnlyHint": True, "openWorldHint": True},
    ),
    Tool(
        name="junk_stdout",
        title="Misbehave: junk on stdout",
        description=(
            "Writes text plus a newline to stdout as raw bytes (like a stray print()), then a "
            "line of invalid UTF-8 (b'\\xff\\xfe bad bytes\\n'), then answers normally."
        ),
        input_schema=_schema(
            {"text": {"type": "string", "default": "hello from print()", "description": "Non-JSON text to print"}}
        ),
        run=_junk_stdout,
        annotations=_MISBEHAVES,
    ),
    Tool(
        name="stderr_burst",
        title="Misbehave: burst of stderr",
        description="Writes lines x bytes_per_line bytes of log text to stderr, then answers.",
        input_schema=_schema(
            {
                "lines": {"type": "integer", "minimum": 0, "maximum": 1000000, "default": 100,
                          "description": "Number of lines"},
                "bytes_per_line": {"type": "integer", "minimum": 1, "maximum": 65536, "default": 80,
                                   "description": "Bytes per line, excluding the newline"},
            }
        ),
        run=_stderr_burst,
        annotations=_MISBEHAVES,
    ),
    Tool(
        name="flood",
        title="Misbehave: notification flood",
        description="Sends count notifications/message (level debug, data {i}) as fast as possible, ignoring "
                    "the log level, then answers.",
        input_schema=_schema(
            {"count": {"type": "integer", "minimum": 0, "maximum": 1000000, "default": 1000,
                       "description": "Number of notifications"}}
        ),
        run=_flood,
        annotations=_MISBEHAVES,
    ),
    Tool(
        name="big_message",
        title="Misbehave: very large message",
        description="Returns one text content block of size_bytes bytes: a single very long line on the wire.",
        input_schema=_schema(
            {"size_bytes": {"type": "integer", "minimum": 0, "maximum": 67108864, "default": 1048576,
                            "description": "Size of the text in bytes"}}
        ),
        run=_big_message,
        annotations=_MISBEHAVES,
    ),
    Tool(
        name="exit",
        title="Misbehave: exit without answering",
        description="Writes message to stderr and exits the server process with the given code, without "
                    "answering the request.",
        input_schema=_schema(
            {
                "code": {"type": "integer", "minimum": 0, "maximum": 255, "default": 1,
                         "description": "Process exit code"},
                "message": {"type": "string", "default": "demo server exiting on request",
                            "description": "Last words, written to stderr"},
            }
        ),
        run=_exit,
        annotations={"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
    ),
    Tool(
        name="split_json",
        title="Misbehave: pretty-printed JSON",
        description="Writes a notifications/message pretty-printed over several lines (breaking newline "
                    "framing), then answers normally.",
        input_schema=_schema({}),
        run=_split_json,
        annotations=_MISBEHAVES,
    ),
)

TOOLS_BY_NAME: dict[str, Tool] = {tool.name: tool for tool in TOOLS}
