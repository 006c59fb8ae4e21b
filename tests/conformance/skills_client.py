"""The client command for the official conformance suite's Skills client scenarios (SEP-2640, extension
scenarios of @modelcontextprotocol/conformance 0.2.0-alpha.12: run without --spec-version):

* ``sep-2640-client-no-prefetch``: ``mcp-inspector skills --url URL`` (lists; must read no skill file);
* ``sep-2640-client-verify-digest``, ``-verify-size``, ``-verify-frontmatter``: ``mcp-inspector skill
  pdf-processing --url URL`` (loads the one skill the scenario serves, whose SKILL.md is tampered with: the
  inspector must stop at SKILL.md and never read references/FORMS.md).

The suite passes the server URL as the last argument and the scenario's name in ``MCP_CONFORMANCE_SCENARIO``.
Each command is a fresh ``python -m inspector`` from this checkout, as a user would run it; its capture is kept in
``$MCP_INSPECTOR_CONFORMANCE_KEEP/SCENARIO.jsonl`` when that variable names a folder. The suite's servers must
listen on 127.0.0.1 only: run the suite with ``node --import tests/auth/conformance/loopback.mjs`` (see
tests/conformance/test_skills_conformance.py, which does all of this).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The one skill the suite's Skills client scenarios serve.
SKILL = "pdf-processing"


def main() -> int:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    action = ["skills"] if scenario.endswith("no-prefetch") else ["skill", SKILL]
    argv = [sys.executable, "-m", "inspector", *action, "--url", url, "--json"]
    keep = os.environ.get("MCP_INSPECTOR_CONFORMANCE_KEEP")
    if keep:
        argv += ["--out", str(Path(keep) / f"{scenario or 'skills'}.jsonl")]
    return subprocess.run(argv, cwd=ROOT, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
