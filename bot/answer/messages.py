"""Every sentence the bot says, in one place, so wording is reviewed (and translated) together."""

from __future__ import annotations

USAGE = """Usage: `/incident <subcommand> [arguments]`
• `open [sev1|sev2|sev3|sev4] <title>` open an incident for this channel
• `note <text>` · `decision <text>` · `action <text>` add to this incident's memory
• `recall <question>` what memory says (only you see it)
• `status [open|mitigated|resolved]` show or set this incident's status
• `runbook <slug or words>` look up a runbook section
• `run <action> key=value …` request a catalogue action; approvers decide it in the channel
• `remember <fact about you>` · `forget <item id>` · `whoami` your own memory
• `help` this message"""

NOT_AN_INCIDENT_CHANNEL = (
    "This channel is not an incident channel, so I answer no questions here. "
    "`/incident recall <words>` searches the incidents you can see from any channel; "
    "`/incident open <title>` makes this one an incident channel, or ask me in an incident "
    "channel (names starting with `inc-`). `/incident help` lists everything I can do."
)
NOT_IN_AN_INCIDENT = "This channel has no incident yet; run `/incident open <title>` first."
GUARDED_NOT_A_MEMBER = "You are not a member of <#{channel}> any more; nothing was requested."
GUARDED_ACTION_GONE = (
    "`{name}` is no longer in the action catalogue; nothing was requested. Actions: {names}."
)
UNVERIFIED_LLM_ANSWER = (
    "The generated answer cited a source it was not given, so the cited answer is shown instead."
)
LLM_UNAVAILABLE = "The language model did not answer in time, so the cited answer is shown."
REMEMBERED = "Saved to memory by <@{user}>; it will be recalled in this channel."
REMEMBERED_SOURCES = (
    "Saved to memory by <@{user}>: the {count} memory item(s) this answer showed; "
    "it will be recalled in this channel."
)
NOTHING_TO_REMEMBER = (
    "This answer showed nothing from memory or the runbooks that can be saved for the channel "
    "(personal memory is never saved for others), so nothing was added."
)
CATCH_UP = "*Where this thread stands*, from what was said in it:"
CATCH_UP_CHANNEL = "*Where this channel stands*, from what was said in it:"
PERSONAL_ADDENDUM = "Only you can see this: your own memory on this question"
ALREADY_SAVED = "This message is already saved to memory; nothing was added."
THANKS_FEEDBACK = "Thanks, noted that this answer was not helpful."
NOTE_SAVED = "Saved {kind} {id} to {incident}."
FACT_SAVED = "Remembered about you (item {id}). `/incident whoami` shows everything."
FORGOTTEN = "Forgot item {id}."
FORGOT_EVERYTHING = "Forgot everything about you: {counts}."
NOTHING_REMEMBERED = "I remember nothing about you yet."
INCIDENT_OPENED = "Opened {id} ({severity}): {title}"
STATUS = "{id} is {status} (opened {opened})."
SAVE_MODAL_TITLE = "Save to incident memory"
EXPORT_PART = "Your opsmemory export, part {part} of {parts} (JSON; join the parts in order)."


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
        "(see manifest.yml), or try the bot locally without Slack: `opsmemory sandbox` "
        "opens a local Slack-like page in your browser."
    )


