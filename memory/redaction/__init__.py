"""Redaction before every write, failing closed: Presidio over a blank spaCy pipeline (offline)
plus our secret recognizers. `memory.redaction.redactor.Redactor` is the entry point."""
