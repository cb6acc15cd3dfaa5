-- Channel partition keys carry the team (issue 14): "c:C1" becomes "c:T1:C1" ("cp:" for private
-- channels), so a channel id that exists in two workspaces (Slack Connect) is two partitions.
-- Before this, a note's search-only `context` (its neighbours' text) and its vector (mixed with
-- the previous note's) were built from one partition holding both workspaces' notes.
--
-- Notes whose channel id is held by more than one team may carry the other team's text in
-- `context` and vector: their context is cleared and their vectors dropped, so the index job
-- embeds them again from their own text. The FTS row follows the key through memory_notes_au.

UPDATE memory_notes
SET context = '', next_count = 0
WHERE scope = 'channel'
  AND channel_id IN (
      SELECT channel_id FROM memory_notes WHERE scope = 'channel'
      GROUP BY channel_id HAVING count(DISTINCT team_id) > 1
  );

DELETE FROM memory_note_vectors
WHERE note_id IN (
    SELECT id FROM memory_notes
    WHERE scope = 'channel' AND context = '' AND next_count = 0
      AND channel_id IN (
          SELECT channel_id FROM memory_notes WHERE scope = 'channel'
          GROUP BY channel_id HAVING count(DISTINCT team_id) > 1
      )
);

UPDATE memory_notes
SET partition_key = (CASE WHEN channel_is_private = 1 THEN 'cp:' ELSE 'c:' END)
                    || team_id || ':' || channel_id
WHERE scope = 'channel';

-- Vector tables are vec0 tables named at run time (memory/store/vectors.py) and vec0 cannot
-- UPDATE a partition key, so SQL cannot move their rows: the database does it when it opens
-- (memory/store/partitions.py), in one transaction that also deletes this marker.
INSERT OR REPLACE INTO meta (key, value) VALUES ('vec_partitions_pending', 'team_in_channel_keys');
