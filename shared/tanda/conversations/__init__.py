"""Conversations: ownership by route, stored messages, verified-only history (V2-19, V2-22)."""
