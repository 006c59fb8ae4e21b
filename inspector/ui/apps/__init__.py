"""MCP Apps in Qt WebEngine: an app rendered in a sandboxed web view, the inspector as its host.

- :mod:`engine`: the ``mcp-app:`` scheme, the off-the-record profile each app gets, Chromium's flags.
- :mod:`page`: the page of one app: its request interceptor (the policy), its scheme handler (the host page and
  the app's document with its Content-Security-Policy), its navigation and popup rules.
- :mod:`bridge`: the postMessage bridge between the app and Python (QWebChannel, in a world the app cannot see).
- :mod:`view`: :class:`~inspector.ui.apps.view.AppView`, the widget that shows one app.
- :mod:`run`: :class:`~inspector.ui.apps.run.AppRun`, one app of a session: the view, the core host
  (:class:`inspector.core.apps.host.AppHost`), and the session every message is recorded in.
- :mod:`headless`: ``mcp-inspector app``: an app rendered offscreen and played until it is idle.
- :mod:`panel`: the Apps tab of a session in the window.

What the app may do is decided in :mod:`inspector.core.apps`; these modules only apply it.
"""
