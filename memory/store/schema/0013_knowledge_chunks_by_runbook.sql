-- A runbook's sections in document order: search reads every section of its top runbooks to cite
-- the one that answers the question (issue 15), without scanning every chunk.
CREATE INDEX knowledge_chunks_runbook ON knowledge_chunks (runbook_id, ordinal);
