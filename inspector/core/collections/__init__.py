"""Saved calls with assertions: a collection file of requests, each with its expected outcome
(:mod:`.format`), the expectations judged against an answer (:mod:`.expectations`), a collection run against a
server (:mod:`.runner`) and its JUnit report (:mod:`.junit`). ``mcp-inspector run`` and the window's collection
runner sit on it."""
