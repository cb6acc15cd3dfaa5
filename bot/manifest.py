"""What manifest.yml grants the bot, as code: the image ships without manifest.yml, so `doctor`
compares the token's scopes with this list (tests/bot/test_doctor.py keeps the two in step)."""

from __future__ import annotations

#: oauth_config.scopes.bot in manifest.yml, in the same order.
BOT_SCOPES: tuple[str, ...] = (
    "app_mentions:read",
    "channels:history",
    "channels:read",
    "chat:write",
    "commands",
    "groups:history",
    "groups:read",
    "im:write",
    "reactions:write",
    "usergroups:read",
    "users:read",
)
