"""The window's own --url with --ca-file and --insecure (parsed as the command line parses them): a self-signed
https server is refused without either, with Diagnose naming tls; with either, the session connects."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from helpers import until
from qt_loop import open_test_window
from tls_support import Certificate, https_server, make_certificate

from inspector.cli.main import build_parser
from inspector.core.connect.target import Target
from inspector.ui.session.live import FAILED, READY

pytestmark = pytest.mark.integration


@pytest.fixture
def window(qapp, qloop, tmp_path):
    with open_test_window(qloop, tmp_path) as win:
        yield win


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Certificate]]:
    folder = tmp_path_factory.mktemp("https")
    certificate = make_certificate(folder / "cert")
    with https_server(folder, certificate) as port:
        yield f"https://127.0.0.1:{port}/mcp", certificate


def window_target(*argv: str) -> Target:
    target = Target.from_window_args(build_parser().parse_args(list(argv)), [])
    assert target is not None
    return target


def test_a_self_signed_server_is_refused_and_diagnose_names_tls(window, qloop, self_signed):
    url, _ = self_signed

    async def scenario():
        tab = window.open_live(window_target("--url", url))
        await until(lambda: tab.live.state == FAILED and tab.live.finished, 15, "the failure")
        dialog = tab.diagnose.diagnose()
        await until(lambda: dialog.report is not None, 15, "the diagnosis")
        return tab, dialog

    tab, dialog = qloop.run_until_complete(scenario())
    assert "the server's certificate was refused (self-signed certificate)" in tab.status.text()
    assert dialog.report.first_failure.step == "tls"
    assert "--ca-file FILE" in dialog.report.first_failure.fix
    dialog.close()


@pytest.mark.parametrize("option", ["--ca-file", "--insecure"])
def test_ca_file_or_insecure_on_the_windows_url_connects_to_it(window, qloop, self_signed, option):
    url, certificate = self_signed
    argv = ["--url", url, option, *([str(certificate.cert)] if option == "--ca-file" else [])]

    async def scenario():
        tab = window.open_live(window_target(*argv))
        await until(lambda: tab.live.state in (READY, FAILED), 15, "the handshake")
        return tab

    tab = qloop.run_until_complete(scenario())
    assert tab.live.state == READY, tab.status.text()
    assert tab.diagnose.isHidden()
