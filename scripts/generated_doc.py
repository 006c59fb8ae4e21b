"""The write-or-check step shared by the scripts that generate a docs page (cli_reference, protocol_checks,
server_checks): write the page, or with ``--check`` say it is out of date (exit 1) without writing."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(out: Path, text: str, script: str, root: Path) -> int:
    """Write ``text`` to ``out`` (printing its path), or with ``--check`` in argv compare and exit 1 when they
    differ, naming ``script`` as the way to regenerate it."""
    if "--check" in sys.argv[1:]:
        current = out.read_text(encoding="utf-8") if out.exists() else ""
        if current != text:
            print(f"{out.relative_to(root)} is out of date: run python scripts/{script}", file=sys.stderr)
            return 1
        return 0
    out.write_text(text, encoding="utf-8")
    print(out.relative_to(root))
    return 0
