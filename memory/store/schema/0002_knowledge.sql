-- Runbook knowledge: index generations (with provenance), chunks, keyword index, embedding cache.
-- Vector tables (knowledge_vec_<dim>) are created at run time for the embedder's dimension.

-- One row per built index generation; exactly one is current (is_current = 1) at a time.
CREATE TABLE knowledge_generations (
    id               INTEGER PRIMARY KEY,
    corpus_digest    TEXT    NOT NULL,
    chunker_version  TEXT    NOT NULL,
    embedder_backend TEXT,               -- NULL: keyword-only generation
    embedder_name    TEXT,
    embedder_digest  TEXT,
    dim              INTEGER,
    runbook_count    INTEGER NOT NULL,
    chunk_count      INTEGER NOT NULL,
    vector_count     INTEGER NOT NULL DEFAULT 0,
    built_at         TEXT    NOT NULL,
    build_ms         INTEGER NOT NULL,
    is_current       INTEGER NOT NULL DEFAULT 0 CHECK (is_current IN (0, 1))
);
CREATE UNIQUE INDEX knowledge_generations_current
    ON knowledge_generations (is_current) WHERE is_current = 1;

-- Runbooks of a generation (document-level keyword row is knowledge_doc_fts with the same rowid).
CREATE TABLE knowledge_runbooks (
    id            INTEGER PRIMARY KEY,
    generation_id INTEGER NOT NULL REFERENCES knowledge_generations (id) ON DELETE CASCADE,
    slug          TEXT    NOT NULL,
    title         TEXT    NOT NULL,
    relpath       TEXT    NOT NULL,
    sha256        TEXT    NOT NULL,
    UNIQUE (generation_id, slug)
);

-- Heading-bounded sections; rowid doubles as the rowid in knowledge_chunk_fts and the vec table.
CREATE TABLE knowledge_chunks (
    id            INTEGER PRIMARY KEY,
    generation_id INTEGER NOT NULL REFERENCES knowledge_generations (id) ON DELETE CASCADE,
    runbook_id    INTEGER NOT NULL REFERENCES knowledge_runbooks (id) ON DELETE CASCADE,
    slug          TEXT    NOT NULL,
    ordinal       INTEGER NOT NULL,
    heading_path  TEXT    NOT NULL,      -- JSON array of headings, outermost first
    anchor        TEXT    NOT NULL,
    content_hash  TEXT    NOT NULL,
    text          TEXT    NOT NULL
);
CREATE INDEX knowledge_chunks_generation ON knowledge_chunks (generation_id, slug, ordinal);

-- Keyword indexes (BM25F via column weights). Text is pre-split (CamelCase/kebab/snake).
CREATE VIRTUAL TABLE knowledge_chunk_fts USING fts5(
    title, headings, body, tokenize = 'porter unicode61'
);
CREATE VIRTUAL TABLE knowledge_doc_fts USING fts5(
    title, headings, body, tokenize = 'porter unicode61'
);

-- Embeddings keyed by model digest and the exact embedded text, so rebuilds re-embed only changes.
CREATE TABLE knowledge_embedding_cache (
    embedder_digest TEXT NOT NULL,
    text_sha256     TEXT NOT NULL,
    vector          BLOB NOT NULL,
    PRIMARY KEY (embedder_digest, text_sha256)
) WITHOUT ROWID;
