"""Saved server profiles in the window: the sidebar, the edit dialog, importing client configs."""
