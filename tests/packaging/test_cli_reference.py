"""docs/cli-reference.md is the commands' --help, exactly: it fails when a help text changed and the
reference was not regenerated (python scripts/cli_reference.py)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import pytest
from helpers import ROOT

DOC = ROOT / "docs" / "cli-reference.md"


def generator():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def written_with() -> str:
    found = re.search(r"from the parsers' --help \(Python (\d+\.\d+),", DOC.read_text(encoding="utf-8"))
    assert found, "docs/cli-reference.md has lost its generated-by line"
    return found.group(1)


@pytest.fixture
def same_python():
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if here != written_with():
        pytest.skip(f"argparse lays help out differently in Python {here}; the reference was written with "
                    f"Python {written_with()}")


def test_the_cli_reference_is_what_the_generator_writes_now(same_python):
    assert DOC.read_text(encoding="utf-8") == generator().render(), \
        "docs/cli-reference.md is out of date: run python scripts/cli_reference.py"


def test_every_command_of_the_parser_has_a_section():
    module = generator()
    commands = module.subcommands(module.build_parser())
    text = DOC.read_text(encoding="utf-8")
    assert [name for name in commands if f"\n## mcp-inspector {name}\n" not in text] == []
    assert "\n## mcp-inspector\n" in text


@pytest.mark.parametrize("command", ["", "record", "show", "replay", "tap", "wrap", "unwrap", "install-desktop"])
def test_the_reference_holds_what_the_command_prints_for_help(command, same_python):
    env = {**os.environ, "COLUMNS": str(generator().COLUMNS)}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-m", "inspector", *([command] if command else []), "--help"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    block = f"```text\n{done.stdout.rstrip()}\n```"
    assert block in DOC.read_text(encoding="utf-8")
