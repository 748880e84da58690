# a torch that cannot be imported: mps-run's "no torch" case
raise ImportError("no torch here (a test's stand-in)")
