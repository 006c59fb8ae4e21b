"""Intercept: rules and breakpoints that pause, change, drop, delay and answer messages on their way."""
