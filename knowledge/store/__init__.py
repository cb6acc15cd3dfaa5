"""The runbook index's storage: every SQL statement over the `knowledge_*` tables.

One module per table family: `generations`, `runbooks` (runbook and chunk rows), `fts` (the two
keyword indexes), `vectors` (sqlite-vec tables) and `embedding_cache`.
"""
