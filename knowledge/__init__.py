"""opsmemory: knowledge package."""
