"""The bot's own bookkeeping of Slack deliveries: exactly-once events and answers (`dedupe`),
messages saved to memory once (`saves`), answer feedback (`feedback`); their SQL is in memory/store."""
