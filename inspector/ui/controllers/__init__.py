"""The window's controllers: what a menu or a signal of the main window does, each with one owner (the main window
composes them; widgets stay thin)."""
