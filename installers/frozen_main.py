"""Entry point of the frozen (PyInstaller) mcp-inspector: the ``mcp-inspector`` command, and the interpreter.

In a frozen app ``sys.executable`` is this binary, not a Python interpreter. The inspector runs Python
through ``sys.executable`` in three places: the demo server (``sys.executable -m inspector.demo``, from
``--demo`` and Session > Demo), the entries ``wrap`` writes into a client's config (``... -m inspector tap``)
and wrap's check that tap can be started (``... -c "import inspector.core.tap.relay"``). So the binary answers the
two interpreter forms those use, as ``python`` would:

    mcp-inspector -m MODULE [ARGS...]   run a bundled module as __main__ (inspector, inspector.demo)
    mcp-inspector -c CODE [ARGS...]     run CODE

Any other arguments are the ``mcp-inspector`` command line. Neither form is a valid mcp-inspector command
line (the command has no -m or -c option), so nothing the user types changes meaning.
"""

from __future__ import annotations

import multiprocessing
import runpy
import sys


def main() -> None:
    # the window's worker process (inspector/core/offload.py) is this binary started by multiprocessing
    multiprocessing.freeze_support()
    argv = sys.argv
    if len(argv) >= 3 and argv[1] == "-m":
        module = argv[2]
        sys.argv = [argv[0], *argv[3:]]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return
    if len(argv) >= 3 and argv[1] == "-c":
        code = argv[2]
        sys.argv = ["-c", *argv[3:]]
        exec(compile(code, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
        return
    from inspector.cli.main import main as command

    raise SystemExit(command())


if __name__ == "__main__":
    main()
