"""Alembic migrations of the cardtable database (run by ``cardtable.store.migrate``)."""
