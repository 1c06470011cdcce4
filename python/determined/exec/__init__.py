"""Programs the runner starts in a trial's process (``python3 -m determined.exec.harness``)."""
