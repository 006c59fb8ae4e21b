"""``mcp-inspector test-client``: a bench that runs an MCP client against scenario servers and gives a verdict.

``script`` is what every scenario server does (answers the handshake, lists and calls a tool, asks the client
things and holds its answer meanwhile), sans-io, with the clock passed in; ``scenarios`` the named scenarios,
each a script and its checks; ``checks`` the statuses and the spec text checks rest on; ``verdicts`` turns a
scenario's capture (every message the client sent, judged by the protocol judge of its revision) and the
client's outcome into checks; ``server`` is the scenario server on stdio (what the client launches, recording
its capture); ``bench`` runs the client once per scenario; ``report`` writes text, JSON, JUnit and SARIF.
"""
