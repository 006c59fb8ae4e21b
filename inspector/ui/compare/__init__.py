"""The window's comparisons: Session > Compare with… (:mod:`.view`, :mod:`.run`: the current capture against
another capture or a live server, side by side) and the baseline drift warning on connect (:mod:`.drift`)."""
