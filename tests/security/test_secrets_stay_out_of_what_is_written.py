"""Secrets the adversarial pass found written in clear stay out of captures and output (issue 26, point 6):
a HAR's ``Authorization``, ``Cookie`` and ``Set-Cookie`` on ``import`` (data/secrets.har, the pass's
imp/ok.har), an access token ending in a line break (servers/hostile_oauth_server.py ``token-trailing-nl``),
and environment secrets under names and in shapes the rules missed (data/secrets-config.jsonc, the pass's
cfg/jsonc.json, run through ``record --config``)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import cli, kill_group, wait_until

from inspector.core.exits import EXIT_OK
from inspector.core.redaction import REDACTED, redact_argv, redact_env

DATA = Path(__file__).resolve().parent / "data"
HOSTILE_SERVER = Path(__file__).resolve().parent / "servers" / "hostile_oauth_server.py"
MEMORY = {"MCP_INSPECTOR_TOKEN_STORE": "memory"}
#: Bound on the hostile server coming up.
STARTUP_TIMEOUT = 30.0


@pytest.mark.report("security", "import keeps no Authorization, Cookie or Set-Cookie of a HAR in clear",
                    surface="CLI")
def test_import_hides_the_authorization_cookie_and_set_cookie_of_a_har_unless_no_redact(tmp_path: Path,
                                                                                        report) -> None:
    har = DATA / "secrets.har"
    secrets = ("HAR-SECRET-TOKEN", "HAR-COOKIE", "HAR-SETCOOKIE")
    assert all(secret in har.read_text() for secret in secrets)
    out = tmp_path / "imported.jsonl"
    done = cli("import", str(har), "--out", str(out))
    assert done.returncode == EXIT_OK, done.stderr
    text = out.read_text()
    assert [secret for secret in secrets if secret in text] == []
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0]["target"]["redacted"] is True
    [exchange] = [line["data"] for line in lines[1:] if line.get("kind") == "http"]
    assert exchange["request_headers"] == {"Authorization": REDACTED, "Cookie": REDACTED}
    assert exchange["response_headers"] == {"Set-Cookie": REDACTED}
    shown = cli("show", str(out))
    assert shown.returncode == 0 and "tools/list" in shown.stdout
    assert [secret for secret in secrets if secret in shown.stdout] == []
    # asked for, they are kept
    kept = tmp_path / "kept.jsonl"
    assert cli("import", str(har), "--out", str(kept), "--no-redact").returncode == EXIT_OK
    assert all(secret in kept.read_text() for secret in secrets)
    report.saw("the capture holds Authorization, Cookie and Set-Cookie as [redacted] (--no-redact keeps them)")


class HostileOAuthServer:
    def __init__(self, mode: str, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        port_file = directory / "port"
        self.process = subprocess.Popen([sys.executable, str(HOSTILE_SERVER), mode, str(port_file)],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        wait_until(lambda: port_file.exists() or self.process.poll() is not None, STARTUP_TIMEOUT,
                   "the hostile OAuth server's port file")
        assert self.process.poll() is None
        self.url = f"http://127.0.0.1:{int(port_file.read_text())}/mcp"

    def stop(self) -> None:
        kill_group(self.process.pid)
        self.process.wait(timeout=10)


@pytest.mark.report("security", "an access token ending in a line break is refused, and written nowhere (stderr, "
                                "capture, show)", surface="CLI")
def test_an_access_token_ending_in_a_line_break_is_refused_and_written_nowhere(tmp_path: Path, report) -> None:
    server = HostileOAuthServer("token-trailing-nl", tmp_path / "server")
    try:
        calls = tmp_path / "calls.jsonl"
        calls.write_text('{"method": "tools/call", "params": {"name": "whoami", "arguments": {}}}\n')
        out = tmp_path / "s.jsonl"
        run = cli("record", "--url", server.url, "--oauth", "--oauth-authorize", "follow", "--send", str(calls),
                  "--out", str(out), "--timeout", "20", env=MEMORY)
    finally:
        server.stop()
    assert run.returncode != EXIT_OK
    assert "OAuth token: the token endpoint issued an access token that cannot be sent in an Authorization " \
           "header" in run.stderr, run.stderr
    shown = cli("show", str(out))
    assert shown.returncode == 0, shown.stderr
    written = {"stderr": run.stderr, "stdout": run.stdout, "capture": out.read_text(), "show": shown.stdout}
    leaks = {where: text.count("ACCESS-TOKEN-e91b") for where, text in written.items() if "ACCESS-TOKEN-e91b" in text}
    assert leaks == {}, f"the access token was written: {leaks}"
    report.saw(run.stderr.strip().splitlines()[-1])


#: The secrets of data/secrets-config.jsonc: SECRET1 to SECRET13, each under another name or in another shape.
SECRET_VALUE = re.compile(r"SECRET\d+")


@pytest.mark.report("security", "record --config hides env secrets named *_PASSPHRASE, JWT, *_SALT, *_SK, or shaped "
                                "as sk_live_..., Password=... or a Slack webhook URL", surface="CLI")
def test_record_from_a_client_config_hides_every_env_secret_whatever_its_name_or_shape(tmp_path: Path,
                                                                                       report) -> None:
    config = (DATA / "secrets-config.jsonc").read_text()  # JSONC, as VS Code writes it: comments, trailing commas
    config = config.replace('"/tmp/bars/venv/bin/python"', json.dumps(sys.executable))
    config = config.replace('"/tmp/adv/hs.py", "plain",', '"-m", "inspector.demo",')
    assert sys.executable in config and "inspector.demo" in config
    (tmp_path / "config.json").write_text(config)
    out = tmp_path / "s.jsonl"
    run = cli("record", "--config", str(tmp_path / "config.json"), "--server", "s", "--out", str(out), "--idle", "0")
    assert run.returncode == EXIT_OK, run.stderr
    text = out.read_text()
    header = json.loads(text.splitlines()[0])
    env = header["target"]["env"]
    assert len(env) == 13 and "DATABASE_URL" in env  # the whole env was recorded, its secrets hidden
    assert sorted(set(SECRET_VALUE.findall(text))) == []
    assert env["CONN_STR"] == f"Server=x;Password={REDACTED}"  # what is not secret stays readable
    assert env["DATABASE_URL"] == f"postgres://{REDACTED}@db/prod"
    shown = cli("show", str(out))
    assert SECRET_VALUE.findall(shown.stdout) == []
    report.saw(f"none of the 13 secrets in the capture or in show; e.g. CONN_STR is {env['CONN_STR']} and "
               f"SLACK_WEBHOOK is {env['SLACK_WEBHOOK']}")


def test_secret_shapes_are_hidden_under_any_name_and_ordinary_values_are_kept() -> None:
    shaped = {
        "A": "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "B": "rk_test_51Habcdefgh", "C": "sk-ant-api03-abcdefghijkl",
        "D": "ghp_16C7e42F292c6912E7710c838347Ae178B4a", "E": "github_pat_11ABCDEFG_abcdefgh",
        "F": "xoxb-123456789012-abcdefghij", "G": "AKIAIOSFODNN7EXAMPLE", "H": "glpat-abcdefghij1234",
        "I": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "J": "https://hooks.slack.com/services/T000/B000/XXXXXXXX", "K": "https://discord.com/api/webhooks/1/abc",
        "L": "-----BEGIN RSA PRIVATE KEY-----\nMIIabc\n-----END RSA PRIVATE KEY-----",
    }
    hidden = redact_env(shaped)
    assert [name for name, value in hidden.items() if value == shaped[name]] == []
    assert not any(secret in json.dumps(hidden) for secret in ("4eC39H", "16C7e4", "XXXXXXXX", "MIIabc", "dozjgN"))
    connection = redact_env({"CS": "Server=db;User Id=app;Password={p;w=d};Database=shop;AccountKey=abc=="})
    assert connection == {"CS": f"Server=db;User Id=app;Password={REDACTED};Database=shop;AccountKey={REDACTED}"}
    ordinary = {"MODE": "production", "URL": "https://example.com/api/v1?page=2", "CS": "Server=db;Database=shop",
                "NAME": "sk-8", "PATH": "/usr/bin:/bin", "MCP_SESSION_ID": "abc123"}
    assert redact_env(ordinary) == ordinary
    assert redact_argv(["--region", "eu", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "--verbose", "x"]) == \
        ["--region", "eu", REDACTED, "--verbose", "x"]
