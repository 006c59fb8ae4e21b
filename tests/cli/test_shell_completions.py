"""Shell completions (issue 18 point 5): the printed bash script, loaded into a real bash, completes
subcommands, options, capture files and tool names from the newest capture; zsh and fish scripts print."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from integration.integration_support import cli_env, run_inspector

from inspector.cli.completions import recent_tool_names

BASH = shutil.which("bash")


def bash_complete(line: str, cwd: Path, extra_env: dict[str, str] | None = None) -> list[str]:
    """What bash offers for ``line`` (cursor at its end) with the script of ``completions bash`` loaded."""
    script = run_inspector(["completions", "bash"]).stdout
    shim = cwd / "bin"
    shim.mkdir(exist_ok=True)
    launcher = shim / "mcp-inspector"  # the completion script calls the command by name, as on a user's PATH
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} -m inspector \"$@\"\n")
    launcher.chmod(0o755)
    program = (f"{script}\nCOMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}; COMP_WORDS=({line}"
               f"{' ' if line.endswith(' ') else ''}); COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - "
               f"{0 if line.endswith(' ') else 1} )); "
               "_python_argcomplete mcp-inspector; printf '%s\\n' \"${COMPREPLY[@]}\"")
    if line.endswith(" "):
        program = program.replace(f"COMP_WORDS=({line} )", f"COMP_WORDS=({line} '')")
    env = cli_env({"PATH": f"{shim}{os.pathsep}{os.environ['PATH']}", **(extra_env or {})})
    done = subprocess.run([BASH, "-c", program], capture_output=True, text=True, cwd=cwd, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return [word.strip() for word in done.stdout.splitlines() if word.strip()]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_completes_subcommands_options_and_capture_files(tmp_path):
    assert "export" in bash_complete("mcp-inspector exp", tmp_path)
    assert "--to" in bash_complete("mcp-inspector export --t", tmp_path)
    (tmp_path / "session.jsonl").write_text("{}\n")
    (tmp_path / "notes.txt").write_text("x")
    offered = bash_complete("mcp-inspector show ", tmp_path)
    assert "session.jsonl" in offered and "notes.txt" not in offered


def _capture_with_tools(folder: Path, names: list[str]) -> None:
    result = {"jsonrpc": "2.0", "id": 2, "result": {"tools": [{"name": n, "inputSchema": {"type": "object"}}
                                                               for n in names]}}
    lines = [{"format": "mcp-inspector-capture", "version": 1, "target": {"transport": "stdio", "argv": ["x"]}},
             {"seq": 1, "t": 0, "wall": 0, "kind": "message", "dir": "s2c", "raw": json.dumps(result)}]
    (folder / "2026-12-03-x.jsonl").write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def test_tool_names_come_from_the_newest_capture_that_listed_tools(tmp_path):
    assert recent_tool_names(tmp_path) == []
    _capture_with_tools(tmp_path, ["get-sum", "echo", "get-tiny-image"])
    assert recent_tool_names(tmp_path) == ["get-sum", "echo", "get-tiny-image"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_zsh_and_fish_scripts_print_and_name_the_command(shell):
    done = run_inspector(["completions", shell])
    assert done.returncode == 0 and "mcp-inspector" in done.stdout and "_ARGCOMPLETE" in done.stdout
