-- Incident numbers come from a per-team sequence that channel names cannot move (issue 18).
-- Before this, the next number was max(number) + 1 over every incident, channel-named ones
-- included, so a channel called inc-999999999 pushed every later incident past what
-- parse_incident_id accepts (inc-1000000000 and up: notes then failed in each of them).
--
-- Forward without loss: the sequence starts at the team's highest number a channel name may
-- still claim (1..999999), and incidents numbered past 999999999 (never addressable) are
-- renumbered after it, their notes and episodes following them; an audit row
-- (incident.renumber, in the incident's channel) records each move.

CREATE TABLE memory_incident_sequence (
    team_id     TEXT PRIMARY KEY,
    last_number INTEGER NOT NULL CHECK (last_number >= 0)   -- the last number the bot handed out
);

CREATE UNIQUE INDEX memory_incidents_number ON memory_incidents (team_id, number);

-- Notes reference (team_id, incident id); checked at commit, once parents and children moved.
PRAGMA defer_foreign_keys = ON;

CREATE TABLE memory_incident_renumbering (
    team_id    TEXT NOT NULL,
    old_id     TEXT NOT NULL,
    new_number INTEGER NOT NULL,
    PRIMARY KEY (team_id, old_id)
);

INSERT INTO memory_incident_renumbering (team_id, old_id, new_number)
SELECT i.team_id, i.id,
       coalesce((SELECT max(s.number) FROM memory_incidents AS s
                 WHERE s.team_id = i.team_id AND s.number <= 999999), 0)
       + row_number() OVER (PARTITION BY i.team_id ORDER BY i.number)
FROM memory_incidents AS i
WHERE i.number > 999999999;

UPDATE memory_notes SET incident_id = 'inc-' || (
    SELECT r.new_number FROM memory_incident_renumbering AS r
    WHERE r.team_id = memory_notes.team_id AND r.old_id = memory_notes.incident_id)
WHERE (team_id, incident_id) IN (SELECT team_id, old_id FROM memory_incident_renumbering);

UPDATE memory_episodes SET incident_id = 'inc-' || (
    SELECT r.new_number FROM memory_incident_renumbering AS r
    WHERE r.team_id = memory_episodes.team_id AND r.old_id = memory_episodes.incident_id)
WHERE (team_id, incident_id) IN (SELECT team_id, old_id FROM memory_incident_renumbering);

INSERT INTO memory_audit (at, action, subject_id, team_id, channel_id, scope, item_id, findings)
SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'incident.renumber', 'opsmemory', i.team_id,
       i.channel_id, 'channel', 'inc-' || r.new_number, '{}'
FROM memory_incident_renumbering AS r
JOIN memory_incidents AS i ON i.team_id = r.team_id AND i.id = r.old_id;

-- Counted before the renumbered rows move into the 1..999999 range they would skew.
INSERT INTO memory_incident_sequence (team_id, last_number)
SELECT team_id, coalesce(max(CASE WHEN number <= 999999 THEN number END), 0)
    + (SELECT count(*) FROM memory_incident_renumbering AS r WHERE r.team_id = i.team_id)
FROM memory_incidents AS i
GROUP BY team_id;

UPDATE memory_incidents SET
    number = (SELECT r.new_number FROM memory_incident_renumbering AS r
              WHERE r.team_id = memory_incidents.team_id AND r.old_id = memory_incidents.id),
    id = 'inc-' || (SELECT r.new_number FROM memory_incident_renumbering AS r
                    WHERE r.team_id = memory_incidents.team_id AND r.old_id = memory_incidents.id)
WHERE (team_id, id) IN (SELECT team_id, old_id FROM memory_incident_renumbering);

DROP TABLE memory_incident_renumbering;
