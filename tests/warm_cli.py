"""``python -m inspector ARGS`` for the tests, started from a warm interpreter: ``run`` and ``Popen`` are
drop-ins for ``subprocess.run`` and ``subprocess.Popen``.

Why: the suite runs the command about 400 times. A fresh interpreter spends about 0.2 s of CPU starting
Python and importing the command before it does anything, a quarter of the suite's CPU on the 2-core machine
(issue 17). Here a zygote (tests/warm_cli_zygote.py), started once per test process, has done that once, and
forks a child per command.

What stays real: the command runs in a process of its own, with its own pid and process group, the test's
folder and environment, and the test's pipes or files as stdin, stdout and stderr; its exit status and the
signals sent to it are the process's. What a warm run does not exercise is the interpreter's own start and the
import of the command: tests/cli/test_startup_imports.py, tests/cli/test_cli_reference.py and
tests/packaging/ start it cold, and ``MCP_INSPECTOR_TESTS_COLD_CLI=1`` runs every command cold.

The variables an interpreter reads when it starts (``PYTHON*``, the locale's) are those of the zygote the
child is forked from: there is one zygote per set of them. A call the zygote cannot reproduce falls back to a
cold ``subprocess`` run: another executable or interpreter options, a ``preexec_fn`` or ``pass_fds``.
"""

from __future__ import annotations

import array
import atexit
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ZYGOTE = Path(__file__).with_name("warm_cli_zygote.py")
INSPECTOR = [sys.executable, "-m", "inspector"]
#: The zygote's start: imports only, well under a second; bounded so a broken zygote fails with a sentence.
ZYGOTE_START_TIMEOUT = 30.0
COLD = os.environ.get("MCP_INSPECTOR_TESTS_COLD_CLI") == "1"
#: Variables read when an interpreter starts, besides PYTHON*: each set of values has its own zygote.
_STARTUP_VARIABLES = ("LANG", "LC_ALL", "LC_CTYPE")
_PRISTINE_ENV = dict(os.environ)


def _is_startup_variable(name: str) -> bool:
    return name.startswith("PYTHON") or name in _STARTUP_VARIABLES


def _startup_environment(env: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if _is_startup_variable(key)}


def _without_startup(env: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if not _is_startup_variable(key)}


class _Zygote:
    """A warm interpreter per test process and set of startup variables, started on first use and ended with
    the test process."""

    _lock = threading.Lock()
    _instances: dict[tuple[object, ...], _Zygote] = {}

    def __init__(self, startup: dict[str, str], mode: str = "cli") -> None:
        self.folder = tempfile.mkdtemp(prefix=f"warm-{mode}-")
        self.path = os.path.join(self.folder, "zygote.sock")
        owner_read, self._owner_write = os.pipe()
        self.log = open(os.path.join(self.folder, "zygote.log"), "wb")
        self.process = subprocess.Popen([sys.executable, str(ZYGOTE), self.path, str(owner_read), mode],
                                        pass_fds=(owner_read,), stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=self.log,
                                        env={**_without_startup(_PRISTINE_ENV), **startup},
                                        start_new_session=True)
        os.close(owner_read)
        self._listening = False
        atexit.register(self.close)

    @classmethod
    def get(cls, env: dict[str, str], mode: str = "cli") -> _Zygote:
        """The zygote of ``mode`` whose interpreter started with ``env``'s startup variables (one per distinct
        set)."""
        startup = _startup_environment(env)
        key = (mode, *sorted(startup.items()))
        with cls._lock:
            zygote = cls._instances.get(key)
            if zygote is None or zygote.process.poll() is not None:
                zygote = cls._instances[key] = cls(startup, mode)
            return zygote

    def wait_listening(self) -> None:
        """Return once the zygote says it listens (bounded), the first time; at once after that."""
        if not self._listening:
            assert self.process.stdout is not None
            ready, _, _ = select.select([self.process.stdout], [], [], ZYGOTE_START_TIMEOUT)
            if not ready:
                raise RuntimeError(f"the warm CLI zygote did not listen within {ZYGOTE_START_TIMEOUT:g} s")
            if self.process.stdout.readline() != b"listening\n":
                self.process.wait(5)
                raise RuntimeError(f"the warm CLI zygote exited with code {self.process.returncode}: "
                                   f"{Path(self.log.name).read_text(errors='replace')[-2000:]}")
            self._listening = True

    def connect(self) -> socket.socket:
        """A connection to the zygote, once it listens."""
        self.wait_listening()
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(self.path)
        return conn

    def close(self) -> None:
        os.close(self._owner_write)  # the zygote ends at end of file
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()
        if self.process.stdout is not None:
            self.process.stdout.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def zygote_pids() -> set[int]:
    """The zygotes of this test process: a test that looks for its own child processes counts theirs as its own
    (a command run here is the zygote's child, where a cold one would be the test's)."""
    return {zygote.process.pid for zygote in _Zygote._instances.values() if zygote.process.poll() is None}


def warm_possible(args: Any, kwargs: dict[str, Any]) -> bool:
    """Whether this Popen call can run from the zygote (see the module docstring)."""
    if COLD or not isinstance(args, (list, tuple)) or list(args[:3]) != INSPECTOR:
        return False
    if kwargs.get("preexec_fn") is not None or kwargs.get("pass_fds") or kwargs.get("shell"):
        return False
    if any(kwargs.get(name) not in (None, -1, False) for name in ("executable", "user", "group", "extra_groups",
                                                                    "umask", "process_group")):
        return False
    return True


