-- "Remember this" and the "Save to incident memory" shortcut save one note per source message:
-- the same (team, channel, message ts, kind) claims one row here, so a second click is answered
-- "already saved" instead of writing a duplicate. The row goes when its note is forgotten or
-- expires (ON DELETE CASCADE), so the message can be saved again after that.

CREATE TABLE bot_saved_sources (
    team_id     TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    source_ts   TEXT NOT NULL,           -- the Slack message that was saved
    kind        TEXT NOT NULL,           -- the note kind it was saved as
    note_id     INTEGER REFERENCES memory_notes (id) ON DELETE CASCADE,  -- NULL while saving
    claimed_at  TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id, source_ts, kind)
);
CREATE INDEX bot_saved_sources_note ON bot_saved_sources (note_id);
