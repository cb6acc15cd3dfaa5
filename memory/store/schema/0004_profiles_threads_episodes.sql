-- Profile facts, captured thread messages and episodes.
-- Every row table carries the scope columns read by memory.scopes.visibility_sql:
-- scope, team_id, channel_id, channel_is_private, owner_subject_id.
-- FTS tables are external-content and kept in step by triggers, so a DELETE of a row
-- removes its keyword index entry in the same statement.

-- Per-subject facts and preferences; always scope 'user'. Superseded rows stay as history.
CREATE TABLE memory_profile_facts (
    id                 INTEGER PRIMARY KEY,
    scope              TEXT NOT NULL DEFAULT 'user' CHECK (scope = 'user'),
    team_id            TEXT NOT NULL,
    channel_id         TEXT,
    channel_is_private INTEGER NOT NULL DEFAULT 0,
    owner_subject_id   TEXT NOT NULL,
    kind               TEXT NOT NULL CHECK (kind IN ('fact', 'preference', 'correction')),
    category           TEXT NOT NULL DEFAULT 'other',
    text               TEXT NOT NULL,
    norm               TEXT NOT NULL,
    origin             TEXT NOT NULL CHECK (origin IN ('command', 'extraction')),
    source_channel_id  TEXT,
    source_ts          TEXT,
    permalink          TEXT,
    findings           TEXT NOT NULL DEFAULT '[]',
    created_at         TEXT NOT NULL,
    superseded_by      INTEGER REFERENCES memory_profile_facts (id) ON DELETE SET NULL,
    superseded_at      TEXT
);
CREATE INDEX memory_profile_facts_owner
    ON memory_profile_facts (owner_subject_id, superseded_at, created_at);

CREATE VIRTUAL TABLE memory_profile_facts_fts USING fts5(
    text, content = 'memory_profile_facts', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_profile_facts_ai AFTER INSERT ON memory_profile_facts BEGIN
    INSERT INTO memory_profile_facts_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memory_profile_facts_ad AFTER DELETE ON memory_profile_facts BEGIN
    INSERT INTO memory_profile_facts_fts (memory_profile_facts_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memory_profile_facts_au AFTER UPDATE OF text ON memory_profile_facts BEGIN
    INSERT INTO memory_profile_facts_fts (memory_profile_facts_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
    INSERT INTO memory_profile_facts_fts (rowid, text) VALUES (new.id, new.text);
END;

-- Human messages captured in incident channels, redacted, one row per (team, channel, ts).
CREATE TABLE memory_thread_messages (
    id                 INTEGER PRIMARY KEY,
    scope              TEXT NOT NULL DEFAULT 'channel' CHECK (scope = 'channel'),
    team_id            TEXT NOT NULL,
    channel_id         TEXT NOT NULL,
    channel_is_private INTEGER NOT NULL,
    owner_subject_id   TEXT NOT NULL,
    ts                 TEXT NOT NULL,
    thread_ts          TEXT NOT NULL,
    text               TEXT NOT NULL,
    findings           TEXT NOT NULL DEFAULT '[]',
    permalink          TEXT,
    created_at         TEXT NOT NULL,
    edited_at          TEXT,
    UNIQUE (team_id, channel_id, ts)
);
CREATE INDEX memory_thread_messages_thread
    ON memory_thread_messages (team_id, channel_id, thread_ts, ts);
CREATE INDEX memory_thread_messages_owner ON memory_thread_messages (owner_subject_id);
CREATE INDEX memory_thread_messages_changed
    ON memory_thread_messages (coalesce(edited_at, created_at));

CREATE VIRTUAL TABLE memory_thread_messages_fts USING fts5(
    text, content = 'memory_thread_messages', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_thread_messages_ai AFTER INSERT ON memory_thread_messages BEGIN
    INSERT INTO memory_thread_messages_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER memory_thread_messages_ad AFTER DELETE ON memory_thread_messages BEGIN
    INSERT INTO memory_thread_messages_fts (memory_thread_messages_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
END;
CREATE TRIGGER memory_thread_messages_au AFTER UPDATE OF text ON memory_thread_messages BEGIN
    INSERT INTO memory_thread_messages_fts (memory_thread_messages_fts, rowid, text)
    VALUES ('delete', old.id, old.text);
    INSERT INTO memory_thread_messages_fts (rowid, text) VALUES (new.id, new.text);
END;

-- One episode per thread: a deterministic extractive summary of its captured messages.
-- owner_subject_id is whoever started the thread (the "author" for forget-me).
CREATE TABLE memory_episodes (
    id                 INTEGER PRIMARY KEY,
    scope              TEXT NOT NULL DEFAULT 'channel' CHECK (scope = 'channel'),
    team_id            TEXT NOT NULL,
    channel_id         TEXT NOT NULL,
    channel_is_private INTEGER NOT NULL,
    owner_subject_id   TEXT NOT NULL,
    thread_ts          TEXT NOT NULL,
    incident_id        TEXT,
    title              TEXT NOT NULL,
    summary            TEXT NOT NULL,
    llm_summary        TEXT,
    sections           TEXT NOT NULL DEFAULT '{}',
    participants       TEXT NOT NULL DEFAULT '[]',
    message_count      INTEGER NOT NULL,
    started_at         TEXT NOT NULL,
    ended_at           TEXT NOT NULL,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    UNIQUE (team_id, channel_id, thread_ts)
);
CREATE INDEX memory_episodes_recent ON memory_episodes (team_id, ended_at);
CREATE INDEX memory_episodes_owner ON memory_episodes (owner_subject_id);

-- Who took part in an episode, so export and forget-me find episodes by participant.
CREATE TABLE memory_episode_participants (
    episode_id INTEGER NOT NULL REFERENCES memory_episodes (id) ON DELETE CASCADE,
    subject_id TEXT NOT NULL,
    PRIMARY KEY (episode_id, subject_id)
);
CREATE INDEX memory_episode_participants_subject ON memory_episode_participants (subject_id);

CREATE VIRTUAL TABLE memory_episodes_fts USING fts5(
    title, summary, content = 'memory_episodes', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memory_episodes_ai AFTER INSERT ON memory_episodes BEGIN
    INSERT INTO memory_episodes_fts (rowid, title, summary) VALUES (new.id, new.title, new.summary);
END;
CREATE TRIGGER memory_episodes_ad AFTER DELETE ON memory_episodes BEGIN
    INSERT INTO memory_episodes_fts (memory_episodes_fts, rowid, title, summary)
    VALUES ('delete', old.id, old.title, old.summary);
END;
CREATE TRIGGER memory_episodes_au AFTER UPDATE OF title, summary ON memory_episodes BEGIN
    INSERT INTO memory_episodes_fts (memory_episodes_fts, rowid, title, summary)
    VALUES ('delete', old.id, old.title, old.summary);
    INSERT INTO memory_episodes_fts (rowid, title, summary) VALUES (new.id, new.title, new.summary);
END;

-- One row per captured thread: when anything in it last changed, so the scheduler rolls up
-- only threads whose episode is missing or older than their last change (deletes included).
CREATE TABLE memory_threads (
    team_id    TEXT NOT NULL,
    channel_id TEXT NOT NULL,
    thread_ts  TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id, thread_ts)
);
CREATE INDEX memory_threads_changed ON memory_threads (changed_at);
