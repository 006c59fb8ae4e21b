"""The steps of a server run as a command over stdio: ``command``, ``start``, ``stdout``, ``handshake``.

``command`` asks the stdio transport where the program is (:meth:`StdioTransport.resolve_executable`, the same
search exec does, with its sentences for a missing or unrunnable program) and then looks at what runs it: the
``#!`` line of a script (an interpreter that is missing, a line that ends in a Windows carriage return) and the
script a known interpreter is given (``python server.py`` where there is no server.py). The other three read one
real session (:mod:`inspector.core.doctor.session_run`): whether the process stayed up (an exit quotes its
stderr, as the transport's diagnosis does), what it wrote on stdout before its first message (a banner: a
warning, since stricter clients drop the connection on it), and the handshake.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from inspector.core.connect.target import Target
from inspector.core.doctor.model import Step, failed, passed, warning
from inspector.core.doctor.session_run import SessionRun
from inspector.core.text import safe
from inspector.core.transports.base import (
    CannotRun,
    CommandNotFound,
    NoWorkingDirectory,
    TransportClosed,
    TransportError,
    WholeCommandLine,
)
from inspector.core.transports.stdio import StdioTransport
from inspector.core.wire.events import Direction, Kind, Lifecycle

#: Programs that run a script named among their arguments (the script is checked for).
INTERPRETERS = ("python", "python3", "node", "deno", "bun", "ruby", "perl", "php", "bash", "sh")
#: Script endings that name a script argument of an interpreter.
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".sh")
#: How many bytes of an executable are read to find its ``#!`` line.
SHEBANG_BYTES = 256
#: How much of a line written before the first message is quoted.
QUOTE_CHARS = 120

FIX_NOT_FOUND = ("Check the command's spelling, or give its full path: it runs without a shell, so aliases and a "
                 "PATH set only in your shell's startup file do not apply.")
FIX_ONE_WORD = "Give the program and each of its arguments as separate words."
FIX_CANNOT_RUN = "Make the file executable (chmod +x FILE), or run it through its interpreter (python FILE, node FILE)."
FIX_NO_FOLDER = "Create that folder, or give the server's working directory with --cwd."
FIX_STDOUT_ONLY = ("The server wrote on stdout what is no MCP message and exited: read the line the stdout step "
                   "quotes (an error or a usage message?), and check that the command starts the server in stdio "
                   "mode.")
FIX_STDOUT = ("Write logs to stderr: stdout carries MCP messages only, and clients stricter than mcp-inspector close "
              "the connection on a line that is not one.")


def command_step(target: Target) -> Step:
    """``command``: the program is found and executable, and so is what runs it."""
    transport = StdioTransport(target.argv, cwd=target.cwd, env=target.env)
    env = {**os.environ, **target.env}
    try:
        executable = transport.resolve_executable(env)
    except CommandNotFound as exc:
        return failed("command", str(exc), FIX_ONE_WORD if isinstance(exc, WholeCommandLine) else FIX_NOT_FOUND)
    except CannotRun as exc:
        fix = FIX_NO_FOLDER if isinstance(exc, NoWorkingDirectory) else FIX_CANNOT_RUN
        return failed("command", str(exc), fix.replace("FILE", target.argv[0]))
    found = executable if os.path.isabs(executable) else str(Path(target.cwd or ".", executable))
    problem = interpreter_problem(found, env) or script_problem(target)
    if problem is not None:
        return failed("command", *problem)
    named = f"found {found}" if target.argv[0] == found else f"{target.argv[0]} is {found}"
    return passed("command", f"{named}, executable{_run_by(found)}")


def interpreter_problem(path: str, env: dict[str, str]) -> tuple[str, str] | None:
    """For a script with a ``#!`` line: why the interpreter it names cannot run it (detail, fix), or None."""
    line = _shebang(path)
    if line is None:
        return None
    if line.endswith("\r"):
        return (f"the first line of {path} ends in a carriage return (Windows line ends), so the system looks for "
                f"an interpreter named {line[2:].strip()!r} followed by that character",
                f"Convert the script to Unix line ends (dos2unix {path}).")
    words = line[2:].split()
    if not words:
        return f"{path} starts with #! but names no interpreter", "Name the interpreter on its first line (#!/bin/sh)."
    program = words[0]
    if Path(program).name == "env" and len(words) > 1:
        named = next((w for w in words[1:] if not w.startswith("-")), None)
        if named is not None and shutil.which(named, path=env.get("PATH", os.defpath)) is None:
            return (f"{path} is run by {named} (its #! line: {line}), which is not on PATH",
                    f"Install {named}, or put the folder that has it on the PATH the server gets (--env PATH=...).")
        return None
    if not Path(program).exists():
        return (f"{path} is run by {program} (its #! line), which does not exist",
                f"Install {program}, or change the script's #! line to an interpreter this computer has.")
    if not os.access(program, os.X_OK):
        return (f"{path} is run by {program} (its #! line), which is not executable",
                f"Use an interpreter that can be run, or make {program} executable.")
    return None


