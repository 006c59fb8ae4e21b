"""The Explorer beside a live session's timeline: its panel (:mod:`panel`) and one module per page."""
