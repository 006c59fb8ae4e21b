"""Tool baselines (inspector.core.compare.baseline): the hash ignores member order, a check names what drifted,
the file round-trips and refuses what was edited by hand; a profile keeps its baseline's path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.core.clients.profiles import ProfileStore, ServerProfile
from inspector.core.compare.baseline import Baseline, BaselineError, check, record_of_tools, tool_hash


def test_the_hash_is_the_same_whatever_order_the_server_writes_members_in() -> None:
    assert tool_hash({"name": "a", "description": "d"}) == tool_hash({"description": "d", "name": "a"})
    assert tool_hash({"name": "a", "description": "d"}) != tool_hash({"name": "a", "description": "d "})


def test_a_saved_baseline_checks_clean_and_names_a_changed_annotation(tmp_path: Path) -> None:
    tools = [{"name": "rm", "annotations": {"destructiveHint": False}}, {"name": "ls"}]
    path = tmp_path / "b.json"
    Baseline.of(record_of_tools(tools, "server")).save(path)
    loaded = Baseline.load(path)
    assert not check(loaded, record_of_tools(tools, "server")).drifted
    tools[0]["annotations"] = {"destructiveHint": True}
    drift = check(loaded, record_of_tools(tools, "server"))
    assert drift.summary() == "drift: tool rm changed (annotations)"
    assert [d.path for d in drift.changes[0].diffs] == ["annotations.destructiveHint"]


@pytest.mark.parametrize(("text", "says"), [
    ("{", "is not JSON"),
    ('{"format": "something-else"}', "is not a tool baseline"),
    ('{"format": "mcp-inspector-baseline", "version": 9, "tools": {}}', "version 9"),
    ('{"format": "mcp-inspector-baseline", "version": 1, "tools": {"a": {}}}', "no definition and sha256"),
    ("[" * 100_000 + "]" * 100_000, "is JSON nested too deep to read"),  # issue 39: a RecursionError's traceback
])
def test_an_unusable_file_is_one_sentence(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "b.json"
    path.write_text(text)
    with pytest.raises(BaselineError) as caught:
        Baseline.load(path)
    assert says in str(caught.value)


def test_a_profile_keeps_its_baseline_path(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path / "profiles.json")
    store.add(ServerProfile(name="s", kind="stdio", command="server", baseline="/home/me/s.baseline.json"))
    assert store.get("s").baseline == "/home/me/s.baseline.json"
    saved = json.loads((tmp_path / "profiles.json").read_text())
    del saved["profiles"][0]["baseline"]  # a file written before baselines existed
    (tmp_path / "profiles.json").write_text(json.dumps(saved))
    assert store.get("s").baseline == ""
