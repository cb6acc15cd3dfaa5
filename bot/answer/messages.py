"""Every sentence the bot says, in one place, so wording is reviewed (and translated) together."""

from __future__ import annotations

USAGE = """Usage: `/incident <subcommand> [arguments]`
• `open [sev1|sev2|sev3|sev4] <title>` open an incident for this channel
• `note <text>` · `decision <text>` · `action <text>` add to this incident's memory
• `recall <question>` what memory says (only you see it)
• `status [open|mitigated|resolved]` show or set this incident's status
• `runbook <slug or words>` look up a runbook section
• `remember <fact about you>` · `forget <item id>` · `whoami` your own memory
• `help` this message"""

NOT_AN_INCIDENT_CHANNEL = (
    "This channel is not an incident channel, so I have no incident memory to use here. "
    "Run `/incident open <title>` to make it one, or ask me in an incident channel "
    "(names starting with `inc-`). `/incident help` lists everything I can do."
)
NOT_IN_AN_INCIDENT = "This channel has no incident yet; run `/incident open <title>` first."
UNVERIFIED_LLM_ANSWER = (
    "The generated answer cited a source it was not given, so the cited answer is shown instead."
)
LLM_UNAVAILABLE = "The language model did not answer in time, so the cited answer is shown."
REMEMBERED = "Saved to memory by <@{user}>; it will be recalled in this channel."
ALREADY_SAVED = "This message is already saved to memory; nothing was added."
THANKS_FEEDBACK = "Thanks, noted that this answer was not helpful."
NOTE_SAVED = "Saved {kind} {id} to {incident}."
FACT_SAVED = "Remembered about you (item {id}). `/incident whoami` shows everything."
FORGOTTEN = "Forgot item {id}."
FORGOT_EVERYTHING = "Forgot everything about you: {counts}."
NOTHING_REMEMBERED = "I remember nothing about you yet."
INCIDENT_OPENED = "Opened {id} ({severity}): {title}"
STATUS = "{id} is {status} (opened {opened})."
RUNBOOK_NOT_FOUND = "No runbook matches that; try other words or a slug like `pod-crashloop`."
SAVE_MODAL_TITLE = "Save to incident memory"
EXPORT_PART = "Your opsmemory export, part {part} of {parts} (JSON; join the parts in order)."
APPROVAL_REQUESTED = "<@{user}> asks to {action} (suggested by {source}). An approver must approve."
APPROVED = "<@{user}> approved: {action}. Run it from your deploy tooling now."
REJECTED = "<@{user}> rejected: {action}."
APPROVAL_REFUSED = (
    "Only the approvers listed in OPSMEMORY_APPROVERS can approve production changes; "
    "ask one of them."
)
APPROVAL_ALREADY_DECIDED = "This request was already {status}."
ACTION_NAMES = {"rollback": "roll back", "scale_out": "scale out", "restart": "restart"}


def internal_error(ref: str) -> str:
    return (
        f"Something went wrong on our side (ref {ref}). Try again; if it persists, tell your admin."
    )


def token_cap_reached(cap: int) -> str:
    return (
        f"This thread has used its {cap:,}-token budget for generated answers, so only the cited "
        "answer is shown. Start a new thread to get generated answers again."
    )


def missing_credentials(missing: list[str]) -> str:
    names = ", ".join(missing)
    return (
        f"Cannot connect to Slack: {names} not set. Set them from your Slack app's settings "
        "(see manifest.yml), or try the bot locally without Slack: `python -m bench.slack` "
        "drives it against the built-in Slack stand-in."
    )


NOTHING_SIMILAR = "No similar past incidents found."
NOTHING_IN_MEMORY_HERE = "Memory has nothing on that."
