"""The stand-in workspace saved as JSON beside the bot's database, so a restarted sandbox shows
the same channels and messages the bot remembers."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
from pathlib import Path
from typing import Any

from bot.standin.workspace import Channel, Ephemeral, Message, User, Workspace

FILE = "workspace.json"


def dump(ws: Workspace) -> dict[str, Any]:
    return {
        "users": [dataclasses.asdict(u) for u in ws.users.values()],
        "channels": [dataclasses.asdict(c) for c in ws.channels.values()],
        "ephemerals": [dataclasses.asdict(e) for e in ws.ephemerals],
        "home_views": ws.home_views,
        "views": ws.views,
    }


def save(ws: Workspace, data_dir: Path) -> None:
    """Write atomically (a crash mid-write leaves the previous snapshot)."""
    path = data_dir / FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(dump(ws)))
    os.replace(tmp, path)


def load(ws: Workspace, data_dir: Path) -> bool:
    """Fill `ws` from the saved snapshot; False when there is none (a first start)."""
    path = data_dir / FILE
    if not path.exists():
        return False
    raw = json.loads(path.read_text())
    ws.users = {u["id"]: User(**u) for u in raw["users"]}
    ws.channels = {}
    for c in raw["channels"]:
        messages = [Message(**m) for m in c.pop("messages")]
        ws.channels[c["id"]] = Channel(**c, messages=messages)
    ws.ephemerals = [Ephemeral(**e) for e in raw["ephemerals"]]
    ws.home_views = raw["home_views"]
    ws.views = raw["views"]
    ws._id_counter = itertools.count(len(ws.views) + 1)  # view ids stay unique after restart
    return True
