"""Copy the docs pages the agent seat serves as resources into the package: python scripts/seat_docs.py [--check]

``mcp-inspector mcp`` serves docs/troubleshooting.md, docs/server-checks.md, docs/protocol-checks.md and
docs/capture-format.md as ``inspector-docs://NAME`` (:mod:`inspector.core.seat.docs_resources`); docs/ is not
in the package, so each page is copied, byte for byte, to inspector/core/seat/docs/ (package data). Run it after
changing one of those pages (or regenerating it: reliability_report.py writes troubleshooting.md,
server_checks.py and protocol_checks.py theirs). ``--check`` exits 1 when a copy differs, writing nothing
(tests/core/seat/test_seat_docs.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # generated_doc, beside this script

from generated_doc import write_or_check

from inspector.core.seat.docs_resources import PAGES

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "docs"
OUT = ROOT / "inspector" / "core" / "seat" / "docs"


def main() -> int:
    OUT.mkdir(exist_ok=True)
    failed = 0
    for name in PAGES:
        text = (SOURCE / f"{name}.md").read_bytes().decode("utf-8")
        failed |= write_or_check(OUT / f"{name}.md", text, "seat_docs.py", ROOT)
    return failed


if __name__ == "__main__":
    sys.exit(main())
