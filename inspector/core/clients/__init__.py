"""Clients and servers people already have: their config files, wrapping them through tap, saved profiles."""
