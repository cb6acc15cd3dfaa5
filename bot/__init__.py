"""opsmemory: bot package."""
