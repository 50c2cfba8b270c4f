"""Use cases, one per route (DESIGN §2). They take validated contract models and a principal, and
return contract models; adapters come from the runtime."""
