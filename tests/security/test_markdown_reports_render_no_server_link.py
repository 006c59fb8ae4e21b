"""Server text in a Markdown report renders as plain text: no remote image (a tracking pixel fetched when the
report is opened), no link, no HTML (issue 26, point 6: the Markdown export let ``![](http://...)`` in server
text render as a remote image).

A real server (servers/html_server.py) puts Markdown images, links, autolinks and HTML in every text it has;
``record`` saves a session with it, ``export --to markdown`` and ``check --format markdown`` write reports,
and each report is rendered by a real Markdown renderer (Qt's, md4c with the GitHub dialect: tables and
autolinks) and searched for images and links.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import cli

SERVER = [sys.executable, str(Path(__file__).resolve().parent / "servers" / "html_server.py")]
#: A tracking pixel with and without alt text, a javascript: link, an autolink, a bare URL, www and e-mail
#: autolinks (GitHub's), HTML, and a pipe that would end a table cell.
PAYLOAD = ("![pixel](http://127.0.0.1:9/pixel.png) ![](http://127.0.0.1:9/blank.png) [click](javascript:alert(1)) "
           "<http://evil.example/a> http://bare.example/b www.evil.example user@evil.example "
           "<img src=http://img.example/y.png> a|b")


def rendered(markdown: str) -> tuple[str, list[str], list[str]]:
    """The plain text, the images and the links of ``markdown`` as Qt renders it (GitHub dialect)."""
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setMarkdown(markdown, QTextDocument.MarkdownFeature.MarkdownDialectGitHub)
    page = document.toHtml()
    return document.toPlainText(), re.findall(r"<img[^>]*>", page), re.findall(r'href="[^"]*"', page)


@pytest.mark.integration  # end to end through subprocesses, 7-13 s: CI's second step
@pytest.mark.report("security", "a Markdown report (export --to markdown, check --format markdown) renders no image, "
                                "link or HTML from server text", surface="CLI")
def test_markdown_reports_render_a_servers_images_links_and_html_as_plain_text(qapp: Any, tmp_path: Path,
                                                                               report) -> None:
    # the renderer does render these (else finding none below would prove nothing)
    _, images, links = rendered(f"- **Server:** {PAYLOAD}")
    assert len(images) == 1 and len(links) >= 4, (images, links)
    calls = tmp_path / "calls.jsonl"
    calls.write_text('{"method": "tools/list"}\n{"method": "tools/call", "params": {"name": "x", "arguments": {}}}\n'
                     '{"method": "nope/x"}\n')
    capture = tmp_path / "s.jsonl"
    cli("record", "--out", str(capture), "--send", str(calls), "--idle", "0", "--", *SERVER, PAYLOAD)
    exported = cli("export", str(capture), "--to", "markdown")
    assert exported.returncode == 0, exported.stderr
    checked = cli("check", "--format", "markdown", "--", *SERVER, PAYLOAD, timeout=120)
    assert checked.stdout.startswith("# mcp-inspector check"), checked.stderr
    seen = []
    for name, markdown in (("export --to markdown", exported.stdout), ("check --format markdown", checked.stdout)):
        text, images, links = rendered(markdown)
        assert images == [], f"{name} renders images: {images}"
        assert links == [] if name.startswith("export") else all("modelcontextprotocol.io" in link for link in links), \
            f"{name} renders links of the server: {links}"
        assert PAYLOAD in text, f"{name}: the server's text does not read as sent"
        seen.append(f"{name}: {text.count(PAYLOAD)} times as plain text")
    # every timeline row is still one table row of 8 cells, the server's pipe escaped
    table = [line for line in exported.stdout.splitlines() if line.startswith("| ") and not line.startswith("| #")]
    assert table and all(len(re.findall(r"(?<!\\)\|", line)) == 9 for line in table)
    report.saw(f"the server's images, links, autolinks and HTML read as the text it sent, nothing rendered "
               f"({'; '.join(seen)})")
