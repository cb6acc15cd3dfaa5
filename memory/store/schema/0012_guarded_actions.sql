-- Guarded actions (issue 17): catalogue actions requested in an incident thread, the approvers'
-- decisions and one execution, enforced here rather than in code:
--   * one request per Slack click (UNIQUE team_id, click_id: the slash command's trigger_id);
--   * one decision per approver per request (UNIQUE request_id, approver);
--   * each state change is a compare-and-set UPDATE … WHERE state = <expected>, so of 50
--     simultaneous approve clicks (or two replicas) exactly one moves approved → executing;
--   * 'executing' is written before the executor is called: after a crash such a row becomes
--     'unknown' and is reported, never run again.
-- The audit log outlives requests and forget-me (subjects are pseudonymised, facts kept).

CREATE TABLE guarded_requests (
    id             INTEGER PRIMARY KEY,
    team_id        TEXT NOT NULL,
    channel_id     TEXT NOT NULL,
    thread_ts      TEXT,
    message_ts     TEXT,                  -- the request message the bot updates in place
    incident_id    TEXT,
    click_id       TEXT NOT NULL,
    action         TEXT NOT NULL,
    params_json    TEXT NOT NULL,         -- validated, redaction-checked parameter values
    params_hash    TEXT NOT NULL,         -- sha256 of the canonical params, re-checked at run
    requested_by   TEXT NOT NULL,         -- subject id
    requester_user TEXT NOT NULL,         -- Slack user id (for mentions)
    source         TEXT NOT NULL,         -- where the request came from, as shown
    risk           TEXT NOT NULL,
    approvals_needed INTEGER NOT NULL CHECK (approvals_needed >= 1),
    dry_run        INTEGER NOT NULL CHECK (dry_run IN (0, 1)),
    state          TEXT NOT NULL DEFAULT 'requested'
                   CHECK (state IN ('requested', 'approved', 'denied', 'expired', 'executing',
                                    'succeeded', 'failed', 'unknown')),
    created_at     TEXT NOT NULL,
    expires_at     TEXT NOT NULL,
    decided_at     TEXT,
    started_at     TEXT,
    finished_at    TEXT,
    outcome        TEXT,                  -- short reason or output, shown in the thread
    UNIQUE (team_id, click_id)
);

CREATE INDEX guarded_requests_state ON guarded_requests (state);

CREATE TABLE guarded_decisions (
    id            INTEGER PRIMARY KEY,
    request_id    INTEGER NOT NULL REFERENCES guarded_requests (id),
    approver      TEXT NOT NULL,          -- subject id
    approver_user TEXT NOT NULL,          -- Slack user id, re-checked at execution
    verdict       TEXT NOT NULL CHECK (verdict IN ('approve', 'deny')),
    decided_at    TEXT NOT NULL,
    UNIQUE (request_id, approver)
);

CREATE TABLE guarded_audit (
    id           INTEGER PRIMARY KEY,
    at           TEXT NOT NULL,
    team_id      TEXT NOT NULL,
    channel_id   TEXT,
    incident_id  TEXT,
    request_id   INTEGER,
    action       TEXT NOT NULL,
    event        TEXT NOT NULL,           -- requested, approved, denied, refused, expired,
                                          -- executing, succeeded, failed, unknown
    actor        TEXT NOT NULL,           -- subject id (pseudonymised by forget-me) or 'opsmemory'
    detail_json  TEXT NOT NULL DEFAULT '{}'
);

CREATE INDEX guarded_audit_at ON guarded_audit (at);
