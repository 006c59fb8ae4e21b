"""The warm interpreters behind tests/warm_cli.py and tests/warm_python.py: started once per test process, a
zygote imports what its children need and then forks one child per command the tests run.

Run as ``python warm_cli_zygote.py SOCKET OWNER_FD [MODE]``. It listens on the Unix socket SOCKET (a path in a
private temporary folder; no TCP port), says ``listening`` on stdout once it does, and ends when OWNER_FD, the
read end of a pipe its test process holds open, reaches end of file. MODE says what it warms and runs:

- ``cli`` (the default): the command line; each child is ``python -m inspector ARGV``.
- ``scripts``: the official MCP SDK; each child is the test server the request names (``{"path": FILE}`` or
  ``{"module": NAME}`` in ``run``), as ``python FILE ARGV`` or ``python -m NAME ARGV``. Such a child stands in
  for the process of tests/warm_python_client.py, which holds the connection: it is killed when that
  connection closes first (the client was killed) and when the zygote ends.

One request per connection: a JSON object ``{"argv", "cwd", "env", "session", "sigint"[, "run"]}`` with three
file descriptors attached (SCM_RIGHTS), which become the child's stdin, stdout and stderr. The zygote answers
``pid\\n`` at once and ``exit CODE\\n`` when the child ends (CODE as Popen's returncode: negative for a signal).
The child stays a zombie, so its pid cannot be reused, until the client closes the connection.

This file imports nothing from the tests, so the child's modules are the command's own.
"""

from __future__ import annotations

import array
import atexit
import io
import json
import os
import runpy
import selectors
import signal
import socket
import sys
import threading
import traceback

#: The command's modules, imported before the first fork so that no child pays for them. Nothing of the window:
#: the children must load Qt only if the command does (tests/cli/test_startup_imports.py checks that cold).
WARM_MODULES = (
    "asyncio", "httpx", "httpx_sse", "argparse", "json",
    "inspector.cli.main", "inspector.cli.record_cmd", "inspector.cli.tap_cmd", "inspector.cli.replay_cmd",
    "inspector.cli.show_cmd", "inspector.cli.oneshot_cmd", "inspector.cli.check_cmd", "inspector.cli.lint_cmd",
    "inspector.cli.wrap_cmd", "inspector.cli.interop_cmd", "inspector.cli.completions",
    "inspector.core.session.session", "inspector.core.record.run", "inspector.core.connect.target",
    "inspector.core.transports.stdio", "inspector.core.transports.streamable_http",
    "inspector.core.transports.http_sse", "inspector.core.protocol.judge", "inspector.core.capture",
    "inspector.core.session.rounds", "inspector.core.protocol.errata", "inspector.core.check.runner",
    "inspector.core.replay.engine", "inspector.core.explore", "inspector.core.present.markdown",
)

#: The test servers' modules (tests/warm_python.py): the SDK's server side, about 0.8 s of CPU to import.
SCRIPT_WARM_MODULES = (
    "asyncio", "json", "argparse", "anyio", "pydantic", "httpx", "starlette", "uvicorn",
    "mcp", "mcp.types", "mcp.server", "mcp.server.mcpserver", "mcp.server.lowlevel", "mcp.server.stdio",
    "mcp.server.streamable_http", "mcp.server.sse", "mcp_server_time.server",
    "inspector.demo.server",  # the demo server (tests/helpers.py DEMO)
    # tests/auth/servers/oauth_server.py
    "http.server", "joserfc.jws", "joserfc.jwt", "joserfc.jwk", "joserfc.errors",
)
MODES = {"cli": WARM_MODULES, "scripts": SCRIPT_WARM_MODULES}

MAX_REQUEST = 1 << 20


