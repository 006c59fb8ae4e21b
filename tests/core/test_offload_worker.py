"""The worker process of :mod:`inspector.core.offload` never outlives the process that started it: a window
killed outright (SIGKILL, a crash) used to leave its worker idling on as an orphan, ~75 MB each (the suite
found three after a run)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from helpers import ROOT, wait_until

from inspector.core import offload

OWNER = """
import os, sys
from inspector.core import offload

def main():
    offload.use_workers(True)
    print(offload.submit(os.getpid).result(timeout=60), flush=True)
    sys.stdin.read()  # until the test kills this process

if __name__ == "__main__":
    main()
"""


def _gone(pid: int) -> bool:
    """No such process, or only its zombie (an orphan is reaped by whoever adopted it, maybe later)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state == "Z"


def test_the_worker_ends_itself_when_its_owner_is_killed_outright(tmp_path):
    script = tmp_path / "owner.py"
    script.write_text(OWNER)
    with subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, cwd=ROOT) as owner:
        try:
            assert owner.stdout is not None
            worker = int(owner.stdout.readline())
            assert worker != owner.pid and not _gone(worker)
            os.kill(owner.pid, signal.SIGKILL)
            owner.wait(timeout=10)
            wait_until(lambda: _gone(worker), 10 * offload.OWNER_POLL_SECONDS, "the orphaned worker to end itself")
        finally:
            owner.kill()
