-- Forgotten means gone (issue 16): FTS5's 'secure-delete' option makes the 'delete' command
-- (our AFTER DELETE / AFTER UPDATE triggers) remove a row's terms from the index b-tree itself.
-- Without it FTS5 only appends a delete marker and the terms stay in the old segment until a
-- merge happens to reach it. The option is stored in each table's _config, so it holds for every
-- connection. 'optimize' then merges each index once, dropping the entries of rows deleted
-- before this release (secure_delete on the connection zeroes the freed pages).
-- Runbook indexes (knowledge_*) hold shipped text only and are left as they are.

INSERT INTO memory_notes_fts (memory_notes_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO memory_profile_facts_fts (memory_profile_facts_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO memory_thread_messages_fts (memory_thread_messages_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO memory_episodes_fts (memory_episodes_fts, rank) VALUES ('secure-delete', 1);

INSERT INTO memory_notes_fts (memory_notes_fts) VALUES ('optimize');
INSERT INTO memory_profile_facts_fts (memory_profile_facts_fts) VALUES ('optimize');
INSERT INTO memory_thread_messages_fts (memory_thread_messages_fts) VALUES ('optimize');
INSERT INTO memory_episodes_fts (memory_episodes_fts) VALUES ('optimize');
