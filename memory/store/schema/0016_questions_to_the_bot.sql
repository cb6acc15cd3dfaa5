-- A captured message that asks the bot something is kept (the thread reads in order, and an edit
-- may turn it into evidence) but is not part of what happened: roll-ups leave it out, and a thread
-- of nothing but questions to the bot is not an episode.
ALTER TABLE memory_thread_messages
    ADD COLUMN asks_bot INTEGER NOT NULL DEFAULT 0 CHECK (asks_bot IN (0, 1));
