"""Slack surfaces, one module each (manifest entry → listener module is a one-step lookup)."""
