-- A note is found by the Slack message it was captured from: edits and deletions follow the
-- message, and a vague question in a thread reads the thread's first message. Without this
-- index each lookup read every note of the channel.
CREATE INDEX memory_notes_message ON memory_notes (team_id, channel_id, source_ts);
