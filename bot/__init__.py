"""The Slack edge: Bolt listeners, answers and their Block Kit, the CLI, settings, and the runtime
that builds and serves it all (`app.build_app`)."""
