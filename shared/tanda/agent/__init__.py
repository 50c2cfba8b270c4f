"""The agent stage: tools, the tool loop, segment output."""