# Guarded actions (issue 17).
GUARDED_UNKNOWN_REQUEST = (
    "That action request does not exist here; request it again with `/incident run`."
)
GUARDED_UNBALANCED_QUOTES = (
    'A quote in the parameters is not closed; write values like `reason="bad deploy"`.'
)
GUARDED_NAME_AN_ACTION = (
    "Name the action to run: `/incident run <action> key=value …`. Actions: {names}."
)
GUARDED_UNKNOWN_ACTION = "`{name}` is not in the action catalogue. Actions: {names}."
GUARDED_NOT_KEY_VALUE = "`{word}` is not `key=value`. Usage: `{usage}`"
GUARDED_UNKNOWN_PARAM = "`{key}` is not a parameter of this action. Usage: `{usage}`"
GUARDED_BAD_VALUE = "`{key}` {problem}. Usage: `{usage}`"
GUARDED_MISSING_PARAMS = "Missing {keys}; nothing is filled in for you. Usage: `{usage}`"
GUARDED_SECRET_PARAM = (
    "The value of `{key}` looks like a secret or personal data, which requests never store; "
    "nothing was requested."
)
GUARDED_INCIDENT_RESOLVED = (
    "This incident is resolved, and `{action}` may not run on a resolved incident; "
    "reopen it with `/incident status open` first. Nothing was requested."
)
GUARDED_NEVER_APPROVABLE = (
    "`{action}` needs {needed} approval(s) from someone other than you, and only {eligible} "
    "other approver(s) exist, so this request could never be approved. Nothing was requested; "
    "ask an admin to add approvers in the action catalogue."
)
GUARDED_NOT_APPROVER = (
    "You cannot {verb} `{action}`: only its approvers can decide it ({who}). Nothing changed."
)
GUARDED_OWN_REQUEST = (
    "You requested this action, so someone else on its approver list must approve it. "
    "You may still deny it."
)
GUARDED_ALREADY_DECIDED = "You already decided this request; nothing changed."
GUARDED_CLOSED = "This request is already closed ({state}); nothing changed."
GUARDED_EXPIRED = "This request expired at {at} and can no longer be decided; request it again."
GUARDED_INTERRUPTED = (
    "opsmemory restarted while this ran, so the outcome is unknown; it will not be re-run. "
    "Check the target before requesting it again."
)
GUARDED_DUPLICATE_REQUEST = (
    "This request was already made (request #{id}); nothing new was requested."
)
GUARDED_NO_CATALOGUE = (
    "No actions are configured: set OPSMEMORY_ACTIONS_FILE to an action catalogue "
    "(see actions.example.yml)."
)
GUARDED_REQUESTED_EPHEMERAL = (
    "Requested #{id}: `{action}`; its approvers decide it on its message, posted here next."
)
GUARDED_POST_DELAYED = (
    "Request #{id} (`{action}`) is stored, but Slack did not confirm its message with Approve "
    "and Deny ({error}). It is checked and, if missing, posted again every minute until it "
    "expires; nothing runs before it is approved."
)
GUARDED_EXPIRED_UNPOSTED = (
    "Request #{id} (`{action}`) expired before Slack took its message, so nobody could approve "
    "it and nothing ran. Run `/incident run` again if it is still needed."
)


RUNBOOK_MORE_SECTIONS = "Also in this runbook:"
RUNBOOK_SEE_ALSO = "See also:"
RUNBOOKS_NONE = (
    "There are no runbooks to search here; ask your admin to set OPSMEMORY_RUNBOOKS_DIR."
)


def runbook_no_match(query: str, closest: list[str]) -> str:
    """`query` is shown escaped by the caller; `closest` are real slugs of the corpus."""
    tail = f", or look one up by slug: {', '.join(f'`{s}`' for s in closest)}" if closest else ""
    return f"No runbook matches “{query}”. Try other words{tail}."


def unknown_runbook(slug: str, closest: list[str], total: int) -> str:
    if closest:
        return f"There is no runbook `{slug}`. Did you mean {', '.join(f'`{s}`' for s in closest)}?"
    return (
        f"There is no runbook `{slug}` among the {total:,} runbooks; "
        "`/incident runbook <words>` searches them."
    )


NOTHING_SIMILAR = "No similar past incidents found."
NOTHING_IN_MEMORY_HERE = "Memory has nothing on that."
NOTHING_YOURS = (
    "No open action item of this incident, or of the recent ones, names you as its owner."
)
NOTHING_FOUND = "I found nothing in the runbooks or in memory that answers this."
ONLY_YOURS = "What I have on this is your own memory: I sent it to you alone."
