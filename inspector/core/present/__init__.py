"""Events for people: the timeline's compact columns, one-line descriptions, incremental pretty-printing."""
