"""The loopback redirect listener (RFC 8252 section 7.3): 127.0.0.1 only, an ephemeral port, open only during
a login, one request with the matching state accepted, closed at once (or after its timeout). No listening
port before a login or after it, checked in /proc like tests/cli/test_record_opens_no_port.py."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import httpx
import pytest
from auth_support import record_with_oauth

from inspector.core.auth import authorize
from inspector.core.auth.loopback import LoopbackListener
from inspector.core.auth.model import AuthError
from inspector.core.exits import EXIT_OK

TCP_LISTEN = "0A"


def own_listening_ports() -> dict[int, str]:
    """Port -> local address (hex) of the TCP sockets this process listens on."""
    inodes = set()
    for fd in Path("/proc/self/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == TCP_LISTEN and fields[9] in inodes:
                address, _, port = fields[1].rpartition(":")
                found[int(port, 16)] = address
    return found


def test_the_listener_takes_one_request_with_the_matching_state_on_127_0_0_1_and_closes_at_once() -> None:
    async def scenario() -> None:
        assert own_listening_ports() == {}
        listener = LoopbackListener()
        redirect_uri = await listener.open()
        assert redirect_uri == f"http://127.0.0.1:{listener.port}/callback"
        assert own_listening_ports() == {listener.port: "0100007F"}  # 127.0.0.1, nothing else
        waiting = asyncio.ensure_future(listener.wait("the-state"))
        async with httpx.AsyncClient(trust_env=False) as client:
            wrong = await client.get(redirect_uri, params={"code": "c", "state": "another"})
            assert wrong.status_code == 400 and listener.is_open
            right = await client.get(redirect_uri, params={"code": "c", "state": "the-state"})
            assert right.status_code == 200
        assert (await waiting).endswith("/callback?code=c&state=the-state")
        assert own_listening_ports() == {} and not listener.is_open

    asyncio.run(scenario())


def test_a_login_without_a_redirect_gives_up_after_the_timeout_and_closes_the_port() -> None:
    async def scenario() -> None:
        listener = LoopbackListener(timeout=0.2)
        await listener.open()
        with pytest.raises(AuthError, match="no redirect reached .* within 0.2 s"):
            await listener.wait("s")
        assert own_listening_ports() == {}

    asyncio.run(scenario())


def test_the_browser_flow_opens_the_loopback_port_only_during_the_login(auth_server, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The system browser played by a thread: GET the authorization URL (not following the redirect), then
    the redirect to the loopback listener."""
    seen: dict[str, object] = {}
    browsed = threading.Event()

    def browser(url: str) -> None:
        def visit() -> None:
            with httpx.Client(trust_env=False, follow_redirects=False) as client:
                location = client.get(url).headers["location"]
                seen["listening"] = own_listening_ports()
                seen["redirect"] = location.split("?")[0]
                seen["status"] = client.get(location).status_code
            browsed.set()

        threading.Thread(target=visit, daemon=True).start()

    monkeypatch.setattr(authorize, "open_in_system_browser", browser)
    server = auth_server("--registration", "dcr")
    assert own_listening_ports() == {}
    run = record_with_oauth(server, tmp_path / "c.jsonl", authorize="browser")
    assert run.result.exit_code == EXIT_OK, run.result.error
    assert browsed.is_set() and seen["status"] == 200
    port = int(str(seen["redirect"]).split(":")[2].split("/")[0])
    assert seen["listening"] == {port: "0100007F"}
    assert own_listening_ports() == {}
    register = next(r for r in server.requests() if r["path"] == "/register")
    assert f"http://127.0.0.1:{port}/callback" in register["body"]
