"""opsmemory: skills package."""
