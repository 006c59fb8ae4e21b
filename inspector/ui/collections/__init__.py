"""The window's collections: Session > Run collection… (:mod:`.run`) with each expectation's outcome shown as it
comes (:mod:`.view`), and the Explorer history's "Save to collection…" (:mod:`.save`)."""
