"""Launchers for trials with several processes (``resources.slots_per_trial``)."""
