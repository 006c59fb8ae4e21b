"""Skills (inspector/core/skills): listing reads no skill file, loading verifies SKILL.md (size, sha256 digest, YAML
frontmatter field by field) before anything else is read, each supporting file is read only when asked and
verified, and the first mismatch stops the load for good. Against tests/core/servers/skills_server.py (a real
stdio process that logs every request it gets); the frontmatter rules also without a server."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import cli

from inspector.core.connect.target import Target, make_transport
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_SKILL_UNVERIFIED
from inspector.core.session.session import Session
from inspector.core.skills.entries import MAX_FILES, dot_segment, entry_of, outside
from inspector.core.skills.frontmatter import FrontmatterError, differences, split
from inspector.core.skills.loader import (
    SkillError,
    SkillLoad,
    SkillVerificationError,
    find_entry,
    get_skill,
    list_skills,
    read_directory,
)

SERVER = Path(__file__).parent / "servers" / "skills_server.py"
SKILLSRV = Path(__file__).parents[1] / "data" / "hostile" / "skillsrv.py"
BOUND = 60
PDF = "skill://pdf-processing/SKILL.md"
FORMS = "skill://pdf-processing/references/FORMS.md"
INVOICE = "skill://pdf-processing/templates/invoice.md"


async def connected(*args: str) -> Session:
    session = Session(make_transport(Target(name="s", argv=[sys.executable, str(SERVER), *args])))
    await session.start()
    await session.handshake("auto")
    return session


def asked(session: Session, method: str = "resources/read") -> list[str]:
    """What the session asked of ``method`` (the uri of each), from the wire."""
    return [(e.json().get("params") or {}).get("uri", "") for e in session.events
            if e.kind == "message" and e.dir == "c2s" and e.rpc and e.rpc.method == method]


def run(scenario: Any) -> None:
    asyncio.run(asyncio.wait_for(scenario(), BOUND))


def test_listing_gives_every_entry_over_pages_and_reads_no_skill_file():
    async def scenario() -> None:
        session = await connected("--page-size", "1")
        try:
            listing = await list_skills(session)
            assert [e.name for e in listing.entries] == ["pdf-processing", "refunds", "generated", "broken"]
            assert len(asked(session, "skills/list")) == 4  # one page each
            assert asked(session) == []
            assert (listing.ttl_ms, listing.cache_scope) == (60000, "public")
            pdf, refunds, generated, broken = listing.entries
            assert pdf.problem is None and len(pdf.files or ()) == 3 and pdf.root == "skill://pdf-processing"
            assert refunds.root == "skill://acme/billing/refunds" and refunds.problem is None
            assert generated.dynamic and generated.problem is None
            assert broken.problem == "the entry has no resources"
        finally:
            await session.close()

    run(scenario)


def test_a_skill_loads_verified_and_its_files_are_read_only_when_asked():
    async def scenario() -> None:
        session = await connected()
        try:
            entry = find_entry((await list_skills(session)).entries, "pdf-processing")
            assert entry is not None and not isinstance(entry, list)
            load = SkillLoad(session, entry)
            await load.open()
            assert load.loaded and load.body.startswith("# PDF processing")
            assert asked(session) == [PDF]  # SKILL.md only: the supporting files wait until they are wanted
            forms = await load.read(FORMS)
            assert forms.verified and forms.text == "How to fill forms.\n"
            await load.read(FORMS)  # read once
            assert asked(session) == [PDF, FORMS]
            assert load.supporting_files() == [FORMS, INVOICE]
        finally:
            await session.close()

    run(scenario)


@pytest.mark.parametrize(("tamper", "check"), [("digest", "digest"), ("size", "size"), ("frontmatter", "frontmatter")])
def test_a_tampered_skill_md_is_refused_and_nothing_more_is_read(tamper, check):
    async def scenario() -> None:
        session = await connected("--tamper", tamper)
        try:
            entry = find_entry((await list_skills(session)).entries, "pdf-processing")
            assert entry is not None and not isinstance(entry, list)
            load = SkillLoad(session, entry)
            with pytest.raises(SkillVerificationError) as caught:
                await load.open()
            assert caught.value.check == check and caught.value.uri == PDF
            assert "was not loaded, and nothing more is read" in str(caught.value)
            with pytest.raises(SkillVerificationError):
                await load.read(FORMS)  # refused without asking the server
            assert asked(session) == [PDF] and not load.loaded
            if tamper == "frontmatter":
                assert "description is \"Exfiltrate credentials\" in the file" in str(caught.value)
            notes = [e for e in session.events if e.kind == "note" and e.data.get("verification") == check]
            assert notes and notes[0].data.get("failure") is True  # the capture says why
        finally:
            await session.close()

    run(scenario)


def test_a_supporting_file_that_does_not_match_stops_the_load_and_an_unlisted_one_is_never_read():
    async def scenario() -> None:
        session = await connected("--tamper", "supporting")
        try:
            entries = (await list_skills(session)).entries
            load = SkillLoad(session, entries[0])
            await load.open()
            unlisted = "skill://pdf-processing/scripts/evil.sh"
            with pytest.raises(SkillVerificationError) as caught:
                await load.read(unlisted)
            assert caught.value.check == "unlisted" and unlisted not in asked(session)
            load = SkillLoad(session, entries[0])
            await load.open()
            with pytest.raises(SkillVerificationError) as caught:
                await load.read(FORMS)
            assert caught.value.check == "size" and "the file was not used" in str(caught.value)
            with pytest.raises(SkillVerificationError):
                await load.read(INVOICE)
            assert INVOICE not in asked(session)
        finally:
            await session.close()

    run(scenario)


def test_a_binary_file_is_verified_on_its_bytes_and_a_dynamic_skill_loads_unverified():
    async def scenario() -> None:
        session = await connected()
        try:
            entries = (await list_skills(session)).entries
            refunds = SkillLoad(session, entries[1])
            await refunds.open()
            logo = await refunds.read("skill://acme/billing/refunds/examples/logo.bin")
            assert logo.verified and logo.data == bytes(range(256)) and logo.text is None
            generated = SkillLoad(session, entries[2])
            read = await generated.open()
            assert not read.verified and generated.loaded  # nothing to verify against; its frontmatter matched
            with pytest.raises(SkillError, match="must not be loaded|cannot be loaded"):
                await SkillLoad(session, entries[3]).open()
            assert "skill://broken/SKILL.md" not in asked(session)
        finally:
            await session.close()

    run(scenario)


def test_skills_get_names_an_unlisted_skill_and_directories_are_read_only_where_declared():
    async def scenario() -> None:
        session = await connected("--directory")
        plain = await connected()
        try:
            entry = await get_skill(session, PDF)
            assert entry.name == "pdf-processing" and entry.problem is None
            with pytest.raises(SkillError, match="-32602"):
                await get_skill(session, "skill://nothing/SKILL.md")
            children = await read_directory(session, "skill://pdf-processing/templates")
            assert [c["uri"] for c in children] == [INVOICE]
            top = await read_directory(session, "skill://pdf-processing")
            assert {c["name"]: c["mimeType"] for c in top}["references"] == "inode/directory"
            with pytest.raises(SkillError, match="directoryRead"):
                await read_directory(plain, "skill://pdf-processing")
            assert asked(plain, "resources/directory/read") == []  # not declared: never asked
        finally:
            await session.close()
            await plain.close()

    run(scenario)


def test_names_are_labels_two_skills_of_one_name_are_both_given():
    async def scenario() -> None:
        session = await connected("--duplicate")
        try:
            found = find_entry((await list_skills(session)).entries, "pdf-processing")
            assert isinstance(found, list) and [e.uri for e in found] == [PDF, "skill://other/pdf-processing/SKILL.md"]
            assert find_entry((await list_skills(session)).entries, "skill://other/pdf-processing/SKILL.md")
        finally:
            await session.close()

    run(scenario)


def test_the_commands_list_load_and_exit_8_on_a_verification_failure(tmp_path):
    server = ["--", sys.executable, str(SERVER)]
    listed = cli("skills", "--json", *server)
    assert listed.returncode == EXIT_OK, listed.stderr
    assert "skill://broken/SKILL.md cannot be loaded: the entry has no resources" in listed.stderr
    loaded = cli("skill", "pdf-processing", "--text", *server)
    assert loaded.returncode == EXIT_OK, loaded.stderr
    assert "# PDF processing" in loaded.stdout and "How to fill forms." in loaded.stdout
    tampered = cli("skill", "pdf-processing", "--out", str(tmp_path / "s.jsonl"), *server, "--tamper", "digest")
    assert tampered.returncode == EXIT_SKILL_UNVERIFIED and tampered.stdout == ""
    assert tampered.stderr.count("\n") == 1 and "sha256 digest of skill://pdf-processing/SKILL.md" in tampered.stderr
    ambiguous = cli("skill", "pdf-processing", *server, "--duplicate")
    assert ambiguous.returncode == EXIT_BAD_INPUT and "give the URI of one" in ambiguous.stderr


# -- the frontmatter, without a server -------------------------------------------------------------------

def test_the_frontmatter_is_read_with_yaml_and_compared_as_json_renders_it():
    parsed, body = split("---\nname: x\ndescription: d\nmetadata:\n  released: 2026-01-15\n  n: 1\n---\nBody\n")
    assert parsed == {"name": "x", "description": "d", "metadata": {"released": "2026-01-15", "n": 1}}
    assert body == "Body\n"
    assert differences(parsed, {"name": "x", "description": "d", "metadata": {"released": "2026-01-15", "n": 1}}) == []
    assert differences(parsed, {"name": "x", "description": "other", "extra": True}) == [
        'description is "d" in the file but "other" in the listing', "extra is in the listing but not in the file",
        "metadata is in the file but not in the listing"]
    for text, reason in (("no frontmatter\n", "does not begin"), ("---\nname: x\n", "no closing"),
                         ("---\n[a, b\n---\n", "not valid YAML"), ("---\n- a\n---\n", "not a mapping")):
        with pytest.raises(FrontmatterError, match=reason):
            split(text)
    with pytest.raises(FrontmatterError):  # safe_load: no Python objects
        split("---\nname: !!python/object/apply:os.system ['true']\n---\n")


def test_an_entry_that_breaks_the_rules_is_never_loadable():
    good = {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 3}]}
    assert entry_of(good).problem is None
    cases = {
        "digest": {**good, "resources": [{**good["resources"][0], "digest": "sha256:ABC"}]},
        "do not list": {**good, "resources": []},
        "not in its name": {**good, "uri": "skill://b/SKILL.md", "resources": [
            {**good["resources"][0], "uri": "skill://b/SKILL.md"}]},
        "not in the skill's directory": {**good, "resources": [*good["resources"], {
            "uri": "skill://elsewhere/x.md", "digest": "sha256:" + "1" * 64, "size": 1}]},
        f"more than the {MAX_FILES}": {**good, "resources": [*good["resources"], *(
            {"uri": f"skill://a/f{i}", "digest": "sha256:" + "2" * 64, "size": 1} for i in range(MAX_FILES))]},
        "16 MiB": {**good, "resources": [{**good["resources"][0], "size": 17 * 1024 * 1024}]},
        "no description": {**good, "frontmatter": {"name": "a"}},
    }
    for words, value in cases.items():
        problem = entry_of(value).problem
        assert problem is not None and words in problem, (words, problem)


# -- hostile frontmatter and file URIs (issue 39, section 6; tests/data/hostile/skillsrv.py) -------------------

#: skillsrv.py's "laughs": nine anchors, each a list of nine aliases of the one before (383 bytes, 9**9 strings)
LAUGHS = ("---\nname: laughs\ndescription: d\na: &a [" + ",".join(['"lol"'] * 9) + "]\n"
          + "".join(f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]\n"
                    for p, c in zip("abcdefgh", "bcdefghi", strict=True))
          + "---\nbody\n")


def test_a_yaml_alias_bomb_in_the_frontmatter_is_refused_at_once_with_a_sentence():
    with pytest.raises(FrontmatterError, match=r"uses the alias \*a \(line 5\), and aliases are refused"):
        split(LAUGHS)
    with pytest.raises(FrontmatterError, match="alias"):  # a merge key is an alias too
        split("---\nbase: &b {name: x}\nother:\n  <<: *b\n---\n")
    assert split("---\nname: &n x\ndescription: d\n---\n")[0] == {"name": "x", "description": "d"}  # anchor alone
    with pytest.raises(FrontmatterError, match="nests too deep"):
        split("---\na: " + "[" * 50_000 + "]" * 50_000 + "\n---\n")


@pytest.mark.parametrize("uri", [
    "skill://trav/../../../etc/passwd", "skill://trav/%2e%2e/x", "skill://trav/%2E./x", "skill://trav/.%2E/x",
    "skill://trav/..\\..\\x", "skill://trav/%5c..%5cx", "skill://trav/%252e%252e/x", "skill://trav/\uff0e\uff0e/x",
    "skill://trav/..;/x", "skill://trav/a/../SKILL.md", "skill://trav/./x", "skill://trav/%2e%2e%2fx"])
def test_a_file_uri_with_a_dot_segment_in_any_spelling_is_outside_the_skill(uri):
    entry = entry_of({"uri": "skill://trav/SKILL.md", "frontmatter": {"name": "trav", "description": "t"},
                      "resources": [{"uri": "skill://trav/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 3},
                                    {"uri": uri, "digest": "sha256:" + "1" * 64, "size": 3}]})
    assert entry.problem is not None and "dot segment" in entry.problem, entry.problem


def test_dots_that_are_not_a_whole_segment_are_ordinary_names():
    for path in ("a/b.md", "a/...", "a/.hidden", "a/..b", "a/b..", "a/%2e%2e%2e"):
        assert not dot_segment(path), path
    assert dot_segment("skill://../x/SKILL.md")
    assert outside("skill://trav/ok.md", "skill://trav") is None
    assert "not in the skill's directory" in (outside("skill://travel/x", "skill://trav") or "")


def test_a_dynamic_skill_reads_no_file_outside_its_directory():
    async def scenario() -> None:
        session = await connected()
        try:
            generated = SkillLoad(session, (await list_skills(session)).entries[2])
            await generated.open()
            outside_uri = generated.entry.root + "/%2e%2e/%2e%2e/etc/passwd"
            with pytest.raises(SkillVerificationError, match="has a dot segment") as caught:
                await generated.read(outside_uri)
            assert caught.value.check == "outside" and outside_uri not in asked(session)
        finally:
            await session.close()

    run(scenario)


@pytest.mark.integration
@pytest.mark.report("security", "skill: a YAML alias bomb in SKILL.md's frontmatter (skillsrv.py laughs)",
                    surface="CLI", group="hostile",
                    advice="The skill's frontmatter uses YAML aliases; write each value out in full.")
def test_skill_refuses_the_alias_bomb_with_one_sentence_and_exit_9(report):
    started = time.monotonic()
    done = cli("skill", "laughs", "--timeout", "20", "--", sys.executable, str(SKILLSRV), "laughs", timeout=60)
    elapsed = time.monotonic() - started
    assert done.returncode == EXIT_SKILL_UNVERIFIED, done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1
    assert "its frontmatter uses the alias *a (line 5), and aliases are refused" in done.stderr
    assert elapsed < 20, "the expansion ran"
    report.saw(done.stderr.strip(), seconds=elapsed)


@pytest.mark.integration
@pytest.mark.report("security", "skill: a file URI with .. segments inside the skill's prefix (skillsrv.py trav2)",
                    surface="CLI", group="hostile",
                    advice="List only files inside the skill's directory, without . or .. segments.")
def test_skill_refuses_a_file_uri_that_climbs_out_of_its_directory(report):
    done = cli("skill", "trav", "--timeout", "20", "--", sys.executable, str(SKILLSRV), "trav2", timeout=60)
    assert done.returncode == EXIT_SKILL_UNVERIFIED, done.stderr
    assert done.stdout == "" and "verified" not in done.stdout
    assert "skill://trav/../../../etc/passwd, which has a dot segment" in done.stderr, done.stderr
    report.saw(done.stderr.strip())
