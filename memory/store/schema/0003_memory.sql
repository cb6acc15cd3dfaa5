-- Memory core: subjects, incidents, notes (+ keyword index), write audit.
-- Every memory row carries scope, team_id, channel_id, channel_is_private, owner_subject_id so
-- memory/scopes.py's one visibility filter applies inside the SQL of every read.
-- Note vectors live in per-embedder tables created at run time (memory/_vectors.py).

CREATE TABLE memory_subjects (
    subject_id    TEXT PRIMARY KEY,          -- "E123/U456" (Enterprise Grid) or "T123/U456"
    enterprise_id TEXT,
    team_id       TEXT NOT NULL,
    user_id       TEXT NOT NULL,
    display_name  TEXT NOT NULL DEFAULT '',
    first_seen    TEXT NOT NULL,
    last_seen     TEXT NOT NULL
);

CREATE TABLE memory_incidents (
    team_id            TEXT NOT NULL,
    id                 TEXT NOT NULL,        -- canonical "inc-42"
    number             INTEGER NOT NULL,
    scope              TEXT NOT NULL DEFAULT 'channel' CHECK (scope = 'channel'),
    channel_id         TEXT NOT NULL,
    channel_is_private INTEGER NOT NULL,
    owner_subject_id   TEXT NOT NULL,        -- who opened it (or the bot, when recognised)
    title              TEXT NOT NULL,
    severity           TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('open', 'mitigated', 'resolved')),
    opened_at          TEXT NOT NULL,
    resolved_at        TEXT,
    PRIMARY KEY (team_id, id)
);
CREATE UNIQUE INDEX memory_incidents_channel ON memory_incidents (team_id, channel_id);

CREATE TABLE memory_notes (
    id                 INTEGER PRIMARY KEY,
    team_id            TEXT NOT NULL,
    scope              TEXT NOT NULL CHECK (scope IN ('user', 'channel', 'workspace')),
    channel_id         TEXT,
    channel_is_private INTEGER NOT NULL,
    owner_subject_id   TEXT NOT NULL,
    partition_key      TEXT NOT NULL,        -- scopes.partition_key_for: the vector partition
    incident_id        TEXT,
    kind               TEXT NOT NULL,
    text               TEXT NOT NULL,        -- redacted; what people see
    context            TEXT NOT NULL DEFAULT '',  -- redacted; searched, never shown
    author_name        TEXT NOT NULL DEFAULT '',
    permalink          TEXT,
    source_ts          TEXT,
    created_at         TEXT NOT NULL,
    next_count         INTEGER NOT NULL DEFAULT 0,  -- following notes already in `context`
    -- Indexed in FTS so a MATCH can be limited to the requester's partitions and one incident
    -- (memory/_notes_fts.py); the rows are still filtered by scopes.visibility_sql afterwards.
    fts_keys           TEXT GENERATED ALWAYS AS (
        partition_key || coalesce(' incident ' || incident_id, '')
    ) VIRTUAL,
    FOREIGN KEY (team_id, incident_id) REFERENCES memory_incidents (team_id, id)
);
CREATE INDEX memory_notes_partition ON memory_notes (partition_key, channel_id, id);
CREATE INDEX memory_notes_channel ON memory_notes (channel_id, created_at);
CREATE INDEX memory_notes_owner ON memory_notes (owner_subject_id);
CREATE INDEX memory_notes_incident ON memory_notes (team_id, incident_id);

-- Keyword index kept in step by triggers, so it commits (or rolls back) with the note itself.
CREATE VIRTUAL TABLE memory_notes_fts USING fts5(
    text, author_name, context, fts_keys,
    content = 'memory_notes', content_rowid = 'id',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER memory_notes_ai AFTER INSERT ON memory_notes BEGIN
    INSERT INTO memory_notes_fts (rowid, text, author_name, context, fts_keys)
    VALUES (new.id, new.text, new.author_name, new.context, new.fts_keys);
END;

CREATE TRIGGER memory_notes_ad AFTER DELETE ON memory_notes BEGIN
    INSERT INTO memory_notes_fts (memory_notes_fts, rowid, text, author_name, context, fts_keys)
    VALUES ('delete', old.id, old.text, old.author_name, old.context, old.fts_keys);
END;

CREATE TRIGGER memory_notes_au
AFTER UPDATE OF text, author_name, context, partition_key, incident_id ON memory_notes BEGIN
    INSERT INTO memory_notes_fts (memory_notes_fts, rowid, text, author_name, context, fts_keys)
    VALUES ('delete', old.id, old.text, old.author_name, old.context, old.fts_keys);
    INSERT INTO memory_notes_fts (rowid, text, author_name, context, fts_keys)
    VALUES (new.id, new.text, new.author_name, new.context, new.fts_keys);
END;

-- One row per memory write: who, when, where, what was removed (types and counts, never values).
CREATE TABLE memory_audit (
    id               INTEGER PRIMARY KEY,
    at               TEXT NOT NULL,
    action           TEXT NOT NULL,          -- note.save, incident.open, ...
    subject_id       TEXT NOT NULL,
    team_id          TEXT NOT NULL,
    channel_id       TEXT,
    scope            TEXT NOT NULL,
    item_id          TEXT,
    findings         TEXT NOT NULL DEFAULT '{}'   -- JSON {"AWS_ACCESS_KEY": 1, ...}
);
CREATE INDEX memory_audit_subject ON memory_audit (subject_id, at);

-- Full-precision note vectors, one row per (note, embedder digest); the per-dimension vec0 table
-- (memory/_vectors.py) holds their binary codes, partitioned by visibility, for the first pass.
CREATE TABLE memory_note_vectors (
    note_id INTEGER NOT NULL REFERENCES memory_notes (id) ON DELETE CASCADE,
    digest  TEXT NOT NULL,
    vec     BLOB NOT NULL,
    PRIMARY KEY (note_id, digest)
) WITHOUT ROWID;
