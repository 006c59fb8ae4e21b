"""``tap --watch``'s refusals (inspector/cli/tap_cmd.py): each one sentence and exit status 2, before anything
starts."""

from __future__ import annotations

import sys

from helpers import cli

NEVER_RUN = [sys.executable, "-c", "raise SystemExit('the server was started')"]


def test_a_missing_watch_path_is_one_sentence_and_exit_2_before_the_server_starts(tmp_path):
    missing = tmp_path / "nowhere"
    done = cli("tap", "--no-live", "--capture", str(tmp_path / "c.jsonl"), "--watch", str(tmp_path),
               "--watch", str(missing), "--", *NEVER_RUN)
    assert done.returncode == 2
    assert done.stderr == f"mcp-inspector tap: --watch {missing}: there is no such file or folder.\n"
    assert not (tmp_path / "c.jsonl").exists()


def test_watch_on_an_http_tap_is_refused_in_one_sentence():
    done = cli("tap", "--no-live", "--url", "http://127.0.0.1:9/mcp", "--watch", ".")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--watch" in done.stderr and "HTTP tap" in done.stderr


def test_watch_ignore_without_watch_is_refused_in_one_sentence(tmp_path):
    done = cli("tap", "--no-live", "--watch-ignore", "*.log", "--", *NEVER_RUN)
    assert done.returncode == 2
    assert done.stderr == ("mcp-inspector tap: --watch-ignore goes with --watch (the paths whose changes restart "
                           "the server)\n")
