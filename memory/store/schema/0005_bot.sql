-- The Slack edge's own state: processed event ids (exactly-once), which message got which
-- answer, LLM tokens per thread, answer feedback, and approval requests for production changes.

CREATE TABLE bot_events (
    event_id    TEXT PRIMARY KEY,
    received_at TEXT NOT NULL
);
CREATE INDEX bot_events_received ON bot_events (received_at);

CREATE TABLE bot_answers (
    team_id     TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    message_ts  TEXT NOT NULL,           -- the human message that asked
    answer_ts   TEXT,                    -- the bot's threaded answer, once posted
    created_at  TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id, message_ts)
);

CREATE TABLE bot_thread_tokens (
    team_id           TEXT NOT NULL,
    channel_id        TEXT NOT NULL,
    thread_ts         TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    calls             INTEGER NOT NULL DEFAULT 0,
    updated_at        TEXT NOT NULL,
    PRIMARY KEY (team_id, channel_id, thread_ts)
);

CREATE TABLE bot_feedback (
    id          INTEGER PRIMARY KEY,
    team_id     TEXT NOT NULL,
    channel_id  TEXT NOT NULL,
    answer_ts   TEXT NOT NULL,
    subject_id  TEXT NOT NULL,
    verdict     TEXT NOT NULL CHECK (verdict IN ('remembered', 'not_helpful')),
    created_at  TEXT NOT NULL,
    UNIQUE (team_id, channel_id, answer_ts, subject_id, verdict)
);

CREATE TABLE bot_approvals (
    id            INTEGER PRIMARY KEY,
    team_id       TEXT NOT NULL,
    channel_id    TEXT NOT NULL,
    action        TEXT NOT NULL CHECK (action IN ('rollback', 'scale_out', 'restart')),
    requested_by  TEXT NOT NULL,          -- subject id
    status        TEXT NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'approved', 'rejected')),
    decided_by    TEXT,
    created_at    TEXT NOT NULL,
    decided_at    TEXT
);
