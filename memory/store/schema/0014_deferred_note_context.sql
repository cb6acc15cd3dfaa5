-- A slash note is acknowledged once its own row and keyword index are committed; adding its
-- text to the neighbour context of the notes before it (their FTS rows are rewritten, the
-- costliest part of a save) waits for the indexing job (issue 18: ack p99 under load).
--
-- `context_targets` holds, as a JSON array, the ids of the notes that still have to take this
-- note's text into their context; NULL when nothing is pending. The notes table is the queue:
-- a crash loses nothing, the next pass applies what is pending.
ALTER TABLE memory_notes ADD COLUMN context_targets TEXT;

CREATE INDEX memory_notes_context_pending ON memory_notes (id) WHERE context_targets IS NOT NULL;
