"""The inspector writes only to the user's config, data, cache and runtime folders and to the files the user
chose: nothing else on the machine is created, changed, renamed or removed.

Each process runs with HOME and every XDG folder inside a fresh temporary folder, and is watched two ways:

- a Python audit hook (audit/sitecustomize.py, loaded through PYTHONPATH by every Python process started,
  the servers included) logs every open for writing, mkdir, rename, remove, chmod, link and Unix socket bind
  that Python code asks for;
- where ``strace`` exists, the same changes at the system-call level, which also sees what Qt's C++ does
  (QSettings, fonts, the platform plugin) and what non-Python children do.

Every path written must be inside the temporary user folders or be a file the user named (``--out``);
``/dev/null`` and ``/dev/tty`` are devices, not files (subprocess pipes to /dev/null; an attempt to open the
controlling terminal, which fails offscreen); ``/proc/self/autogroup`` is the kernel's scheduling knob of the
tap's own recorder (it lowers its own priority), not a file. Python's own bytecode cache is switched off
(PYTHONDONTWRITEBYTECODE): an installed package is compiled at install time, and those writes are Python's,
not the inspector's. Reads are not checked (an interpreter reads hundreds of files to start).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers import ROOT
from security_support import children
from ui.gui_process import GuiApp, private_env

AUDIT = Path(__file__).resolve().parent / "audit"
STRACE = shutil.which("strace")
DEVICES = {"/dev/null", "/dev/tty", "/proc/self/autogroup"}
ECHO = json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}})
#: The system calls that change the file system (and bind, for Unix socket files).
SYSCALLS = ("open,openat,creat,mkdir,mkdirat,rename,renameat,renameat2,link,linkat,symlink,symlinkat,unlink,"
            "unlinkat,rmdir,chmod,fchmodat,chown,lchown,fchownat,truncate,bind,mknod,mknodat")
_WRITE_FLAGS = re.compile(r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND|O_TMPFILE")
_STRINGS = re.compile(r'"((?:[^"\\]|\\.)*)"')


@dataclass
class Watch:
    """How a process was watched, and every path it wrote."""

    home: Path
    audit_log: Path
    trace: Path | None
    written: dict[str, set[str]] = field(default_factory=dict)  #: path -> how (event or system call names)

    def env(self, **extra: str) -> dict[str, str]:
        env = private_env(self.home, MCP_INSPECTOR_AUDIT_LOG=str(self.audit_log), **extra)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(AUDIT), os.environ.get("PYTHONPATH")]))
        return env

    def prefix(self) -> list[str]:
        return [STRACE, "-f", "-qq", "-s", "4096", "-o", str(self.trace), "-e", f"trace={SYSCALLS}"] \
            if self.trace is not None else []

    def note(self, path: str, how: str) -> None:
        if os.path.normpath(path) != str(self.audit_log):  # the watcher's own log, opened by sitecustomize.py
            self.written.setdefault(os.path.normpath(path), set()).add(how)

    def collect(self, cwd: Path) -> None:
        for line in self.audit_log.read_text().splitlines():
            entry = json.loads(line)
            event, args = entry["event"], entry["args"]
            where = {"socket.bind": [1], "os.rename": [0, 1], "os.link": [0, 1], "os.symlink": [1],
                     "shutil.copyfile": [1], "shutil.move": [0, 1]}.get(event, [0])
            for path in (args[i] for i in where if i < len(args)):
                if isinstance(path, str) and not path.startswith("<"):  # not a file descriptor, not a repr
                    self.note(path if path.startswith("/") else str(cwd / path), "python " + event)
        if self.trace is None:
            return
        for line in self.trace.read_text().splitlines():
            match = re.match(r"\d+\s+(\w+)\((.*)", line)
            if match is None:
                continue
            call, rest = match.groups()
            strings = [s.encode().decode("unicode_escape").encode("latin-1").decode("utf-8", "replace")
                       for s in _STRINGS.findall(rest)]
            if call in ("open", "openat", "creat"):
                if call != "creat" and not _WRITE_FLAGS.search(rest):
                    continue
                targets = strings[:1]
            elif call in ("link", "linkat", "symlink", "symlinkat"):
                targets = strings[-1:]  # the new name; the source of a link is not changed
            elif call == "bind":
                targets = re.findall(r'sun_path="([^"]*)"', rest) or ([] if "AF_UNIX" in rest or "AF_NETLINK" in rest
                                                                      else [f"<network bind: {rest[:80]}>"])
            else:
                targets = strings[:2] if call.startswith("rename") else strings[:1]
            relative_to_fd = call.endswith("at") and not rest.startswith("AT_FDCWD") and call not in ("symlinkat",)
            for target in targets:
                if not target.startswith("/") and relative_to_fd:
                    target = f"<relative to a directory descriptor: {target}>"
                elif not target.startswith(("/", "<")):
                    target = str(cwd / target)
                self.note(target, call)

    def outside(self, allowed: list[Path]) -> dict[str, set[str]]:
        def inside(path: str) -> bool:
            # /dev/shm/sem.*: the POSIX semaphores of the worker process that parses big messages off the
            # event loop (multiprocessing makes and unlinks them at once); they hold no data
            return path in DEVICES or path.startswith("/dev/shm/sem.") or \
                any(path == str(a) or path.startswith(str(a) + os.sep) for a in allowed)

        return {path: how for path, how in self.written.items() if not inside(path)}


def descendants(pid: int) -> list[int]:
    found, todo = [], children(pid)
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children(child)
    return found


def watch(root: Path, name: str) -> Watch:
    folder = root / name
    folder.mkdir()
    return Watch(home=folder / "home", audit_log=folder / "audit.jsonl",
                 trace=folder / "strace.txt" if STRACE else None)


def paths(w: Watch) -> str:
    return f"{len(w.written)} path{'' if len(w.written) == 1 else 's'}"


def layers(w: Watch) -> str:
    return "Python audit hook and strace" if w.trace is not None else "Python audit hook only (strace not installed)"


@pytest.mark.integration  # end to end through subprocesses, 4-7 s: CI's second step
@pytest.mark.report("security", "record and tap write only to the user's folders and the chosen capture file",
                    surface="CLI")
def test_record_and_tap_write_only_to_the_users_folders_and_the_chosen_capture(short_dir, report):
    seen = []
    # record: a session with the demo, to the file the user chose
    w = watch(short_dir, "record")
    out = short_dir / "chosen" / "session.jsonl"
    out.parent.mkdir()
    send = short_dir / "send.jsonl"
    send.write_text(ECHO + "\n")
    done = subprocess.run([*w.prefix(), sys.executable, "-m", "inspector", "record", "--out", str(out), "--send",
                           str(send), "--", sys.executable, "-m", "inspector.demo"], cwd=ROOT, env=w.env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    w.collect(ROOT)
    assert w.outside([w.home, out]) == {}
    assert str(out) in w.written
    seen.append(f"record: {paths(w)} written, the --out file ({layers(w)})")
    # tap: its capture goes to the data folder by default, its live channel to the runtime folder
    w = watch(short_dir, "tap")
    env = w.env(XDG_RUNTIME_DIR=str(w.home / "run"))
    (w.home / "run").mkdir(parents=True)
    tap = subprocess.run([*w.prefix(), sys.executable, "-m", "inspector", "tap", "--", sys.executable, "-m",
                          "inspector.demo"], cwd=ROOT, env=env, input=b"", capture_output=True, timeout=120)
    assert tap.returncode == 0, tap.stderr
    w.collect(ROOT)
    captures = [p for p in w.written if p.startswith(str(w.home / "data" / "mcp-inspector" / "captures"))]
    assert captures, w.written
    assert w.outside([w.home]) == {}
    seen.append(f"tap: {paths(w)} written, its capture in the data folder ({layers(w)})")
    report.saw("every write inside the temporary HOME/XDG folders or the chosen --out file: " + "; ".join(seen))


@pytest.mark.report("security", "the window writes only to the user's config, data and runtime folders",
                    surface="GUI")
def test_the_window_writes_only_to_the_users_config_data_and_runtime_folders(short_dir, report):
    w = watch(short_dir, "gui")
    (w.home / "run").mkdir(parents=True)
    app = GuiApp(["--demo"], w.env(XDG_RUNTIME_DIR=str(w.home / "run")), call=ECHO, quit_when_answered=True,
                 prefix=w.prefix())
    try:
        capture = Path(app.ready(timeout=90)["capture"])
        app.wait_for("answered")
        app.process.wait(timeout=60)  # the window closed itself (File > Quit): settings saved, server stopped
        assert app.process.returncode == 0
    finally:
        for pid in descendants(app.pid):  # under strace, the window is strace's child: never leave it behind
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        app.stop()
    w.collect(ROOT)
    assert w.outside([w.home]) == {}, "\n".join(f"{p}: {sorted(h)}" for p, h in w.outside([w.home]).items())
    config = [p for p in w.written if p.startswith(str(w.home / "config"))]
    runtime = [p for p in w.written if p.startswith(str(w.home / "run"))]
    assert capture.exists() and str(capture) in w.written
    assert runtime, w.written  # the tap socket was bound there
    if w.trace is not None:
        assert config, w.written  # the settings (written by Qt's C++, so only strace sees them)
    report.saw(f"{paths(w)} written, all inside the temporary HOME: the capture, "
               f"{len(config)} under config (settings), {len(runtime)} under the runtime folder (tap socket); "
               f"{layers(w)}")
