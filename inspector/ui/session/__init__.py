"""One tab of the window: a live session or an opened capture, and the bridge from the core's events to Qt."""
