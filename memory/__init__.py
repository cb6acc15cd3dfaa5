"""opsmemory's memory domain: subjects, scopes, incidents, notes, recall, threads, episodes,
profiles, user controls, redaction and embedding, with every SQL statement in `memory.store`."""
