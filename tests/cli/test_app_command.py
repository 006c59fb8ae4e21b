"""``mcp-inspector app`` against the probe app server (the ``mcp`` SDK's MCP Apps extension): the app is
rendered offscreen and played; what it tries to reach outside its policy reaches nothing and is reported, its
own tool calls go through the host to the server (and are rows of the capture that name the app request that
caused them), links are never opened, and each way of failing has its status and one sentence."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys

import pytest
from app_servers.support import probe_argv, recording_origins
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.exits import (
    EXIT_APP_FAILED,
    EXIT_APP_POLICY,
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RENDER,
    EXIT_NO_APP,
    EXIT_OK,
)

pytestmark = [pytest.mark.integration]
#: the SDK server starts and a web view renders a small app well within this on a loaded machine
BOUND = 120
#: Chromium's sandbox cannot run as root (how these tests run in containers): turned off explicitly, as a user
#: would have to, except where a test checks that the command refuses without it
UNSANDBOXED = {"QTWEBENGINE_DISABLE_SANDBOX": "1"} if os.geteuid() == 0 else {}


def png_size(path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", header[16:24])


@pytest.mark.report("faults", "an app that reaches for an origin its policy does not allow", surface="CLI",
                    group="apps", advice="Add the origin to the resource's _meta.ui.csp list for its use "
                    "(connectDomains for fetch, resourceDomains for images, scripts and styles), or bundle what it "
                    "loads into the app's HTML; --json lists every blocked request.")
def test_a_probing_app_reaches_nothing_outside_its_policy_and_its_report_says_what_it_tried(tmp_path, report):
    with recording_origins() as origins:
        done = cli("app", "probe", "note=hello", "--json", "--out", str(tmp_path / "app.jsonl"), "--screenshot",
                   str(tmp_path / "app.png"), "--", *probe_argv(origins), timeout=BOUND, env=UNSANDBOXED)
        hits = dict(origins.hits)
    assert done.returncode == EXIT_APP_POLICY, done.stderr
    report.saw(done.stderr.strip().splitlines()[-1])
    assert "3 requests of the app were blocked" in done.stderr
    assert origins.blocked not in hits, "nothing reached the origin the policy does not allow"
    assert hits[origins.allowed] == ["/allowed"], "the origin it allows was reached"
    report = json.loads(done.stdout)
    blocked = {(b["use"], b["url"]) for b in report["blocked"] if b["request"]}
    assert blocked == {("connect-src", origins.blocked + "/by-fetch"), ("img-src", origins.blocked + "/by-img.png"),
                       ("script-src-elem", origins.blocked + "/by-script.js")}
    assert all(b["by"] == "browser" for b in report["blocked"])
    assert report["policy"]["requested"]["csp"] == {"connectDomains": [origins.allowed]}
    assert report["policy"]["effective"]["csp"]["connectDomains"] == [origins.allowed]
    assert f"connect-src 'self' {origins.allowed};" in report["policy"]["header"]
    lines = report["text"].splitlines()
    assert {"result: apps negotiated: yes", 'input: {"note":"hello"}', "fetch: refused", "img: refused",
            "script: refused", "allowed: ok", "app-only-step: step done", "model-only: refused",
            "read: ui://probe/blank.html", "open-link: denied", "qt: undefined", "parent: unreachable", "done"} \
        <= set(lines), lines
    app = report["app"]
    assert app["initialized"] and app["appInfo"] == {"name": "probe", "version": "1"}
    assert app["links"] == [{"url": "https://example.com/probe", "opened": False,
                             "reason": "mcp-inspector app runs headless and opens no link"}]
    assert app["messages"][0]["content"][0]["text"] == "hello from the probe"
    assert app["modelContext"] == {"content": [{"type": "text", "text": "probe context"}]}
    assert app["refusedCalls"] == ["model-only"] and app["size"] == {"width": 640, "height": 360}
    assert report["messages"]["app_to_host"]["tools/call"] == 2
    assert report["outcome"]["state"] == "idle" and report["checks"] == []
    assert png_size(tmp_path / "app.png") == (800, 600)

    events = read_capture(tmp_path / "app.jsonl").events
    lane = [e for e in events if e.kind == "app"]
    assert lane[0].data["what"] == "rendered" and lane[-1].data["what"] == "closed"
    by_seq = {e.seq: e for e in events}
    caused = [e for e in events if e.kind == "message" and e.dir == "c2s" and "app_request" in e.data]
    assert [e.json()["params"]["name"] if e.method == "tools/call" else e.method for e in caused] == \
        ["app-only-step", "resources/read"], "the refused call caused no request"
    for request in caused:
        origin = by_seq[request.data["app_request"]]
        assert origin.kind == "app" and origin.dir == "a2h" and origin.rpc.method == request.method
    call = next(e for e in events if e.kind == "message" and e.dir == "c2s" and e.method == "tools/call")
    declared = call.json()["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]  # the 2026-07-28 era
    assert declared["extensions"] == {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}


def test_the_text_of_the_app_and_a_summary_by_default(tmp_path):
    with recording_origins() as origins:
        text = cli("app", "loose", "--text", "--", *probe_argv(origins), timeout=BOUND, env=UNSANDBOXED)
        summary = cli("app", "loose", "--", *probe_argv(origins), timeout=BOUND, env=UNSANDBOXED)
    assert text.returncode == EXIT_OK, text.stderr
    assert text.stdout == "loose\n"
    assert summary.returncode == EXIT_OK, summary.stderr
    assert summary.stdout.startswith("app ui://probe/loose.html of tool loose: idle after ")
    assert "dropped from connectDomains: '*' (it allows every origin" in summary.stdout
    assert "dropped from connectDomains: 'https://api.example.com; script-src *'" in summary.stdout
    assert "dropped from resourceDomains: \"'unsafe-eval'\"" in summary.stdout
    assert "policy: connectDomains https://*.example.com; resourceDomains https://cdn.example.com/lib/" \
        in summary.stdout


@pytest.mark.report("faults", "a tool without an app", surface="CLI", group="apps",
                    advice="Give the tool _meta.ui.resourceUri (a ui:// resource the server serves), or call it with "
                    "mcp-inspector call.")
def test_a_tool_without_an_app_gets_one_sentence_and_its_own_status(report):
    with recording_origins() as origins:
        done = cli("app", "plain", "--", *probe_argv(origins), timeout=BOUND, env=UNSANDBOXED)
    assert done.returncode == EXIT_NO_APP
    report.saw(done.stderr.strip().splitlines()[-1])
    assert done.stdout == ""
    assert done.stderr.strip().splitlines()[-1] == ("mcp-inspector: the tool plain has no app: its _meta names no "
                                                    "ui:// resource (_meta.ui.resourceUri)")


@pytest.mark.report("faults", "an app that stays blank (never sends ui/initialize)", surface="CLI", group="apps",
                    advice="The app must post ui/initialize to window.parent and then ui/notifications/initialized; "
                    "its console errors are in the report (--json) and the capture (--out).")
def test_an_app_that_never_initializes_fails_with_a_sentence_that_says_so(report):
    with recording_origins() as origins:
        done = cli("app", "blank", "--timeout", "3", "--json", "--", *probe_argv(origins), timeout=BOUND,
                   env=UNSANDBOXED)
    assert done.returncode == EXIT_APP_FAILED, done.stderr
    report.saw(done.stderr.strip().splitlines()[-1])
    assert ("the app did not finish its handshake (ui/initialize, then ui/notifications/initialized) within 3 s"
            in done.stderr)
    report = json.loads(done.stdout)
    assert report["outcome"]["state"] == "never-initialized" and not report["app"]["initialized"]


def test_an_unknown_tool_is_bad_input_with_the_closest_names():
    with recording_origins() as origins:
        done = cli("app", "prob", "--", *probe_argv(origins), timeout=BOUND, env=UNSANDBOXED)
    assert done.returncode == EXIT_BAD_INPUT
    assert "the server has no tool named prob; did you mean probe?" in done.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="the sandbox can run here: nothing to refuse")
@pytest.mark.report("faults", "rendering apps as root", surface="CLI", group="apps",
                    advice="Run as a normal user, or set QTWEBENGINE_DISABLE_SANDBOX=1 yourself to render apps "
                    "without Chromium's sandbox (in a throwaway container, say).")
def test_as_root_without_the_variable_nothing_is_started_and_one_sentence_names_it(tmp_path, report, monkeypatch):
    monkeypatch.delenv("QTWEBENGINE_DISABLE_SANDBOX", raising=False)  # the web view tests set it in this process
    marker = tmp_path / "started"
    done = cli("app", "probe", "--", "sh", "-c", f"touch {marker}", timeout=BOUND)
    assert done.returncode == EXIT_CANNOT_RENDER
    lines = done.stderr.strip().splitlines()
    report.saw(lines[-1])
    assert len(lines) == 1 and "QTWEBENGINE_DISABLE_SANDBOX=1" in lines[0] and "as root" in lines[0]
    assert not marker.exists(), "the server was never started"


def test_the_help_lists_the_apps_exit_statuses():
    done = cli("app", "--help")
    assert done.returncode == 0
    for code in (EXIT_NO_APP, EXIT_APP_FAILED, EXIT_APP_POLICY, EXIT_CANNOT_RENDER):
        assert f"\n  {code} " in done.stdout


def test_a_build_without_qt_webengine_says_so_in_one_sentence_and_starts_nothing(tmp_path):
    marker = tmp_path / "started"
    code = ("import sys\n"
            "class NoWebEngine:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.startswith('PySide6.QtWebEngine'):\n"
            "            raise ImportError(f'No module named {name!r}')\n"
            "sys.meta_path.insert(0, NoWebEngine())\n"
            "from inspector.cli.main import main\n"
            f"sys.exit(main(['app', 'probe', '--', 'sh', '-c', 'touch {marker}']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=BOUND, cwd=ROOT,
                          env={**os.environ, **UNSANDBOXED})
    assert done.returncode == EXIT_CANNOT_RENDER
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "mcp-inspector: apps cannot be rendered by this build of mcp-inspector: it has no Qt WebEngine")
    assert not marker.exists()


def test_args_size_and_theme_reach_the_app(tmp_path):
    with recording_origins() as origins:
        done = cli("app", "probe", "--args", '{"note": "from args"}', "--size", "640x480", "--theme", "dark",
                   "--text", "--screenshot", str(tmp_path / "small.png"), "--", *probe_argv(origins), timeout=BOUND,
                   env=UNSANDBOXED)
    assert done.returncode == EXIT_APP_POLICY, done.stderr  # it still tries the blocked origin
    lines = done.stdout.splitlines()
    assert "host: mcp-inspector, theme dark" in lines and 'input: {"note":"from args"}' in lines
    assert png_size(tmp_path / "small.png") == (640, 480)
