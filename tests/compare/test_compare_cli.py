"""``mcp-inspector diff`` and ``baseline`` on two versions of a real server (the SDK's MCPServer): captures of
each, one capture against the other version live, and a baseline saved from one and checked against both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from compare_support import RUN_TIMEOUT, server_options
from helpers import cli


def test_diff_of_two_versions_names_the_changed_tool_and_exits_1_with_exit_code(versions: tuple[Path, Path]) -> None:
    v1, v2 = versions
    done = cli("diff", str(v1), str(v2), "--exit-code")
    assert done.returncode == 1, done.stderr
    out = done.stdout
    assert "- tool shout removed" in out
    assert "+ tool wipe added" in out
    assert "~ tool echo changed (description)" in out
    assert "read ~/.ssh/id_rsa" in out
    assert 'result.content[0].text: "5" -> "6"' in out  # add answers one more in version 2
    assert "tools/call echo" not in out  # echo answers the same (the serverInfo in _meta is left out)


def test_diff_without_exit_code_exits_0_even_when_the_captures_differ(versions: tuple[Path, Path]) -> None:
    v1, v2 = versions
    done = cli("diff", str(v1), str(v2))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("4 differences")


def test_diff_of_a_capture_with_itself_finds_nothing_and_exits_0(versions: tuple[Path, Path]) -> None:
    v1, _ = versions
    done = cli("diff", str(v1), str(v1), "--exit-code")
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().endswith("no differences")


def test_diff_json_lists_the_changed_fields_of_each_tool(versions: tuple[Path, Path]) -> None:
    v1, v2 = versions
    done = cli("diff", str(v1), str(v2), "--format", "json")
    result = json.loads(done.stdout)
    changes = {(c["name"], c["change"]): c for c in result["interface"]}
    assert set(changes) == {("shout", "removed"), ("wipe", "added"), ("echo", "changed")}
    assert changes[("echo", "changed")]["fields"] == ["description"]
    assert result["a"]["version"] == "1.0.0" and result["b"]["version"] == "2.0.0"
    behaviour = [(b["request"], b["change"]) for b in result["behaviour"]]
    assert behaviour == [("tools/call add", "content")]
    assert result["differences"] == 4 and result["same"] is False


def test_diff_against_the_live_next_version_names_the_same_changes(versions: tuple[Path, Path],
                                                                   tmp_path: Path) -> None:
    v1, _ = versions
    out = tmp_path / "live.jsonl"
    done = cli("diff", str(v1), "--against", "--exit-code", "--out", str(out), *server_options(2),
               timeout=RUN_TIMEOUT)
    assert done.returncode == 1, done.stderr
    assert "~ tool echo changed (description)" in done.stdout
    assert "+ tool wipe added" in done.stdout
    assert "tools/call add" in done.stdout
    sent = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    methods = [json.loads(e["raw"]).get("method") for e in sent if e["kind"] == "message" and e["dir"] == "c2s"]
    assert methods.count("tools/call") == 2  # the capture's requests were asked again, and saved


def test_diff_against_the_same_version_exits_0(versions: tuple[Path, Path]) -> None:
    v1, _ = versions
    done = cli("diff", str(v1), "--against", "--exit-code", *server_options(1), timeout=RUN_TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_diff_against_a_command_that_does_not_exist_exits_3_with_a_sentence(versions: tuple[Path, Path]) -> None:
    v1, _ = versions
    done = cli("diff", str(v1), "--against", "--", "/nonexistent/server-binary")
    assert done.returncode == 3
    assert done.stderr.startswith("mcp-inspector: ") and "Traceback" not in done.stderr


def test_diff_with_a_missing_capture_exits_2_with_a_sentence(tmp_path: Path) -> None:
    done = cli("diff", str(tmp_path / "nope.jsonl"), str(tmp_path / "also-nope.jsonl"))
    assert done.returncode == 2
    assert "no such file" in done.stderr and "Traceback" not in done.stderr


def test_diff_needs_b_or_against() -> None:
    done = cli("diff", "a.jsonl")
    assert done.returncode == 2
    assert "second capture B, or --against" in done.stderr


def test_baseline_check_exits_0_on_the_approved_version_and_1_naming_the_drift_on_the_next(tmp_path: Path) -> None:
    baseline = tmp_path / "tools.baseline.json"
    saved = cli("baseline", "save", str(baseline), *server_options(1), timeout=RUN_TIMEOUT)
    assert saved.returncode == 0, saved.stderr
    assert "3 tools" in saved.stderr
    same = cli("baseline", "check", str(baseline), *server_options(1), timeout=RUN_TIMEOUT)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "no drift: 3 tools as approved" in same.stdout
    drifted = cli("baseline", "check", str(baseline), "--format", "json", *server_options(2), timeout=RUN_TIMEOUT)
    assert drifted.returncode == 1, drifted.stderr
    report = json.loads(drifted.stdout)
    assert report["drifted"] is True
    named = {(c["name"], c["change"], tuple(c.get("fields", ()))) for c in report["changes"]}
    assert named == {("shout", "removed", ()), ("wipe", "added", ()), ("echo", "changed", ("description",))}


def test_baseline_works_on_captures_too(versions: tuple[Path, Path], tmp_path: Path) -> None:
    v1, v2 = versions
    baseline = tmp_path / "b.json"
    assert cli("baseline", "save", str(baseline), "--capture", str(v1)).returncode == 0
    assert cli("baseline", "check", str(baseline), "--capture", str(v1)).returncode == 0
    drifted = cli("baseline", "check", str(baseline), "--capture", str(v2))
    assert drifted.returncode == 1
    assert "drift: tool shout removed; tool wipe added; tool echo changed (description)" in drifted.stdout


@pytest.mark.report("faults", "a tool baseline edited by hand", surface="CLI", group="input",
                    advice="Save the baseline again (baseline save) from a server you trust; a baseline is never "
                           "edited, only saved.")
def test_an_edited_baseline_is_refused_with_exit_2(versions: tuple[Path, Path], tmp_path: Path, report) -> None:
    v1, _ = versions
    baseline = tmp_path / "b.json"
    assert cli("baseline", "save", str(baseline), "--capture", str(v1)).returncode == 0
    data = json.loads(baseline.read_text())
    data["tools"]["echo"]["definition"]["description"] = "something else"  # hand-edited, hash left as it was
    baseline.write_text(json.dumps(data))
    done = cli("baseline", "check", str(baseline), "--capture", str(v1))
    report.saw(done.stderr.strip().removeprefix("mcp-inspector: "))
    assert done.returncode == 2
    assert "does not match its sha256" in done.stderr
