"""`opsmemory memory export|forget`: the user controls of App Home, for operators.

`forget` without `--yes` changes nothing: it prints what would be deleted and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys

from bot.settings import Settings

_SECTIONS = ("notes", "profile_facts", "thread_messages", "episodes")


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
        "history), captured messages, episodes they took part in and audit rows.",
    )
    export.add_argument("--subject", required=True, help="subject id, e.g. T0123ABC/U0123ABC")
    export.set_defaults(handler=run_memory)
    forget = memory_sub.add_parser(
        "forget",
        help="delete one item or everything about a subject",
        description="Deletes one item (--item note:12, profile:3, message:9, episode:4) or, "
        "without --item, everything about the subject. Prints the receipt (counts per table). "
        "Without --yes, only shows what would be deleted.",
    )
    forget.add_argument("--subject", required=True, help="subject id, e.g. T0123ABC/U0123ABC")
    forget.add_argument("--item", help="one item id; omit to forget everything")
    forget.add_argument("--yes", action="store_true", help="really delete (no confirmation)")
    forget.set_defaults(handler=run_memory)


async def run_memory(args: argparse.Namespace, settings: Settings) -> int:
    from memory.controls.controls import Controls, check_subject_id
    from memory.store.db import Database

    subject = check_subject_id(args.subject)
    db = await Database.open(settings.database_path)
    try:
        controls = Controls(db)  # episodes that lose content are queued for the bot's roll-up
        if args.memory_command == "export":
            print(json.dumps(await controls.export(subject), ensure_ascii=False, indent=2))
            return 0
        if not args.yes:
            what = args.item or _summary(await controls.export(subject))
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


def _summary(export: dict[str, object]) -> str:
    parts = [f"{len(export[s])} {s.replace('_', ' ')}" for s in _SECTIONS]  # type: ignore[arg-type]
    return "everything (" + ", ".join(parts) + ")"
