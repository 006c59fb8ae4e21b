"""What a tap is asked to do (``mcp-inspector tap`` options), the server's short name, exit statuses, and the
frames the relay hands the recorder through the spool."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.sizes import DEFAULT_MAX_MESSAGE

#: Exit statuses of the tap itself, as a shell would give them.
EXIT_NOT_FOUND = 127
EXIT_CANNOT_RUN = 126
EXIT_TAP_ERROR = 125

# -- relay -> recorder frames (tap_spool.FRAME: tag, payload length, t, wall; then the payload) ---------------
C2S, S2C, STDERR = 1, 2, 3  #: bytes as read
C2S_EOF, S2C_EOF, STDERR_EOF = 4, 5, 6  #: end of that stream
LIFECYCLE, NOTE, END = 7, 8, 9  #: a JSON object: lifecycle data, {"text", ...}, {"exit": status}




@dataclass
class TapOptions:
    argv: list[str]
    name: str | None = None
    capture: Path | None = None  #: None: a timestamped file in the captures folder
    socket: Path | None = None  #: None: the default per-user socket
    live: bool = True  #: stream to a listening window
    redact: bool = True
    max_message: int = DEFAULT_MAX_MESSAGE  #: the largest message the capture holds whole
    extra_header: dict[str, Any] = field(default_factory=dict)

    @property
    def display_name(self) -> str:
        return self.name or guess_name(self.argv)


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
