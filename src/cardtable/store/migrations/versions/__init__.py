"""One module per migration; Alembic orders them by their revision ids, not file names."""
