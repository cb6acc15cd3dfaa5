"""opsmemory: memory package."""
