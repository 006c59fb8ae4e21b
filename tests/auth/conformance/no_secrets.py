"""Whether the captures kept by ``MCP_INSPECTOR_CONFORMANCE_KEEP`` (see ../conformance_client.py) hold a secret:
any string value of the scenario's context other than ids and URLs (secrets, keys, assertions, ID tokens), any
line of a PEM key, and any JWT at all (``eyJ``: access tokens, ID-JAGs, DPoP proofs and client assertions are
JWTs in these scenarios).

    python tests/auth/conformance/no_secrets.py FOLDER

Prints one line per scenario; exits 1 when a capture holds one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

NOT_SECRET = ("name", "client_id", "idp_client_id", "idp_issuer", "idp_token_endpoint", "signing_algorithm")


def leaks(folder: Path) -> list[str]:
    text = (folder / "s.jsonl").read_text(encoding="utf-8")
    context = json.loads((folder / "context.json").read_text(encoding="utf-8"))
    secrets: set[str] = set()
    for key, value in context.items():
        if key not in NOT_SECRET and isinstance(value, str):
            secrets.add(value)
            secrets.update(line for line in value.splitlines() if len(line) > 20 and "-----" not in line)
    found = [f"the context's {s[:16]}..." for s in secrets if s in text]
    if "eyJ" in text:
        found.append("a JWT (eyJ...)")
    return found


def main() -> int:
    bad = 0
    for folder in sorted(p for p in Path(sys.argv[1]).iterdir() if (p / "s.jsonl").exists()):
        found = leaks(folder)
        bad += bool(found)
        print(f"{folder.name}: {'LEAKS ' + ', '.join(found) if found else 'no secret in the capture'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
