"""The inspector's own docs as the seat's resources: listed after the captures, read as text/markdown, each the
repository's docs/ page byte for byte (scripts/seat_docs.py copies them into the package; --check fails on a
copy that differs)."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT
from seat_support import ask

from inspector.core.seat.docs_resources import PAGES
from inspector.core.seat.server import SeatServer


@pytest.fixture
def seat(seat: tuple[SeatServer, io.BytesIO], tmp_path: Path) -> tuple[SeatServer, io.BytesIO]:
    (tmp_path / "captures" / "one.jsonl").write_text("{}\n")
    return seat


def test_troubleshooting_and_the_server_checks_are_listed_after_the_captures_as_markdown(seat):
    resources = ask(seat, "resources/list")["result"]["resources"]
    assert resources[0]["uri"] == "capture://one.jsonl"
    docs = {r["uri"]: r for r in resources[1:]}
    assert {"inspector-docs://troubleshooting", "inspector-docs://server-checks"} <= set(docs)
    assert set(docs) == {f"inspector-docs://{name}" for name in PAGES}
    assert all(r["mimeType"] == "text/markdown" and r["title"] and r["description"] for r in docs.values())


@pytest.mark.parametrize("name", sorted(PAGES))
def test_each_docs_resource_reads_as_the_repositorys_page(seat, name):
    [contents] = ask(seat, "resources/read", {"uri": f"inspector-docs://{name}"})["result"]["contents"]
    assert contents["mimeType"] == "text/markdown"
    assert contents["text"] == (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8")


def test_a_docs_uri_that_names_no_page_is_invalid_params(seat):
    answer = ask(seat, "resources/read", {"uri": "inspector-docs://../../pyproject"})
    assert answer["error"]["code"] == -32602 and "the captures and the docs" in answer["error"]["message"]


def test_the_packaged_copies_are_what_seat_docs_writes_now():
    done = subprocess.run([sys.executable, "scripts/seat_docs.py", "--check"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr


def test_seat_docs_check_names_a_copy_that_differs_and_writes_nothing(tmp_path, monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("seat_docs", ROOT / "scripts" / "seat_docs.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "inspector" / "core" / "seat" / "docs"
    out.mkdir(parents=True)
    for name in PAGES:
        (out / f"{name}.md").write_bytes((ROOT / "docs" / f"{name}.md").read_bytes())
    (out / "troubleshooting.md").write_text("stale\n", encoding="utf-8")
    monkeypatch.setattr(script, "OUT", out)
    monkeypatch.setattr(script, "ROOT", tmp_path)
    monkeypatch.setattr(sys, "argv", ["seat_docs.py", "--check"])
    assert script.main() == 1
    assert "inspector/core/seat/docs/troubleshooting.md is out of date: run python scripts/seat_docs.py" \
        in capsys.readouterr().err
    assert (out / "troubleshooting.md").read_text(encoding="utf-8") == "stale\n"
