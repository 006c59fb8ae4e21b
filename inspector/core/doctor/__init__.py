"""The connection doctor (``mcp-inspector doctor``, and Diagnose in the window): why a connection to a server
fails, as steps in order, each passed, failed, warning or skipped, with a detail and, for a failure, the fix.

For a command run over stdio: ``command``, ``start``, ``stdout``, ``handshake`` (:mod:`.command`). For a URL:
``resolve``, ``connect`` (:mod:`.network`), ``tls`` (:mod:`.tls`, :mod:`.certificates`), ``http``, ``transport``
(:mod:`.http_steps`), ``auth`` (:mod:`.authorization`), ``handshake`` (:mod:`.handshake`). The steps from
``start`` and ``http`` on read one real session opened with the target's own transport (:mod:`.session_run`),
so what they say is what record, the window and check meet. :func:`.runner.diagnose` runs them in order;
:mod:`.model` is what they return. No Qt, no printing: the command and the window show the steps.
"""
