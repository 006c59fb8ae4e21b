"""Breakpoints in the window: the Breakpoints panel, the Intercepted queue and the logic object they subscribe to."""
