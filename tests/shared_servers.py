"""Well-behaved HTTP servers shared by every test process of a run (the pytest-xdist workers), started by the
first worker that needs one and stopped when the last worker using it ends.

Why: a session-scoped fixture is made once per worker, so with six workers the SDK and server-everything HTTP
servers were each started up to six times, 0.5-0.9 s of CPU apiece (issue 17). These servers keep no state
between sessions a test looks at, and each test opens sessions of its own, so one per run serves all.

How: the run's controller names a private folder in ``MCP_INSPECTOR_TESTS_SHARED_SERVERS``
(:func:`configure`); every worker inherits it. Under a lock, each server's state file there says its pid, port,
log and how many workers use it. A worker's session teardown takes its use back; the last one kills the
server's process group. :func:`unconfigure`, in the controller, kills whatever a crashed worker left.
Servers a test freezes, kills or reads the log of are never shared.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from helpers import kill_group
from npm_servers import file_lock

from inspector.core.transports.process_group import process_state

if TYPE_CHECKING:
    from http_support import ServerProcess

FOLDER_VARIABLE = "MCP_INSPECTOR_TESTS_SHARED_SERVERS"
_STARTED: list[subprocess.Popen[bytes]] = []
#: Starting a server takes a second or two; another worker waiting for the lock waits that long at most.
LOCK_TIMEOUT = 120.0


def configure() -> None:
    """In the controller (or a run without workers): the folder every worker of this run shares."""
    if FOLDER_VARIABLE not in os.environ:
        os.environ[FOLDER_VARIABLE] = tempfile.mkdtemp(prefix="mcpi-shared-servers-")


def unconfigure() -> None:
    """In the controller, at the end of the run: kill any server still listed, and remove the folder."""
    folder = os.environ.pop(FOLDER_VARIABLE, None)
    if folder is None:
        return
    for state_file in Path(folder).glob("*.json"):
        try:
            kill_group(json.loads(state_file.read_text())["pid"])
        except (OSError, ValueError, KeyError):
            pass
    shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    return process_state(pid) not in (None, "Z", "X")


@contextmanager
def shared(key: str, start: Callable[[Path], ServerProcess]) -> Iterator[ServerProcess]:
    """The run's server ``key``: started with ``start(folder)`` by the first worker to ask, else the running
    one. Yields it for this worker's session; the last worker to let go kills it."""
    from http_support import ServerProcess, stop  # tests/http/, on the path once its conftest is loaded

    folder = Path(os.environ.get(FOLDER_VARIABLE) or tempfile.mkdtemp(prefix="mcpi-shared-servers-"))
    state_file = folder / f"{key}.json"
    lock = folder / f"{key}.lock"
    with file_lock(lock, LOCK_TIMEOUT):
        state = json.loads(state_file.read_text()) if state_file.exists() else None
        if state is not None and _alive(state["pid"]):
            state["users"] += 1
            server = ServerProcess(state["name"], None, state["port"], Path(state["log"]))
        else:
            server = start(folder)
            assert server.process is not None
            state = {"name": server.name, "pid": server.process.pid, "port": server.port, "log": str(server.log),
                     "users": 1}
        state_file.write_text(json.dumps(state))
        if server.process is not None:
            _STARTED.append(server.process)  # reaped at exit if another worker stops it; never garbage mid-run
    try:
        yield server
    finally:
        with file_lock(lock, LOCK_TIMEOUT):
            state = json.loads(state_file.read_text())
            state["users"] -= 1
            last = state["users"] <= 0
            if last:
                state_file.unlink()
                kill_group(state["pid"])
            else:
                state_file.write_text(json.dumps(state))
        if last and server.process is not None:
            stop(server)  # this worker started it: reap it
