"""What a tap is asked to do (``mcp-inspector tap`` options), the server's short name, exit statuses, and the
frames the relay (stdio) or the proxy (HTTP) hands the recorder through the spool."""

from __future__ import annotations

import re
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from inspector.core.intercept.rules import Rules
from inspector.core.sizes import DEFAULT_MAX_MESSAGE

#: Exit statuses of the tap itself, as a shell would give them.
EXIT_NOT_FOUND = 127
EXIT_CANNOT_RUN = 126
EXIT_TAP_ERROR = 125

# -- relay -> recorder frames (tap_spool.FRAME: tag, payload length, t, wall; then the payload) ---------------
C2S, S2C, STDERR = 1, 2, 3  #: bytes as read
C2S_EOF, S2C_EOF, STDERR_EOF = 4, 5, 6  #: end of that stream
LIFECYCLE, NOTE, END = 7, 8, 9  #: a JSON object: lifecycle data, {"text", ...}, {"exit": status}
#: a message an intercept rule acted on, with its mark (``tap --rules``; inspector.core.tap.intercepting)
INTERCEPTED = 30

# -- HTTP tap frames (inspector.core.tap.http_proxy -> http_recorder): the payload starts with the exchange
# number (EXCHANGE), then JSON objects or bytes as said --------------------------------------------------------
EXCHANGE = struct.Struct("<I")
HTTP_REQUEST = 10  #: JSON: {"method", "url", "headers": [[name, value], ...]}: the head as sent upstream
HTTP_REQUEST_BODY = 11  #: bytes of the request body, as the client sent them
HTTP_REQUEST_END = 12  #: the request body is complete (nothing, or JSON {"error": sentence})
HTTP_RESPONSE = 13  #: JSON: {"status", "reason", "http_version", "headers", "connect", "relayed": {...}}
HTTP_RESPONSE_BODY = 14  #: bytes of the response body as the server sent them (content coding kept)
HTTP_RESPONSE_END = 15  #: JSON: {} or {"error": sentence}: the exchange is over
HTTP_REWRITE = 16  #: JSON: {"endpoint": FROM, "relayed_as": TO}: the next endpoint event was relayed rewritten
WS_C2S, WS_S2C = 17, 18  #: bytes of a WebSocket connection after its upgrade (frames, as on the wire)
#: JSON: {"records": [{"dir", "raw" (the bytes as Latin-1 text), "mark"}, ...], "sse": {...}}: with intercept rules,
#: the messages of one body or event as :func:`inspector.core.intercept.records.records` lists them
HTTP_MESSAGES = 19


class StartFailed(Exception):
    """The server could not be started: ``sentence`` for a person, ``status`` the tap's exit status."""

    def __init__(self, sentence: str, status: int) -> None:
        super().__init__(sentence)
        self.sentence = sentence
        self.status = status


@dataclass
class TapOptions:
    argv: list[str] = field(default_factory=list)  #: the stdio server's command line (empty for an HTTP tap)
    name: str | None = None
    capture: Path | None = None  #: None: a timestamped file in the captures folder
    socket: Path | None = None  #: None: the default per-user socket
    live: bool = True  #: stream to a listening window
    redact: bool = True
    max_message: int = DEFAULT_MAX_MESSAGE  #: the largest message the capture holds whole
    extra_header: dict[str, Any] = field(default_factory=dict)
    #: the HTTP tap: the server's URL (None for a stdio tap), where to listen, and what the server speaks
    url: str | None = None
    listen: tuple[str, int] = ("127.0.0.1", 0)
    transport: str = "auto"
    ca_file: str | None = None  #: the HTTP tap: certificates trusted towards the server besides the usual ones
    insecure: bool = False  #: the HTTP tap: the server's certificate is not verified
    #: the recorder sends a span per request to this OTLP/HTTP collector (``--otlp-endpoint``)
    otlp_endpoint: str | None = None
    #: intercept rules (``--rules``; None: the relay never looks at a line)
    rules: Rules | None = None
    #: reload on save (``--watch``): files and folders whose change restarts the server, and globs ignored
    watch: list[Path] = field(default_factory=list)
    watch_ignore: list[str] = field(default_factory=list)
    #: ``explain_failure(argv, last stderr lines)``: a sentence on why the server failed to start after a change
    #: (the command line gives the doctor's; the core's tap sits beside the doctor, so it is handed in), or None
    explain_failure: Callable[[list[str], list[str]], str | None] | None = None

    @property
    def display_name(self) -> str:
        if self.name:
            return self.name
        if self.url is not None:
            return urlsplit(self.url).hostname or "server"
        return guess_name(self.argv)


#: Commands that launch the real server: the name is in their arguments.
LAUNCHERS = frozenset({"python", "python3", "py", "node", "npx", "uvx", "uv", "bunx", "bun", "deno", "pnpm",
                       "npm", "yarn", "pipx"})


def guess_name(argv: list[str]) -> str:
    """A short name for a server command: ``python -m pkg`` -> ``pkg``, ``npx -y @scope/srv@1`` -> ``srv``."""
    base = Path(argv[0]).name
    if re.sub(r"[0-9.]+$", "", base.removesuffix(".exe")) not in LAUNCHERS:
        return base or "server"
    rest = argv[1:]
    for i, arg in enumerate(rest):
        if arg == "-m" and i + 1 < len(rest):
            return rest[i + 1]
        if arg.startswith("-") or arg in ("run", "exec", "dlx", "x", "tool"):
            continue
        name = Path(arg).name.rsplit("@", 1)[0] if not arg.startswith("@") or arg.count("@") > 1 else Path(arg).name
        return Path(name).stem if name.endswith((".js", ".mjs", ".py", ".ts")) else (name or base)
    return base


def exit_status(returncode: int) -> int:
    """The exit status a shell would report: the code, or 128 + N for a death by signal N."""
    return returncode if returncode >= 0 else 128 - returncode
