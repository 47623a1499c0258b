"""The card room server: FastAPI app, table actors, protocol and security."""
