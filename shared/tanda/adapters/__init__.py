"""Adapters: the only code that does I/O (sqlite, dynamodb, opensearch, model endpoints, …)."""
