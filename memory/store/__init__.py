"""The memory database: connection, single writer, migrations and schema, and every SQL statement
of memory (one module per table family, one vector store, one audit writer)."""

from memory.store.db import Database, Row, Tx

__all__ = ["Database", "Row", "Tx"]
