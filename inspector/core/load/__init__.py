"""Load tests: one request sent again and again, concurrently, through one session (:mod:`.runner`), with the
latency and throughput figures of the run (:mod:`.stats`). ``mcp-inspector load`` and the window's Load view
sit on it."""
