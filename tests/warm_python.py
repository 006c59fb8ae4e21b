"""Commands that start the suite's Python test servers built on the official MCP SDK from a warm interpreter:
``command(FILE, *ARGS)`` and ``module_command(NAME, *ARGS)`` are drop-ins for ``[sys.executable, FILE, *ARGS]``
and ``[sys.executable, "-m", NAME, *ARGS]``, to give to the inspector (or to Popen) as a server's command.

Why: importing the SDK's server side takes about 0.8 s of CPU, and the suite starts such servers about a
hundred times, a sixth of its CPU on the 2-core machine (issue 25). Here a zygote per test process
(tests/warm_cli_zygote.py, mode ``scripts``) has imported it once, and forks the server.

What stays real: the command is a process of its own (tests/warm_python_client.py) that the inspector starts,
writes to, reads and signals as it would the server; the server runs in a fork of the zygote with that
process's pipes, folder and environment, and its exit status and the signals sent to it are that process's
(see the client's docstring). What a warm server does not exercise is its interpreter's start and import.
``MCP_INSPECTOR_TESTS_COLD_CLI=1`` starts every server cold, as it runs every command cold (tests/warm_cli.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from warm_cli import _PRISTINE_ENV, COLD, _Zygote
from warm_python_client import VARIABLE

CLIENT = Path(__file__).with_name("warm_python_client.py")


def start() -> None:
    """Start this test process's script zygote (and wait until it listens), and name it in this process's
    environment, so that every inspector the tests start hands it to its servers' commands. The suite's
    conftest does this once per test process; a command given before (or in a process that did not) runs its
    server cold."""
    if COLD:
        return
    zygote = _Zygote.get(_PRISTINE_ENV, "scripts")
    zygote.wait_listening()
    os.environ[VARIABLE] = zygote.path


def command(script: str | os.PathLike[str], *args: str) -> list[str]:
    """``python SCRIPT ARGS``, the server forked from the warm interpreter."""
    if COLD:
        return [sys.executable, str(script), *args]
    return [sys.executable, "-I", "-S", str(CLIENT), str(script), *args]


def module_command(module: str, *args: str) -> list[str]:
    """``python -m MODULE ARGS``, the server forked from the warm interpreter."""
    if COLD:
        return [sys.executable, "-m", module, *args]
    return [sys.executable, "-I", "-S", str(CLIENT), "-m", module, *args]
