"""Guarded actions: a catalogue of production changes, requested in an incident thread, approved
by the right people, executed exactly once (enforced by the database) and audited."""
