-- Core tables every part of opsmemory shares.

-- Key/value facts about this database (e.g. which embedder wrote the memory vectors).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
