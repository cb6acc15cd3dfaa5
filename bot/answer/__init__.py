"""The answer to a question, without Slack: composition from memory, runbooks and skills
(`compose`), the optional LLM step (`llm`), Block Kit rendering (`render`) and every sentence
the bot says (`messages`)."""