def script_problem(target: Target) -> tuple[str, str] | None:
    """For a known interpreter given a script (``python server.py``): why that script cannot be opened (detail,
    fix), or None. ``-m module`` and ``-c code`` are the interpreter's own business (``start`` tells)."""
    program = Path(target.argv[0]).name.removesuffix(".exe")
    if program.rstrip("0123456789.") not in INTERPRETERS:
        return None
    for word in target.argv[1:]:
        if word in ("-m", "-c", "-e", "--eval", "-"):
            return None
        if word.startswith("-"):
            continue
        if not word.endswith(SCRIPT_SUFFIXES):
            return None
        where = Path(target.cwd or os.getcwd())
        script = Path(word) if os.path.isabs(word) else where / word
        if not script.is_file():
            return (f"{target.argv[0]} is given the script {word}, which is not in {where}",
                    "Give the script's path from the server's working directory, or set that directory with --cwd.")
        return None
    return None


def _shebang(path: str) -> str | None:
    """The ``#!`` line of a file (without its newline), or None for a file that has none (a binary)."""
    try:
        with open(path, "rb") as file:
            head = file.read(SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    return head.split(b"\n", 1)[0].decode("utf-8", errors="replace")


def _run_by(path: str) -> str:
    line = _shebang(path)
    return f", a script run by {line[2:].strip()}" if line else ""


def start_step(run: SessionRun) -> Step:
    """``start``: the process started and stayed up (it answered a ping after the handshake), or how it ended."""
    transport = run.transport
    if not isinstance(transport, StdioTransport) or transport.process is None:
        error = run.error or TransportError("the server did not start")
        return failed("start", str(error), "Run the same command in a terminal to see why it cannot start.")
    pid = transport.process.pid
    if not run.ended:
        if run.ok:
            return passed("start", f"the server started (pid {pid}) and stayed up: it answered a ping after the "
                                   "handshake")
        return passed("start", f"the server started (pid {pid}) and was still running when the handshake ended")
    # the session's own sentence names the request it waited for, as record and the window say it
    diagnosis = str(run.error) if isinstance(run.error, TransportClosed) else \
        run.diagnosis or f"the server exited with code {transport.returncode}"
    stderr = list(transport.stderr_tail)
    junk, answered = stdout_before_first_message(run)
    if junk and not answered:  # what it wrote instead of MCP is the clue, above all when stderr is empty
        diagnosis += f"; on stdout it wrote {_lines(junk)} that {'is' if len(junk) == 1 else 'are'} no MCP " \
                     "message (the stdout step quotes the first)"
        if not stderr:
            return failed("start", diagnosis, FIX_STDOUT_ONLY)
    return failed("start", diagnosis, exit_fix(stderr, _executable(run) or transport.argv[0]))


def _executable(run: SessionRun) -> str | None:
    """The program the server was started as (the ``spawned`` event's: its PATH search done)."""
    spawned = next((e for e in run.events if e.kind == Kind.LIFECYCLE and e.data.get("what") == Lifecycle.SPAWNED),
                   None)
    found = spawned.data.get("executable") if spawned is not None else None
    return str(found) if found else None


def exit_fix(stderr: list[str], program: str) -> str:
    """What to do about a server that exited, from what its last stderr lines say."""
    text = "\n".join(stderr)
    if "ModuleNotFoundError" in text or "ImportError" in text or "No module named" in text:
        return (f"Install the missing module for the Python that runs the server ({program}), or start the server "
                "with the python of the virtual environment that has it.")
    if "Cannot find module" in text or "ERR_MODULE_NOT_FOUND" in text:
        return "Install the server's dependencies (npm install in its folder), or check the path of its script."
    if "EADDRINUSE" in text or "Address already in use" in text or "address already in use" in text:
        return "Another process holds the port the server wants: stop it, or give the server another port."
    if not stderr:
        return "The server exited without a word on stderr: run the same command in a terminal to see what it does."
    return "Read the quoted stderr lines, and run the same command in a terminal to see the whole error."


def stdout_step(run: SessionRun) -> Step:
    """``stdout``: nothing but MCP messages from the first byte. Lines before the first message are a warning
    (this inspector records them and goes on; stricter clients give up); lines and no message at all fail."""
    before, answered = stdout_before_first_message(run)
    if not before:
        if answered:
            return passed("stdout", "the first thing on stdout was an MCP message")
        return passed("stdout", "the server wrote nothing on stdout (the handshake step says whether it answered)")
    count = _lines(before)
    quoted = safe(_quote(before[0]))
    if answered:
        return warning("stdout", f"the server wrote {count} on stdout before its first message, the first: "
                                 f"{quoted}", FIX_STDOUT)
    return failed("stdout", f"the server wrote {count} on stdout and no MCP message, the first: {quoted}",
                  FIX_STDOUT)


def stdout_before_first_message(run: SessionRun) -> tuple[list[str], bool]:
    """The lines the server wrote on stdout before its first MCP message, and whether one came at all."""
    before: list[str] = []
    for event in run.events:
        if event.dir != Direction.S2C:
            continue
        if event.kind == Kind.MESSAGE:
            return before, True
        if event.kind == Kind.FRAMING_ERROR:
            before.append(event.text())
    return before, False


def _lines(lines: list[str]) -> str:
    return f"{len(lines):,} line{'s' if len(lines) != 1 else ''}"


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "…")
