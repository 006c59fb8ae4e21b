"""tests/warm_python.py starts a test server forked from a warm interpreter: whoever starts the command sees
what ``python FILE ARGS`` would give them (its bytes, folder, environment, exit status and signals), the
server is gone once the command is, and without a zygote the command runs cold."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import warm_cli
import warm_python
from helpers import wait_until
from warm_python_client import VARIABLE

pytestmark = pytest.mark.skipif(warm_cli.COLD, reason="MCP_INSPECTOR_TESTS_COLD_CLI=1 starts every server cold")

PROBE = '''
import os, sys
print(repr(sys.argv[1:]), os.getcwd(), os.environ.get("PROBE_VALUE"), sys.path[0] == os.path.dirname(__file__),
      __name__, flush=True)
print("pid", os.getpid(), flush=True)
for line in sys.stdin:
    if line.strip() == "exit":
        sys.stderr.write("bye\\n")
        sys.exit(3)
    print("echo", line.strip(), flush=True)
'''


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    return script


def talk(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, input="hello\nexit\n", capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=60)


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_a_warm_server_gives_the_same_bytes_status_argv_folder_and_environment_as_a_cold_one(probe, tmp_path):
    warm_argv = warm_python.command(probe, "a b", "--flag")
    env = {**os.environ, "PROBE_VALUE": "x"}
    warm = talk(warm_argv, tmp_path, env)
    cold = talk([sys.executable, str(probe), "a b", "--flag"], tmp_path, env)
    strip = [line for line in warm.stdout.splitlines() if not line.startswith("pid ")]
    assert strip == [line for line in cold.stdout.splitlines() if not line.startswith("pid ")]
    assert strip[0] == f"['a b', '--flag'] {tmp_path} x True __main__"
    assert (warm.returncode, warm.stderr) == (cold.returncode, cold.stderr) == (3, "bye\n")


def test_the_server_is_a_child_of_the_zygote_and_a_signal_to_the_command_ends_it_with_that_signal(probe, tmp_path):
    with subprocess.Popen(warm_python.command(probe), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          cwd=tmp_path, start_new_session=True) as process:
        try:
            process.stdout.readline()
            server = int(process.stdout.readline().split()[1])
            assert server != process.pid and parent_of(server) in warm_cli.zygote_pids()
            os.killpg(process.pid, signal.SIGTERM)  # as the inspector stops a server: its process group
            assert process.wait(30) == -signal.SIGTERM
            wait_until(lambda: not Path(f"/proc/{server}").exists(), 30, "the server to end")
        finally:
            process.kill()


def test_a_killed_command_takes_its_server_with_it_and_its_stdout_ends(probe, tmp_path):
    with subprocess.Popen(warm_python.command(probe), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          cwd=tmp_path) as process:
        process.stdout.readline()
        server = int(process.stdout.readline().split()[1])
        process.kill()
        assert process.wait(30) == -signal.SIGKILL
        wait_until(lambda: not Path(f"/proc/{server}").exists(), 30, "the server to be killed")
        assert process.stdout.read() == ""  # end of file: no process holds the pipe any more


def test_without_a_zygote_named_the_command_runs_the_server_cold(probe, tmp_path):
    env = {key: value for key, value in os.environ.items() if key != VARIABLE}
    done = talk(warm_python.command(probe), tmp_path, env)
    assert done.returncode == 3 and done.stdout.startswith("[] ")
    pid = int(done.stdout.splitlines()[1].split()[1])
    assert pid  # the cold server was the command's own process (exec): nothing to compare its parent with
