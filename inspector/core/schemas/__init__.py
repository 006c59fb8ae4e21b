"""JSON Schema for people: compiled, cached validators that never fetch a network ``$ref``, and each
violation as one sentence with its JSON path (``validate``). Tool forms, the CLI's argument typing and the
protocol checks all judge JSON through this one package."""
