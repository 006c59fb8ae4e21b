"""Memory per message: the peak resident memory of `record` (stdio) and of `tap` while one big result crosses.

A small stdio server (this script with --serve) answers `initialize` and then any request with one result of
--size-mb whose text is ASCII (--text emoji: a text with an emoji every 100 characters, which Python keeps as
4 bytes a character), copied from a prepared file a piece at a time, so the server itself stays small.

  record     mcp-inspector record --send (one tools/call) -- the server: the record process's peak RSS
  tap        a client (this script) sends one tools/call through mcp-inspector tap --no-live and reads the
             answer: the relay's and the recorder's peaks (two processes), and their sum (an upper bound of
             what the tap held at once)
  baseline   a bare Python reading the same line from a pipe (readline): the interpreter and one copy

Peaks are each process's VmHWM (the kernel's high-water mark of its RSS), read from /proc every 2 ms until it
ends. Goal (issue 17, item 3): at most 2x the largest message + 60 MB.
Run: python benchmarks/message_memory.py [--size-mb 40] [--text ascii|emoji] [--before DIR]
  (--before DIR: also measure the code of another checkout, e.g. a worktree of the commit before the change)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PATTERN = "The quick brown fox jumps over the lazy dog. 0123456789 "
MB = 1024 * 1024


def make_message(path: Path, size: int, text: str) -> None:
    """The result line after `"id":`, written to ``path``: {"jsonrpc":"2.0","id":<id>,"result":{...}}."""
    unit = PATTERN * 2 if text == "ascii" else (PATTERN * 2)[:96] + "😀"
    body = (unit * (size // len(unit.encode()) + 1))
    body = body.encode()[:size].decode(errors="ignore")
    result = json.dumps({"content": [{"type": "text", "text": body}]}, ensure_ascii=False, separators=(",", ":"))
    path.write_text(',"result":' + result + "}\n", encoding="utf-8")


def serve(path: str) -> None:
    """The server: answers each request; `initialize` with a small result, anything else with the big one."""
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if "id" not in message or "method" not in message:
            continue
        head = '{"jsonrpc":"2.0","id":' + json.dumps(message["id"])
        if message["method"] == "initialize":
            out.write((head + ',"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},'
                       '"serverInfo":{"name":"big","version":"1"}}}\n').encode())
        else:
            out.write(head.encode())
            with open(path, "rb") as source:
                shutil.copyfileobj(source, out, MB)
        out.flush()


class Peaks:
    """Polls the VmHWM of a process and its descendants until stopped."""

    def __init__(self, root: int) -> None:
        self.root = root
        self.peaks: dict[int, tuple[str, int]] = {}  # pid -> (command, peak bytes)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _children(self, pid: int) -> list[int]:
        try:
            tasks = Path(f"/proc/{pid}/task").iterdir()
            found = []
            for task in tasks:
                found += [int(c) for c in (task / "children").read_text().split()]
            return found
        except OSError:
            return []

    def _run(self) -> None:
        while not self._stop.is_set():
            todo = [self.root, *self.peaks]  # the ones seen before too: the tap's recorder outlives the relay
            seen: set[int] = set()
            while todo:
                pid = todo.pop()
                if pid in seen:
                    continue
                seen.add(pid)
                todo += self._children(pid)
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                    command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
                except OSError:
                    continue
                for line in status.splitlines():
                    if line.startswith("VmHWM:"):
                        peak = int(line.split()[1]) * 1024
                        old = self.peaks.get(pid, ("", 0))
                        self.peaks[pid] = (command or old[0], max(peak, old[1]))
            time.sleep(0.002)

    def stop(self) -> dict[int, tuple[str, int]]:
        self._stop.set()
        self._thread.join()
        return self.peaks


def env_for(code: Path) -> dict[str, str]:
    """The environment that runs ``code``'s inspector (the processes also run in a temporary directory: with
    ``python -m``, the current directory comes first on the path and would win over PYTHONPATH)."""
    return {**os.environ, "PYTHONPATH": str(code)}


def measure_record(code: Path, message: Path, tmp: Path) -> int:
    calls = tmp / "calls.jsonl"
    calls.write_text(json.dumps({"method": "tools/call", "params": {"name": "big", "arguments": {}}}) + "\n")
    out = tmp / "record.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "record", "--out", str(out), "--send", str(calls), "--timeout", "300",
         "--max-message", "1G", "--handshake", "legacy", "--",
         sys.executable, str(Path(__file__).resolve()), "--serve", str(message)],
        env=env_for(code), cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks = Peaks(process.pid)
    _, err = process.communicate()
    found = peaks.stop()
    if process.returncode != 0:
        raise SystemExit(f"record failed ({process.returncode}): {err.decode()[-500:]}")
    return found[process.pid][1]


def measure_tap(code: Path, message: Path, tmp: Path, size: int) -> tuple[int, int]:
    capture = tmp / "tap.jsonl"
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "tap", "--no-live", "--capture", str(capture), "--max-message", "1G",
         "--", sys.executable, str(Path(__file__).resolve()), "--serve", str(message)],
        env=env_for(code), cwd=tmp, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    peaks = Peaks(process.pid)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"big"}}\n')
    process.stdin.flush()
    got = 0
    while True:  # the client reads the answer a piece at a time, as a byte-counting client would
        piece = process.stdout.read1(MB)
        if not piece:
            raise SystemExit("tap ended before the answer")
        got += len(piece)
        if piece.endswith(b"\n") and got >= size:
            break
    process.stdin.close()
    process.stdout.read()
    process.wait(300)
    deadline = time.time() + 300
    while time.time() < deadline:  # the recorder may finish after the relay: wait until the capture is complete
        if capture.exists() and b"exited" in capture.read_bytes()[-4096:]:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    found = peaks.stop()
    relay = found.get(process.pid, ("", 0))[1]
    recorder = max((peak for pid, (command, peak) in found.items() if pid != process.pid and "--serve" not in command),
                   default=0)
    return relay, recorder


def measure_baseline(message: Path) -> int:
    code = ("import sys\nline = sys.stdin.buffer.readline()\n"
            "import resource\nprint(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)")
    with open(message, "rb") as source:
        done = subprocess.run([sys.executable, "-c", code], stdin=source, capture_output=True, check=True)
    return int(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=40)
    parser.add_argument("--text", choices=("ascii", "emoji"), default="ascii")
    parser.add_argument("--before", type=Path, help="another checkout to measure too (the code before)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    size = int(args.size_mb * MB)
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        message = tmp / "message.txt"
        make_message(message, size, args.text)
        line = message.stat().st_size + len('{"jsonrpc":"2.0","id":1')
        goal = 2 * line + 60 * MB
        print(f"one {line:,}-byte result ({args.text} text); python {sys.version.split()[0]}, {os.cpu_count()} "
              f"cores, load average {os.getloadavg()[0]:.1f}; goal: at most 2x + 60 MB = {goal / MB:.0f} MB")
        print(f"  baseline: python readline of the line: peak {measure_baseline(message) / MB:.0f} MB")
        for label, code in (("before", args.before), ("after", ROOT)):
            if code is None:
                continue
            record = measure_record(code, message, tmp)
            relay, recorder = measure_tap(code, message, tmp, line)
            print(f"  {label}: record {record / MB:.0f} MB ({record / line:.2f}x the message) "
                  f"{'met' if record <= goal else 'NOT met'}; tap relay {relay / MB:.0f} MB, recorder "
                  f"{recorder / MB:.0f} MB ({recorder / line:.2f}x), both {(relay + recorder) / MB:.0f} MB "
                  f"{'met' if relay + recorder <= goal else 'NOT met'}")


if __name__ == "__main__":
    main()
