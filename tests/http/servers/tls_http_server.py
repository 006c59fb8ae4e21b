"""The well-behaved Streamable HTTP server of misbehaving_http_server.py (mode ``good``), over TLS.

``python tls_http_server.py CERT KEY PORT_FILE`` binds 127.0.0.1 on an ephemeral port (never any other address),
writes the port to PORT_FILE once it listens, and serves https with the certificate and key given (PEM files;
the tests make them: tests/tls_support.py). The TLS handshake runs in each connection's own thread, so a client
that connects and says nothing (a port check) holds up no other. Standard library only.
"""

from __future__ import annotations

import socket
import ssl
import sys
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import misbehaving_http_server as base

#: Bound on a client's TLS handshake (a port check that never says hello is dropped after it).
HANDSHAKE_TIMEOUT = 10.0


class TlsServer(ThreadingHTTPServer):
    daemon_threads = True
    context: ssl.SSLContext

    def finish_request(self, request: Any, client_address: Any) -> None:
        assert isinstance(request, socket.socket)
        request.settimeout(HANDSHAKE_TIMEOUT)
        try:
            secure = self.context.wrap_socket(request, server_side=True)
        except (OSError, ssl.SSLError):
            return  # a refused certificate, a port check, a plain-HTTP client: the client says what it saw
        try:
            secure.settimeout(None)
            super().finish_request(secure, client_address)
        finally:
            secure.close()


def main() -> None:
    cert, key, port_file = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    handler = type("Good", (base.Handler,), {"mode": "tls", "sessions": set()})
    httpd = TlsServer(("127.0.0.1", 0), handler)
    httpd.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    httpd.context.load_cert_chain(cert, key)
    tmp = port_file.with_name(port_file.name + ".tmp")
    tmp.write_text(str(httpd.server_address[1]), encoding="ascii")
    tmp.replace(port_file)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
