"""FastAPI routers, one per route, and the single error → HTTP mapping (DESIGN §2)."""