def warm_up(mode: str = "cli") -> None:
    import importlib

    for name in MODES[mode]:
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # a module renamed or gone: the child imports what it needs, only slower
    if mode == "cli":
        build_the_whole_parser()
    if any(name.startswith("PySide6") for name in sys.modules):
        raise SystemExit("warm_cli_zygote: a warm module imported Qt; the command line must not")


def build_the_whole_parser() -> None:
    """Build the command line's full parser once: every command's module is imported for its arguments (each
    child builds the parser again, for the words it was given), and argparse's first-use work is done here
    rather than in every child. The list above may fall behind the commands; this cannot."""
    try:
        from inspector.cli.main import build_parser
    except ImportError:
        return
    build_parser()


def receive(conn: socket.socket) -> tuple[dict, list[int]]:
    fds = array.array("i")
    data, ancdata, _flags, _addr = conn.recvmsg(MAX_REQUEST, socket.CMSG_SPACE(3 * fds.itemsize))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    chunks = [data]
    while not data.endswith(b"\n"):
        data = conn.recv(MAX_REQUEST)
        if not data:
            break
        chunks.append(data)
    return json.loads(b"".join(chunks)), list(fds)


def exit_code(exc: SystemExit) -> int:
    """What the interpreter makes of ``raise SystemExit(code)`` at the top level."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def fresh_stdio() -> None:
    """New ``sys.stdin``, ``sys.stdout`` and ``sys.stderr`` over fds 0-2, made as the interpreter makes them at
    start (after the child's environment is in place: PYTHONUNBUFFERED): the zygote's own were opened on
    /dev/null, and a buffered file remembers what it was opened on (seekable, position)."""
    encoding = sys.stdout.encoding
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))  # as ``python -u``: no buffer under stdout and stderr

    def stream(fd: int, name: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
        raw = io.FileIO(fd, "wb" if fd else "rb", closefd=False)
        raw.name = name  # type: ignore[misc]  # the interpreter names its standard streams so
        buffered: io.RawIOBase | io.BufferedIOBase = raw if fd and unbuffered else \
            io.BufferedWriter(raw) if fd else io.BufferedReader(raw)
        text = io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline="\n",  # type: ignore[arg-type]
                                line_buffering=line_buffering, write_through=bool(fd) and unbuffered)
        text.mode = "w" if fd else "r"  # type: ignore[misc]
        return text

    sys.stdin = sys.__stdin__ = stream(0, "<stdin>", sys.stdin.errors, os.isatty(0))
    sys.stdout = sys.__stdout__ = stream(1, "<stdout>", sys.stdout.errors, os.isatty(1))
    sys.stderr = sys.__stderr__ = stream(2, "<stderr>", "backslashreplace", True)


def die_with_the_zygote() -> None:
    """Linux's parent-death signal: the child is killed when the zygote, its parent, ends."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)


def run_target(request: dict) -> None:
    """Run the request's program as ``python FILE ARGV`` or ``python -m NAME ARGV`` would (``python -m
    inspector`` when the request names none)."""
    target = request.get("run") or {"module": "inspector"}
    if "path" in target:
        path = target["path"]
        sys.path[0] = os.path.dirname(os.path.abspath(path))  # as ``python FILE`` sets it
        sys.argv = [path, *request["argv"]]
        runpy.run_path(path, run_name="__main__")
    else:
        sys.path[0] = os.getcwd()  # as ``python -m`` sets it
        sys.argv = ["-m", *request["argv"]]
        runpy.run_module(target["module"], run_name="__main__", alter_sys=True)


def run_child(request: dict, fds: list[int], closing: list[int], mode: str = "cli") -> None:
    """In the forked child: become the requested program in the test's folder, environment and stdio."""
    code = 1
    try:
        for fd in closing:
            os.close(fd)
        if mode == "scripts":
            die_with_the_zygote()
        if request["session"]:
            os.setsid()
        else:
            os.setpgid(0, 0)  # never the zygote's group: a test's killpg must not reach the zygote
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        for fd in set(fds):
            if fd > 2:
                os.close(fd)
        signal.signal(signal.SIGINT, signal.SIG_IGN if request["sigint"] == "ignore" else signal.default_int_handler)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        fresh_stdio()
        try:
            run_target(request)
            code = 0
        except SystemExit as exc:
            code = exit_code(exc)
        except KeyboardInterrupt:
            traceback.print_exc()
            code = -signal.SIGINT
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        threading._shutdown()  # type: ignore[attr-defined]  # joins non-daemon threads, as interpreter exit does
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                code = code or 120  # the interpreter's code for stdout lost at exit
        if code == -signal.SIGINT:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        os._exit(code if code >= 0 else 1)


def closed_by_peer(conn: socket.socket) -> bool:
    """Whether a readable connection says its other end closed (end of file, or an error); a stray byte is
    read and ignored."""
    try:
        return not conn.recv(1)
    except OSError:
        return True


def serve(path: str, owner_fd: int, mode: str = "cli") -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    os.write(1, b"listening\n")  # the test process waits for this line (tests/warm_cli.py)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # and reads no more: nothing else may block on that pipe
    os.close(devnull)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(owner_fd, selectors.EVENT_READ, "owner")
    children: dict[int, tuple[int, socket.socket]] = {}  # pidfd -> (pid, connection)
    waiting_close: dict[socket.socket, int] = {}  # connection -> pid of an exited, unreaped child
    watched: dict[socket.socket, int] = {}  # scripts: connection -> pid of its running child
    while True:
        for key, _mask in selector.select():
            what = key.data
            if what == "owner":
                return
            if what == "accept":
                conn, _ = listener.accept()
                try:
                    request, fds = receive(conn)
                except (OSError, ValueError):
                    conn.close()
                    continue
                own = [listener.fileno(), owner_fd, conn.fileno(), *(k.fd for k in selector.get_map().values()),
                       *(other.fileno() for _pid, other in children.values())]
                pid = os.fork()
                if pid == 0:
                    run_child(request, fds, sorted(set(own)), mode)
                for fd in fds:
                    os.close(fd)
                pidfd = os.pidfd_open(pid)
                children[pidfd] = (pid, conn)
                selector.register(pidfd, selectors.EVENT_READ, "child")
                try:
                    conn.sendall(f"{pid}\n".encode())
                except OSError:
                    pass
                if mode == "scripts":  # the client holds the connection while it stands for the child
                    watched[conn] = pid
                    selector.register(conn, selectors.EVENT_READ, "client")
            elif what == "client":
                conn = key.fileobj  # type: ignore[assignment]
                if not closed_by_peer(conn):
                    continue
                selector.unregister(conn)  # the client is gone: so is the program it stood for
                try:
                    os.killpg(watched.pop(conn), signal.SIGKILL)
                except OSError:
                    pass
            elif what == "child":
                pidfd = key.fd
                selector.unregister(pidfd)
                os.close(pidfd)
                pid, conn = children.pop(pidfd)
                if watched.pop(conn, None) is not None:
                    selector.unregister(conn)
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
                code = info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
                try:
                    conn.sendall(f"exit {code}\n".encode())
                except OSError:
                    pass
                waiting_close[conn] = pid
                selector.register(conn, selectors.EVENT_READ, "closed")
            elif what == "closed":
                conn = key.fileobj  # type: ignore[assignment]
                if not closed_by_peer(conn):
                    continue
                selector.unregister(conn)
                os.waitpid(waiting_close.pop(conn), 0)
                conn.close()


def main() -> None:
    path, owner_fd = sys.argv[1], int(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else "cli"
    sys.path[0] = os.getcwd()  # as ``python -m inspector`` would have it in the test process's folder
    warm_up(mode)
    import gc

    gc.freeze()  # the warm objects stay out of the children's collections: fewer pages copied on write
    serve(path, owner_fd, mode)


if __name__ == "__main__":
    main()
