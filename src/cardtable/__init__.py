"""cardtable: an open-source online card room."""

__version__ = "0.1.0"
