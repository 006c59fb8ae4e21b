"""The UI-free core: transports, framing, events, correlation, sessions and captures.

Nothing in this package imports Qt (a test enforces it): the GUI, the CLI and the tests all sit on it.
"""
