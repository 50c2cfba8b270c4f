"""Runners: what chains the pipeline steps under a deadline (DESIGN §4)."""
