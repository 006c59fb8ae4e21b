"""Saved server profiles: the dataclass, its JSON, and the profiles file (atomic, never losing a damaged one)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.clients import profiles as profiles_module
from inspector.core.clients.profiles import (
    ProfileError,
    ProfileStore,
    ServerProfile,
    config_dir,
    unique_name,
)
from inspector.core.redaction import REDACTED

text = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=20)
names = text.filter(lambda s: s.strip() != "")
stdio_profiles = st.builds(
    ServerProfile, name=names, kind=st.just("stdio"), command=names, args=st.lists(text, max_size=4),
    env=st.dictionaries(names, text, max_size=3), cwd=st.none() | names, source=st.none() | text,
    timeout=st.floats(min_value=0.5, max_value=86_400), agent_sees_secrets=st.booleans())
http_profiles = st.builds(
    ServerProfile, name=names, kind=st.just("http"), url=names, transport=st.sampled_from(["auto", "sse", "websocket"]),
    headers=st.dictionaries(names, text, max_size=3), source=st.none() | text, agent_sees_secrets=st.booleans())


def stdio(name: str = "demo", **kw: Any) -> ServerProfile:
    return ServerProfile(name=name, kind="stdio", command=str(kw.pop("command", "python")),
                         args=list(kw.pop("args", ["-m", "inspector.demo"])), **kw)


def http(name: str = "remote", **kw: Any) -> ServerProfile:
    return ServerProfile(name=name, kind="http", url=str(kw.pop("url", "http://127.0.0.1:8000/mcp")), **kw)


@pytest.fixture
def store(tmp_path: Path) -> ProfileStore:
    return ProfileStore(tmp_path / "cfg" / "profiles.json")


# -- the profile -------------------------------------------------------------------------------------------


@given(stdio_profiles | http_profiles)
def test_any_profile_comes_back_the_same_from_its_json(profile: ServerProfile) -> None:
    assert ServerProfile.from_json(json.loads(json.dumps(profile.to_json()))) == profile


def test_from_json_fills_in_the_defaults_for_missing_fields() -> None:
    assert (ServerProfile.from_json({"name": "t", "kind": "stdio", "command": "uvx"})
            == ServerProfile("t", "stdio", "uvx"))
    assert ServerProfile.from_json({"name": "r", "kind": "http", "url": "http://h/mcp"}).transport == "auto"
    assert ServerProfile.from_json({"name": "t", "kind": "stdio", "command": "uvx"}).timeout == 30.0


@pytest.mark.parametrize(("data", "words"), [
    ([], "must be a JSON object"),
    ({"kind": "stdio", "command": "x"}, "has no name"),
    ({"name": "  ", "kind": "stdio", "command": "x"}, "has no name"),
    ({"name": "a", "kind": "ftp", "command": "x"}, "must be 'stdio' or 'http'"),
    ({"name": "a", "kind": "stdio"}, "the command is empty"),
    ({"name": "a", "kind": "http"}, "the URL is empty"),
    ({"name": "a", "kind": "stdio", "command": 3}, "'command' must be a string, not a number"),
    ({"name": "a", "kind": "stdio", "command": "x", "args": "-v"}, "'args' must be a list of strings"),
    ({"name": "a", "kind": "stdio", "command": "x", "args": ["-v", 2]}, "'args' must be a list of strings"),
    ({"name": "a", "kind": "stdio", "command": "x", "env": ["A=1"]}, "'env' must be an object of strings"),
    ({"name": "a", "kind": "stdio", "command": "x", "env": {"PORT": 8080}}, "env['PORT'] must be a string"),
    ({"name": "a", "kind": "stdio", "command": "x", "cwd": 1}, "'cwd' must be a string"),
    ({"name": "a", "kind": "http", "url": "http://h", "headers": {"X": None}},
     "headers['X'] must be a string, not null"),
    ({"name": "a", "kind": "stdio", "command": "x", "timeout": "30"},
     "'timeout' must be a number of seconds, not a string"),
    ({"name": "a", "kind": "stdio", "command": "x", "timeout": 0}, "has a timeout of 0 s; it must be above 0"),
    ({"name": "a", "kind": "stdio", "command": "x", "timeout": 1e9}, "at most 86400 s"),
])
def test_malformed_profile_json_is_refused_with_a_sentence(data: object, words: str) -> None:
    with pytest.raises(ProfileError) as caught:
        ServerProfile.from_json(data)
    assert words in str(caught.value)
    assert str(caught.value).endswith(".")


def test_the_argv_of_a_stdio_profile_is_the_command_then_its_args() -> None:
    assert stdio(args=["-m", "my server"]).argv() == ["python", "-m", "my server"]


def test_an_http_profile_has_no_command_line() -> None:
    with pytest.raises(ProfileError, match="connects to a URL"):
        http().argv()


def test_the_summary_is_one_line_per_kind() -> None:
    assert stdio(args=["-m", "my server"]).summary() == "stdio: python -m 'my server'"
    assert http().summary() == "http: http://127.0.0.1:8000/mcp"
    assert http(transport="sse").summary() == "http: http://127.0.0.1:8000/mcp (sse)"


def test_the_redacted_copy_hides_secrets_and_leaves_the_profile_alone() -> None:
    profile = ServerProfile(
        "p", "stdio", "srv", args=["--token", "t0k", "--api-key=k3y", "--port", "1"],
        env={"GITHUB_TOKEN": "ghp_x", "API_KEY": "${input:key}", "DEBUG": "1"})
    shown = profile.redacted()
    assert shown.args == ["--token", REDACTED, f"--api-key={REDACTED}", "--port", "1"]
    assert shown.env == {"GITHUB_TOKEN": REDACTED, "API_KEY": "${input:key}", "DEBUG": "1"}
    assert profile.env["GITHUB_TOKEN"] == "ghp_x" and profile.args[1] == "t0k"

    remote = http(url="https://me:pw@h.example/mcp", headers={"Authorization": "Bearer s3cret", "X-Team": "core"})
    shown = remote.redacted()
    assert "pw" not in shown.url and "h.example/mcp" in shown.url
    assert shown.headers == {"Authorization": REDACTED, "X-Team": "core"}


# -- where the file lives ----------------------------------------------------------------------------------


def test_the_config_dir_follows_each_platforms_convention(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert config_dir() == tmp_path / "xdg" / "mcp-inspector"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert config_dir() == tmp_path / ".config" / "mcp-inspector"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert config_dir() == tmp_path / "Library" / "Application Support" / "mcp-inspector"
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
    assert config_dir() == tmp_path / "Roaming" / "mcp-inspector"


def test_a_store_without_a_path_uses_profiles_json_in_the_config_dir(monkeypatch: pytest.MonkeyPatch,
                                                                       tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert ProfileStore().path == tmp_path / "mcp-inspector" / "profiles.json"


# -- loading and saving ------------------------------------------------------------------------------------


def test_a_missing_file_means_no_profiles(store: ProfileStore) -> None:
    assert store.load() == []
    assert not store.path.exists()


def test_saved_profiles_load_back_in_their_order(store: ProfileStore) -> None:
    saved = [http("b"), stdio("a", env={"TOKEN": "secret"}, cwd="/srv"), http("c", transport="sse")]
    store.save(saved)
    assert store.load() == saved
    data = json.loads(store.path.read_text())
    assert data["version"] == 1 and [p["name"] for p in data["profiles"]] == ["b", "a", "c"]
    assert data["profiles"][1]["env"] == {"TOKEN": "secret"}  # the user's own secrets are kept


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_the_profiles_file_is_readable_by_its_owner_only(store: ProfileStore) -> None:
    store.save([stdio()])
    assert store.path.stat().st_mode & 0o777 == 0o600


def test_saving_leaves_no_temporary_file_behind(store: ProfileStore) -> None:
    store.save([stdio()])
    store.save([stdio(), http()])
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["profiles.json"]


def test_a_save_that_fails_midway_keeps_the_previous_file(store: ProfileStore, monkeypatch: pytest.MonkeyPatch) -> None:
    store.save([stdio("kept")])
    before = store.path.read_bytes()

    def refuse(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(profiles_module.os, "replace", refuse)
    with pytest.raises(ProfileError, match="cannot be written: No space left on device"):
        store.save([stdio("kept"), http("new")])
    assert store.path.read_bytes() == before
    assert sorted(p.name for p in store.path.parent.iterdir()) == ["profiles.json"]


def test_saving_two_profiles_with_one_name_is_refused(store: ProfileStore) -> None:
    with pytest.raises(ProfileError, match="Two profiles are named 'x'"):
        store.save([stdio("x"), http("x")])
    assert not store.path.exists()


def test_a_file_that_is_not_json_is_reported_by_name_and_kept_aside(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_text('{"profiles": [ {"name": "half')
    with pytest.raises(ProfileError) as caught:
        store.load()
    message = str(caught.value)
    assert str(store.path) in message and "is not valid JSON" in message
    aside = caught.value.kept_aside
    assert aside is not None and aside.name.startswith("profiles.json.corrupt-") and aside.name in message
    assert aside.read_text() == '{"profiles": [ {"name": "half'
    assert caught.value.salvaged == []
    assert store.load() == []  # the app goes on with an empty list; nothing was lost
    store.save([stdio()])
    assert aside.exists()


@pytest.mark.parametrize(("content", "words"), [
    (b"[1, 2]", 'an object with a "profiles" list'),
    (b'{"profiles": {}}', 'an object with a "profiles" list'),
    (b"\xff\xfe{}", "not UTF-8"),
])
def test_a_file_of_the_wrong_shape_is_kept_aside(store: ProfileStore, content: bytes, words: str) -> None:
    store.path.parent.mkdir(parents=True)
    store.path.write_bytes(content)
    with pytest.raises(ProfileError, match=words) as caught:
        store.load()
    assert caught.value.kept_aside is not None and caught.value.kept_aside.read_bytes() == content


def test_a_file_with_one_bad_entry_keeps_the_good_ones_and_the_original_aside(store: ProfileStore) -> None:
    good = [stdio("one"), http("two")]
    original = json.dumps({"version": 1, "profiles": [good[0].to_json(), {"name": "bad", "kind": "stdio",
                                                                            "command": 5}, good[1].to_json()]})
    store.path.parent.mkdir(parents=True)
    store.path.write_text(original)
    with pytest.raises(ProfileError) as caught:
        store.load()
    assert "entry 2: The profile 'bad': 'command' must be a string" in str(caught.value)
    assert "2 profiles could be recovered" in str(caught.value)
    assert caught.value.salvaged == good
    assert caught.value.kept_aside is not None and caught.value.kept_aside.read_text() == original
    assert store.load() == good


def test_damaged_files_found_within_the_same_second_are_all_kept(store: ProfileStore) -> None:
    store.path.parent.mkdir(parents=True)
    asides = []
    for n in range(3):
        store.path.write_text(f"broken {n}")
        with pytest.raises(ProfileError) as caught:
            store.load()
        asides.append(caught.value.kept_aside)
    assert len(set(asides)) == 3
    assert sorted(p.read_text() for p in asides) == ["broken 0", "broken 1", "broken 2"]  # type: ignore[union-attr]  # each kept one


def test_an_unreadable_path_is_reported_not_moved(tmp_path: Path) -> None:
    folder = tmp_path / "profiles.json"
    folder.mkdir()
    with pytest.raises(ProfileError, match="cannot be read"):
        ProfileStore(folder).load()
    assert folder.is_dir()


# -- changes -----------------------------------------------------------------------------------------------


def test_adding_a_name_in_use_gets_the_next_number(store: ProfileStore) -> None:
    assert store.add(stdio("x")).name == "x"
    assert store.add(http("x")).name == "x (2)"
    assert store.add(stdio("x")).name == "x (3)"
    assert [p.name for p in store.load()] == ["x", "x (2)", "x (3)"]


def test_adding_many_at_once_numbers_clashes_among_them_too(store: ProfileStore) -> None:
    store.add(stdio("memory"))
    added = store.add_many([stdio("memory"), stdio("memory"), http("notes")])
    assert [p.name for p in added] == ["memory (2)", "memory (3)", "notes"]
    assert [p.name for p in store.load()] == ["memory", "memory (2)", "memory (3)", "notes"]


def test_unique_name_skips_numbers_already_taken() -> None:
    assert unique_name("a", ["a", "a (2)", "a (3)"]) == "a (4)"
    assert unique_name("b", ["a"]) == "b"


def test_renaming_keeps_the_profile_and_its_place(store: ProfileStore) -> None:
    store.save([stdio("a"), http("b"), stdio("c")])
    assert store.rename("b", "  remote  ").name == "remote"
    assert [p.name for p in store.load()] == ["a", "remote", "c"]
    assert store.get("remote").url == "http://127.0.0.1:8000/mcp"


def test_renaming_and_adding_keep_the_agent_seats_choice(store: ProfileStore) -> None:
    store.save([stdio("a", agent_sees_secrets=True)])
    store.rename("a", "b")
    [added] = store.add_many([http("b", agent_sees_secrets=True)])  # an import under a name in use
    assert [(p.name, p.agent_sees_secrets) for p in store.load()] == [("b", True), (added.name, True)]


def test_renaming_to_a_name_in_use_or_to_nothing_is_refused(store: ProfileStore) -> None:
    store.save([stdio("a"), http("b")])
    with pytest.raises(ProfileError, match="A profile named 'a' already exists"):
        store.rename("b", "a")
    with pytest.raises(ProfileError, match="needs a name"):
        store.rename("b", " ")
    assert [p.name for p in store.load()] == ["a", "b"]


def test_updating_replaces_the_profile_in_place(store: ProfileStore) -> None:
    store.save([stdio("a"), http("b")])
    store.update("a", stdio("a2", args=["-v"]))
    assert store.load() == [stdio("a2", args=["-v"]), http("b")]


def test_removing_deletes_only_that_profile(store: ProfileStore) -> None:
    store.save([stdio("a"), http("b"), stdio("c")])
    store.remove("b")
    assert [p.name for p in store.load()] == ["a", "c"]


def test_changing_a_profile_that_does_not_exist_says_so(store: ProfileStore) -> None:
    store.save([stdio("a")])
    for change in (lambda: store.remove("zz"), lambda: store.rename("zz", "y"), lambda: store.get("zz"),
                   lambda: store.update("zz", stdio("zz"))):
        with pytest.raises(ProfileError, match="There is no profile named 'zz'"):
            change()
