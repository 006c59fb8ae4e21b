"""The window's "Model's view" (issue 43): what a client puts in the model's context, costed and linted."""
