"""The local sandbox: the bot, the Slack stand-in and a browser page in one process, so anyone
can see opsmemory answer before creating a Slack app (`opsmemory sandbox`)."""