class WarmPopen(subprocess.Popen):  # type: ignore[type-arg]  # str or bytes, as subprocess.Popen
    """A ``subprocess.Popen`` whose child is forked by the zygote; pipes, waits and signals work as usual."""

    _conn: socket.socket | None = None
    #: the child ignores SIGINT where this test process does, as a child inherits it
    sigint_default = False

    def _execute_child(self, args: Any, executable: Any, preexec_fn: Any, close_fds: Any, pass_fds: Any,
                       cwd: Any, env: Any, startupinfo: Any, creationflags: Any, shell: Any,
                       p2cread: int, p2cwrite: int, c2pread: int, c2pwrite: int, errread: int, errwrite: int,
                       restore_signals: Any, gid: Any, gids: Any, uid: Any, umask: Any,
                       start_new_session: bool, process_group: Any) -> None:
        request = {
            "argv": [os.fsdecode(arg) for arg in args[3:]],
            "cwd": os.path.abspath(os.fsdecode(cwd)) if cwd is not None else os.getcwd(),
            "env": {os.fsdecode(k): os.fsdecode(v) for k, v in (env if env is not None else os.environ).items()},
            "session": bool(start_new_session),
            "sigint": "ignore" if _sigint_ignored() and not self.sigint_default else "default",
        }
        fds = [p2cread if p2cread != -1 else 0, c2pwrite if c2pwrite != -1 else 1, errwrite if errwrite != -1 else 2]
        conn = _Zygote.get(request["env"]).connect()
        try:
            conn.sendmsg([json.dumps(request).encode() + b"\n"],
                         [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
            line = self._read_line(conn, None)
            if not line:
                raise RuntimeError("the warm CLI zygote closed the connection before starting the command")
            self.pid = int(line)
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        self._child_created = True
        # Close the child's ends here, as subprocess's own _execute_child does after its fork.
        devnull = getattr(self, "_devnull", None)
        if p2cread != -1 and p2cwrite != -1 and p2cread != devnull:
            os.close(p2cread)
        if c2pwrite != -1 and c2pread != -1 and c2pwrite != devnull:
            os.close(c2pwrite)
        if errwrite != -1 and errread != -1 and errwrite != devnull:
            os.close(errwrite)
        if devnull is not None:
            os.close(devnull)

    _buffer = b""

    def _read_line(self, conn: socket.socket, timeout: float | None) -> bytes | None:
        """One line from the zygote; None if none is there within ``timeout`` (None: wait)."""
        while b"\n" not in self._buffer:
            ready, _, _ = select.select([conn], [], [], timeout)
            if not ready:
                return None
            chunk = conn.recv(4096)
            if not chunk:
                line, self._buffer = self._buffer, b""
                return line
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _exit_status(self, timeout: float | None) -> int | None:
        """The child's wait status once it has ended (read from the zygote), else None."""
        if self._conn is None:
            return None
        line = self._read_line(self._conn, timeout)
        if line is None:
            return None
        self._conn.close()  # lets the zygote reap the child; until then its pid cannot be reused
        self._conn = None
        if not line.startswith(b"exit "):
            raise RuntimeError(f"the warm CLI zygote ended without the command's exit status ({line!r})")
        code = int(line.split()[1])
        return -code if code < 0 else code << 8  # a wait status, as os.waitpid gives

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        status = self._exit_status(0 if wait_flags & os.WNOHANG else None)
        return (0, 0) if status is None else (self.pid, status)

    def _internal_poll(self, _deadstate: Any = None, **_ignored: Any) -> int | None:
        if self.returncode is None and self._waitpid_lock.acquire(False):
            try:
                if self.returncode is None:
                    status = self._exit_status(0)
                    if status is not None:
                        self._handle_exitstatus(status)
            finally:
                self._waitpid_lock.release()
        return self.returncode


class _WarmPopenSigintDefault(WarmPopen):
    sigint_default = True


def _sigint_ignored() -> bool:
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def Popen(args: Any, *, sigint_default: bool = False, **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen``, from the zygote when ``args`` is ``python -m inspector ...`` and it can be.

    ``sigint_default``: the child takes Ctrl-C (SIGINT) as a user's command does, even where this test process
    ignores it (a run started in the background ignores SIGINT, and a child inherits that); warm or cold."""
    if warm_possible(args, kwargs):
        return (_WarmPopenSigintDefault if sigint_default else WarmPopen)(args, **kwargs)
    if sigint_default and _sigint_ignored() and kwargs.get("preexec_fn") is None:
        kwargs["preexec_fn"] = _default_sigint
    return subprocess.Popen(args, **kwargs)


def run(args: Any, *, input: Any = None, capture_output: bool = False, timeout: float | None = None,
        check: bool = False, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """``subprocess.run``, with ``Popen`` above."""
    if not warm_possible(args, kwargs):
        return subprocess.run(args, input=input, capture_output=capture_output, timeout=timeout, check=check,
                              **kwargs)
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    with WarmPopen(args, **kwargs) as process:
        try:
            stdout, stderr = process.communicate(input, timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise
        except BaseException:
            process.kill()
            raise
        code = process.poll()
        assert code is not None
    if check and code:
        raise subprocess.CalledProcessError(code, process.args, output=stdout, stderr=stderr)
    return subprocess.CompletedProcess(process.args, code, stdout, stderr)
