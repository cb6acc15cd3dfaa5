-- The first approvals table (fixed actions, one approver, no audit) was replaced by the guarded
-- requests of 0012 and nothing reads or writes it any more. Dropped, so an old database keeps no
-- requester ids in a table that forget-me and export no longer visit.
DROP TABLE IF EXISTS bot_approvals;
