"""`opsmemory memory export|forget`: the user controls of App Home, for operators.

`forget` without `--yes` changes nothing: it prints what would be deleted and exits 1 (`--dry-run`
does the same and exits 0). A subject with nothing stored, or an item the subject does not own,
is an error (exit 1) in every mode, dry runs included.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.settings import Settings
from memory.errors import NotFound

_SECTIONS = ("notes", "profile_facts", "thread_messages", "episodes")
_KINDS = "note, profile, message or episode"


class NothingStored(NotFound):
    """No row of any kind names this subject."""

    def __init__(self, subject_id: str, *, doing: str) -> None:
        self.subject_id = subject_id
        super().__init__(
            f"Nothing is stored about {subject_id}{doing}; check the subject id "
            "(team id/user id, like T0123ABC/U0123ABC)."
        )


class NotTheirItem(NotFound):
    """The item id is malformed, or names no row this subject owns."""

    def __init__(self, subject_id: str, item_id: str) -> None:
        self.subject_id, self.item_id = subject_id, item_id
        super().__init__(
            f"{subject_id} has no item {item_id[:40]}; item ids look like note:12 ({_KINDS}), "
            f"and `opsmemory memory export --subject {subject_id}` lists theirs."
        )


def add_memory_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "memory",
        help="export or forget what opsmemory stores about a person",
        description="Operator access to user controls: export a subject's memory as JSON, or "
        "forget one item or everything about them (FTS rows and vectors included).",
    )
    memory_sub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    export = memory_sub.add_parser(
        "export",
        help="print everything stored about a subject as JSON",
        description="Prints one JSON object with the subject's notes, profile facts (with "
        "history), captured messages, episodes they took part in and audit rows. A subject "
        "with nothing stored is an error (exit 1).",
    )
    export.add_argument("--subject", required=True, help="subject id, e.g. T0123ABC/U0123ABC")
    export.set_defaults(handler=run_memory)
    forget = memory_sub.add_parser(
        "forget",
        help="delete one item or everything about a subject",
        description="Deletes one item (--item note:12, profile:3, message:9, episode:4) or, "
        "without --item, everything about the subject. Prints the receipt (counts per table). "
        "Without --yes, only shows what would be deleted (exit 1; with --dry-run, on stdout and exit 0). "
        "An unknown subject or item is an error (exit 1), dry runs included.",
    )
    forget.add_argument("--subject", required=True, help="subject id, e.g. T0123ABC/U0123ABC")
    forget.add_argument("--item", help="one item id; omit to forget everything")
    mode = forget.add_mutually_exclusive_group()
    mode.add_argument("--yes", action="store_true", help="really delete (no confirmation)")
    mode.add_argument(
        "--dry-run", action="store_true", help="only show what would be deleted; exit 0"
    )
    forget.set_defaults(handler=run_memory)


async def run_memory(args: argparse.Namespace, settings: Settings) -> int:
    from memory.controls.controls import Controls, check_subject_id
    from memory.store.db import Database

    subject = check_subject_id(args.subject)
    db = await Database.open(settings.database_path)
    try:
        controls = Controls(db)  # episodes that lose content are queued for the bot's roll-up
        export = await controls.export(subject)
        if args.memory_command == "export":
            if _is_empty(export, ("subject", *_SECTIONS, "incidents_opened", "audit")):
                raise NothingStored(subject, doing="")
            print(json.dumps(export, ensure_ascii=False, indent=2))
            return 0
        if args.item:
            if not _owns(export, args.item):
                raise NotTheirItem(subject, args.item)
        elif _is_empty(export, ("subject", *_SECTIONS)):
            raise NothingStored(subject, doing=" to forget")
        if not args.yes:
            what = args.item or _summary(export)
            if args.dry_run:
                print(f"Would forget {what} for {subject}.")
                return 0
            print(
                f"Would forget {what} for {subject}; re-run with --yes to delete.", file=sys.stderr
            )
            return 1
        if args.item:
            receipt = await controls.forget_item(subject, args.item)
        else:
            receipt = await controls.forget_everything(subject)
        print(json.dumps(receipt.as_dict()))
        return 0
    finally:
        await db.close()


def _is_empty(export: dict[str, Any], keys: tuple[str, ...]) -> bool:
    return not any(export.get(key) for key in keys)


def _owns(export: dict[str, Any], item_id: str) -> bool:
    """True when `forget_item` would delete it: the subject's own row (an episode they started,
    not one they only took part in), by the same `kind:id` the export lists."""
    for section in _SECTIONS:
        for row in export[section]:
            if row["id"] == item_id:
                return section != "episodes" or bool(row["started_by_subject"])
    return False


def _summary(export: dict[str, Any]) -> str:
    parts = [f"{len(export[s])} {s.replace('_', ' ')}" for s in _SECTIONS]
    return "everything (" + ", ".join(parts) + ")"
