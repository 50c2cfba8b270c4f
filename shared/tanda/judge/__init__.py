"""The judge stage: batched strict judging with re-check, and the framing check."""
