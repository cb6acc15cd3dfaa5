"""Stand-ins for the services opsmemory talks to (Ollama, later Slack), shared by tests."""
