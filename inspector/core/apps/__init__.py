"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension, SEP-1865): the host's side of the protocol, without Qt.

- :mod:`meta`: which tool has an app (``_meta.ui.resourceUri`` and the older ``ui/resourceUri``), who may call a
  tool (``visibility``), the client capability that says we render apps.
- :mod:`checks`: what is wrong with a ``ui://`` resource and its ``_meta.ui`` (mime type, content, csp shape,
  unknown keys), as findings.
- :mod:`policy`: the resource's ``_meta.ui.csp`` and ``permissions`` as requested, as the inspector enforces them
  (entries that would loosen the policy dropped, each with its reason), the Content-Security-Policy built from
  them, and the rule that says whether a URL may be loaded.
- :mod:`loader`: find a tool's app and read its resource through the session.
- :mod:`host`: the host's state machine: what it answers to the app's requests, what it passes to the server,
  when it may talk to the app; every message recorded in the session's ``app`` lane (:mod:`lane`).
- :mod:`report`: the JSON report of ``mcp-inspector app``; :mod:`job`: what one such run does.
- :mod:`sandbox`: whether Chromium's sandbox can run here, as a sentence when it cannot.

The web view that renders an app is in ``inspector/ui/apps`` (Qt); everything it decides is decided here.
Spec: https://github.com/modelcontextprotocol/ext-apps/blob/main/specification/2026-01-26/apps.mdx
"""
