"""The five revisions' official schema.json ship byte for byte, with their license and source commit."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from inspector.core.protocol import revisions

#: The spec extract lives in shared/ beside the checkout (reference data, never needed at run time).
SPEC = Path(__file__).resolve().parents[3].parent / "shared" / "mcp-spec"
#: The sha256 of each file at the pinned commit (shared/mcp-spec/README.md), so a clean clone checks them too.
PINNED = {
    "2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
    "2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
    "2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
    "2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
    "2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
}


def test_every_known_revision_has_a_pinned_schema_file():
    assert tuple(PINNED) == revisions.REVISIONS


@pytest.mark.parametrize("revision", revisions.REVISIONS)
def test_the_shipped_schema_has_the_pinned_sha256(revision):
    assert hashlib.sha256(revisions.schema_bytes(revision)).hexdigest() == PINNED[revision]


@pytest.mark.parametrize("revision", revisions.REVISIONS)
def test_the_shipped_schema_is_the_spec_extract_byte_for_byte(revision):
    source = SPEC / revision / "schema.json"
    if not source.is_file():
        pytest.skip("the MCP schema files (shared/mcp-spec) are not beside this checkout")
    shipped = hashlib.sha256(revisions.schema_bytes(revision)).hexdigest()
    assert shipped == hashlib.sha256(source.read_bytes()).hexdigest()


def test_the_license_and_the_source_commit_ship_beside_the_schemas():
    from importlib import resources

    folder = resources.files("inspector.core.protocol").joinpath("schemas")
    assert "b0f60ba5409db7a6582440a7b473cc0398890f15" in folder.joinpath("SOURCE").read_text()
    assert "Apache" in folder.joinpath("LICENSE").read_text()
    for revision, digest in PINNED.items():
        assert f"{revision}  {digest}" in folder.joinpath("SOURCE").read_text()
