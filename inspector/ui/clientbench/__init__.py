"""Session > Test a client…: the client bench (``core/clientbench``) in the window: a run's logic object
(``bench_run``), its dialog (``dialog``: the client's command, the scenarios, the results as a tree) and the
controller (``run``) that opens a failed check's capture at the client's offending message."""
