"""The deterministic, extractive summary of a thread: what happened, decisions, root cause,
actions with owners, status, participants and duration.

No model needed: each sentence is sorted into decisions, root causes, mitigations or actions by
keyword cues (an explicit "decision:" / "action:" / "root cause:" prefix wins). Only text that was
already redacted at capture goes in, so the summary can hold nothing capture did not allow.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from memory.clock import ts_to_datetime
from memory.episodes.done import carries_out, done_keys, what_was_done
from memory.episodes.statements import (
    Statement,
    claims_work,
    finishes_sentence,
    hands_over,
    list_marker,
    names_an_owner,
    points_back,
    strip_label,
    without_correction_cue,
)
from memory.episodes.statements import classify as statement_of
from memory.episodes.topic import overlap, shared_topic
from memory.recall.outcomes import reports_outcome
from memory.subjects import is_app_subject
from memory.text import (
    item_references,
    shared_item_references,
    stems,
    without_item_references,
)

SECTIONS: tuple[str, ...] = ("decisions", "root_causes", "mitigations", "actions")
LABELS = {
    "decisions": "Decisions",
    "root_causes": "Root cause",
    "mitigations": "Mitigations",
    "actions": "Actions",
}
MAX_LINES_PER_SECTION = 6
MAX_LINE_CHARS = 280
MAX_TITLE_CHARS = 90

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
#: How alerting apps mark an alert's state at the start of its title: "[FIRING:1]", "[RESOLVED]".
_ALERT_STATE = re.compile(
    r"^\s*\[(?P<state>firing|resolved|ok|alert|triggered|recovered)(?::\d+)?\]\s*", re.I
)
_CLEARED = frozenset({"resolved", "ok", "recovered"})


class Line(Protocol):
    """What the summariser needs from a captured message."""

    @property
    def ts(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def author_subject_id(self) -> str: ...


@dataclass(frozen=True)
class Summary:
    title: str
    first_report: str
    sections: dict[str, list[str]]
    participants: list[str]
    started_at: datetime
    ended_at: datetime
    text: str
    root_cause: str | None = None
    status: str | None = None
    participant_names: tuple[str, ...] = ()

    @property
    def duration(self) -> str:
        return duration(self.started_at, self.ended_at)


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def duration(start: datetime, end: datetime) -> str:
    """'2h 35m', '40m', 'under a minute'."""
    minutes = int((end - start).total_seconds() // 60)
    if minutes < 1:
        return "under a minute"
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    parts = [f"{days}d"] if days else []
    parts += [f"{hours}h"] if hours else []
    parts += [f"{mins}m"] if mins and not days else []
    return " ".join(parts)


def _as_reported(first: Line) -> str:
    """What the thread's first message reports. An app's alert loses its state marker; one the
    app has since edited to resolved says what fired (its title) and that it cleared, not
    "back to normal" as if that were what happened (the firing text is gone with the edit)."""
    if not is_app_subject(first.author_subject_id):
        return first.text
    marker = _ALERT_STATE.match(first.text)
    if marker is None:
        return first.text
    rest = first.text[marker.end() :].strip()
    if marker["state"].lower() not in _CLEARED or not rest:
        return rest or first.text
    return f"alert {rest.splitlines()[0].strip()} fired (since resolved)"


def summarise(messages: Sequence[Line], names: Mapping[str, str] | None = None) -> Summary:
    """Summarise a non-empty, ts-ordered thread the way a person would write it up.

    Each sentence is read as one statement (`memory.episodes.statements`): what happened is the
    first report; decisions, actions with their owners and mitigations are listed; the root
    cause and the current status are the latest said (a later correction of the root cause
    replaces it). Everything is quoted from the redacted thread; nothing is invented.
    """
    names = names or {}
    first = messages[0]
    sections: dict[str, list[str]] = {name: [] for name in SECTIONS}
    root_cause: str | None = None
    status: str | None = None
    said_before: list[Statement] = []  # every statement so far: what a correction may be about
    severity: str | None = None  # the last severity people said ("sev1, opening bridge")
    for message in messages:
        if is_app_subject(message.author_subject_id):
            continue  # an alert states no decision, fix or status: what happened at most
        severity = severity_said(message.text) or severity
        author = names.get(message.author_subject_id)
        stated_status = False  # a status said in this message: its plain talk after goes with it
        for sentence in _sentences(message.text):
            if not sentence.strip():
                continue
            said = statement_of(sentence, author=author)
            if stated_status and status and _tells_how_it_went(said):
                # "resolved. DNS errors lasted 13 minutes (08:01-08:14)": one status, as said
                status = _clip(f"{status} {said.text}", MAX_LINE_CHARS)
                continue
            stated_status = False
            earlier = len(said_before)
            said_before.append(said)
            line = _clip(said.text, MAX_LINE_CHARS)
            if (
                _mark_done(said.text, line, sections["actions"])
                or (said.kind in _REPORTS and _mark_carried_out(said, line, sections))
            ) and said.kind in _DONE_ONLY:
                continue  # a cause, decision or status said with it is still read below
            if said.kind == "action" and _takes_over(said, line, sections["actions"], author):
                continue
            if said.kind == "correction":
                root_cause = _apply_correction(
                    said, line, root_cause, sections, author, said_before[:earlier]
                )
            if said.kind == "root_cause":
                root_cause = _ROOT_CAUSE_IS.sub("", line, count=1) or line
            elif said.kind == "status" or (
                # what was done ("failed over to db-4"), or what came of it ("5xx back to 0"),
                # is where things stand until a status says more
                (said.kind == "mitigation" or (said.kind == "note" and reports_outcome(said.text)))
                and not (status and _later_status(status))
            ):
                status = line
                stated_status = said.kind == "status"
            section = _SECTION_OF.get(said.kind)
            if section is None or (said.kind == "action" and _talk_about_listed(said, sections)):
                continue
            if (
                said.kind == "action"
                and said.owner
                and not _names(line, said.owner)
                and not _opens_with(line, said.owner)
            ):
                line = f"{said.owner}: {line}"  # "AI-1 fsync alert — @priya": owner first
            bucket = sections[section]
            if line not in bucket:
                bucket.append(line)
                del bucket[:-MAX_LINES_PER_SECTION]  # the latest few
    participants = [
        p for p in dict.fromkeys(m.author_subject_id for m in messages) if not is_app_subject(p)
    ]
    shown = tuple(names.get(p) or p.partition("/")[2] or p for p in participants)
    opening = _as_reported(first)
    first_report = _clip(strip_label(opening), MAX_LINE_CHARS)
    title = _clip(opening.strip().splitlines()[0] if opening.strip() else "", MAX_TITLE_CHARS)
    if opening is not first.text:  # an app's alert: its title without the state marker
        title = _clip(_ALERT_STATE.sub("", first.text.strip().splitlines()[0]), MAX_TITLE_CHARS)
    started, ended = ts_to_datetime(first.ts), ts_to_datetime(messages[-1].ts)
    body = [f"What happened: {first_report}"]
    if root_cause:
        body.append(f"Root cause: {root_cause}")
    if sections["decisions"]:
        body.append("Decisions: " + " | ".join(sections["decisions"]))
    if sections["mitigations"]:
        body.append("Mitigations: " + " | ".join(sections["mitigations"]))
    if sections["actions"]:
        body.append("Actions: " + " | ".join(sections["actions"]))
    body.append(f"Status: {status or 'no status given in the thread'}")
    body.append(
        f"Participants: {', '.join(shown) or 'none yet'} · {duration(started, ended)} "
        f"({started:%Y-%m-%d %H:%M} to {ended:%H:%M} UTC, {len(messages)} messages)"
    )
    if root_cause:
        sections["root_causes"] = [root_cause]
    if status:
        sections["status"] = [status]
    if severity:
        sections["severity"] = [severity]
    return Summary(
        title=title or "Thread",
        first_report=first_report,
        sections=sections,
        participants=participants,
        started_at=started,
        ended_at=ended,
        text="\n".join(body),
        root_cause=root_cause,
        status=status,
        participant_names=shown,
    )


#: A severity as people say it in a thread ("sev1, opening bridge", "SEV-2", "sev 2"), not one
#: denied ("not a sev1"), another's ("last week's sev1") or asked about ("is this a sev1?").
SEVERITY_SAID = re.compile(r"\bsev[ -]?([1-5])\b", re.I)
#: What makes the severity after it not this incident's: a denial, or another's ("last week's
#: sev1"; "it's sev1" and "that's sev2" are this one's).
_NOT_THIS_SEVERITY = re.compile(
    r"(?:\b(?:not|no|never|isn'?t|wasn'?t)(?:\s+an?)?"
    r"|\b(?!(?:it|that|this|what|here|there|who|he|she|let)['’]s)\w+['’]s)\s+$",
    re.I,
)
#: How far before a severity its denial or owner is read (bounded: a long message stays linear).
_BEFORE_SEVERITY = 24


def severity_said(text: str) -> str | None:
    """The last severity a message states ("sev1"), read from its sentences that ask nothing."""
    said = None
    for sentence in _sentences(text):
        if sentence.rstrip().endswith("?"):
            continue
        for found in SEVERITY_SAID.finditer(sentence):
            before = sentence[max(0, found.start() - _BEFORE_SEVERITY) : found.start()]
            if not _NOT_THIS_SEVERITY.search(before):
                said = f"sev{found.group(1)}"
    return said


def _tells_how_it_went(said: Statement) -> bool:
    """Whether plain talk after a status says how it went in figures ("DNS errors lasted 13
    minutes", "~37 min of errors"), not a question or a thank-you said with it."""
    text = said.text.rstrip()
    return said.kind == "note" and not text.endswith("?") and any(c.isdigit() for c in text)


#: Kinds a done report adds nothing to beyond the item it closes.
_DONE_ONLY = ("action", "note", "correction")

_SECTION_OF = {
    "decision": "decisions",
    "action": "actions",
    "mitigation": "mitigations",
    "correction": None,
}


# "root cause is the bulk import api…" reads "Root cause: root cause is …" under its heading.
_ROOT_CAUSE_IS = re.compile(
    r"^\W*(?:so,?\s+|ok,?\s+)?(?:the\s+)?(?:root[ -]?cause|rca)\s+(?:is|was|seems to be"
    r"|looks like)\s+(?:that\s+)?",
    re.I,
)


def _opens_with(line: str, person: str) -> bool:
    """Whether the line opens with whom it is for ("TODO @dev: …", "@kim write …", "AI-2: @joe
    add …")."""
    head = (
        r"^\W*(?:(?:todo|action(?:[ -]?items?)?|follow[ -]?up|[a-z]{1,10}-\d{1,6}|#\d{1,7})\W*)?@?"
    )
    return re.match(rf"{head}{re.escape(person)}(?!\w)", line, re.I) is not None


def _names(line: str, person: str) -> bool:
    """Whether the line names the person as a whole word ("owner Ola"; "Edge" is not "Ed")."""
    return re.search(rf"(?<![\w@]){re.escape(person)}(?!\w)", line, re.I) is not None


def _sentences(text: str) -> list[str]:
    """A message's sentences, one line at a time; a field after a full stop ("owner Raj") stays
    with the sentence it finishes, and so does one that only says what it is ("… rebalance
    storm. thats the root cause imo")."""
    out: list[str] = []
    for line in text.splitlines():
        # A list number ("1. …") opens the line's first sentence, it ends none.
        marker = list_marker(line)
        pieces = [p for p in _SENTENCE.split(line[len(marker) :]) if p.strip()]
        if pieces:
            pieces[0] = marker + pieces[0]
        for i, piece in enumerate(pieces):
            if i > 0 and (finishes_sentence(piece) or points_back(piece)):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
    return out


def _about(earlier: str, correction: str, *, words: int = 1) -> bool:
    """Whether a correction is about what it may correct: when both name items ("AI-1"), the
    same one; else `words` subject words in common (an item's key is no word: AI-1 is not
    AI-2 for sharing "ai")."""
    if shared_item_references(earlier, correction):
        return True
    if item_references(earlier) and item_references(correction):
        return False  # another item
    said = stems(without_item_references(correction))
    return len(stems(without_item_references(earlier)) & said) >= words


def _mark_done(text: str, line: str, actions: list[str]) -> bool:
    """A message that says listed items are done ("AI-2 done, added to the wiki") is shown on
    each item it closes, "tom: AI-2 document … → done: AI-2 done, added to the wiki" (a later
    report replaces an earlier one), matched on the key the item line opens with, so "AI-3
    update the runbook once AI-2 lands" is not closed by "AI-2 done". False when it closes none."""
    keys = done_keys(text)
    marked = False
    for i, item in enumerate(actions):
        base = item.split(DONE_MARK)[0]
        if _leading_key(base) in keys:
            report = _clip(line, MAX_DONE_CHARS)
            actions[i] = (
                f"{_clip(base, MAX_LINE_CHARS - len(report) - len(DONE_MARK))}{DONE_MARK}{report}"
            )
            marked = True
    return marked


def _mark_carried_out(said: Statement, line: str, sections: dict[str, list[str]]) -> bool:
    """A message that reports doing what a listed action or decision said ("limit raised to
    200Mi" after "raise the node-local-dns limit to 200Mi") is shown on that item, the newest
    it carries out: "TODO @dev: raise … → done: limit raised to 200Mi". A decision is marked
    only by a plain note: a mitigation or status carrying it out is listed under its own
    heading already ("Rolled back; error rate back to normal"). False when none."""
    text = said.text
    for name in ("actions", "decisions") if said.kind == "note" else ("actions",):
        bucket = sections[name]
        for i in range(len(bucket) - 1, -1, -1):
            base = bucket[i].split(DONE_MARK)[0]
            if carries_out(base.split(" → ")[-1], text):
                report = _clip(what_was_done(line), MAX_DONE_CHARS)
                room = MAX_LINE_CHARS - len(report) - len(DONE_MARK)
                bucket[i] = f"{_clip(base, room)}{DONE_MARK}{report}"
                return True
    return False


#: Kinds a report of work done is said as ("limit raised to 200Mi", "done, cordoned …").
_REPORTS = ("note", "status", "mitigation")

DONE_MARK = " → done: "
#: Room kept for the done report on its item's line, so clipping never hides that it is done.
MAX_DONE_CHARS = 90


def _talk_about_listed(said: Statement, sections: dict[str, list[str]]) -> bool:
    """A line that only says a listed item will not get done soon ("I can't get to AI-1 this
    week"): no new item, and it must not take an action line in the digest. Anything else that
    mentions a listed key is kept: a new action said in passing costs more lost than a talk
    line listed ("TODO add a panel for AI-1"); a handover moves the item (a correction)."""
    keys = item_references(said.text, any_case=True)
    if not keys or said.owner or _opening_key(said.text) or names_an_owner(said.text):
        return False
    if not _WONT_GET_DONE.search(said.text) or _HANDED.search(said.text):
        return False
    listed = {_leading_key(item.split(DONE_MARK)[0]) for item in sections["actions"]}
    return keys <= listed


#: "I can't get to AI-1", "so AI-2 will slip", "won't make AI-3 this week", "unable to do AI-1".
_WONT_GET_DONE = re.compile(
    r"\b(?:can'?t|cannot|can not|won'?t|will not|unable to|not able to)\b|\bslip(?:s|ped|ping)?\b",
    re.I,
)
#: ... unless it gives the item to someone ("I can't take AI-1, over to Ana").
_HANDED = re.compile(r"\b(?:to|for) @?[A-Z][a-z]+\b|\b[A-Z][a-z]+ (?:has|takes|owns)\b|@\w")


def _leading_key(line: str) -> str | None:
    """The first item key an action line names ("tom: AI-3 update … once AI-2 lands": ai-3)."""
    keys = item_references(line, any_case=True)
    lowered = line.lower()
    found = [(lowered.find(k), k) for k in keys if k in lowered]
    return min(found)[1] if found else None


def _newest_first(bucket: list[str], correction: str) -> list[int]:
    """Where to look for what a correction replaces, newest first; an item whose line opens
    with a key the correction names comes before lines that only mention it ("yep, AI-1 is
    mine now" hands over "AI-1 fsync alert — @priya", not "I can't get to AI-1 this week")."""
    order = list(range(len(bucket) - 1, -1, -1))
    keys = item_references(correction, any_case=True)
    return sorted(order, key=lambda i: _opening_key(bucket[i]) not in keys)


#: An action line that is the item: its key first, after the owner the roll-up puts before it.
_OPENING_KEY = re.compile(r"^(?:[\w.-]{1,40}:\s+)?\W*((?:[a-z]{1,10}-\d{1,6}|#\d{1,7}))\b", re.I)


def _opening_key(line: str) -> str | None:
    """The key an action line opens with ("priya: AI-1 fsync alert": ai-1), None otherwise."""
    found = _OPENING_KEY.match(line)
    return found[1].lower() if found else None


#: Kinds the roll-up lists or states; a correction about anything else replaces none of them.
_LISTED_KINDS = ("decision", "action", "mitigation", "root_cause", "correction")

#: What a reply that takes work on says about any work: "sure, I'll take …" shares no subject.
_CLAIM_WORDS = stems("sure ok okay yes yep yeah take own pick grab handle do")


def _takes_over(said: Statement, line: str, actions: list[str], author: str | None) -> bool:
    """A reply that takes work on ("sure, I'll take the postmortem") hands over the newest
    listed action it shares a subject word with: "@kim write the postmortem → dev: sure, I'll
    take the postmortem", one item, not two owed. False when it names no listed item."""
    if not claims_work(said.text):
        return False
    for i in range(len(actions) - 1, -1, -1):
        base = actions[i].split(" → ")[0]
        if shared_topic(base, said.text) - _CLAIM_WORDS:
            who = f"{author}: " if author and not _names(line, author) else ""
            actions[i] = _clip(f"{base} → {who}{line}", MAX_LINE_CHARS)
            return True
    return False


def _said_most_about_elsewhere(text: str, earlier: Sequence[Statement]) -> int:
    """The most a correction says about an earlier statement the roll-up lists nowhere (a
    theory, a plain note): "scratch that theory, batch-etl uses TCP" is about the theory, not
    the decision to scale batch-etl to 0 that shares fewer of its words."""
    return max((overlap(s.text, text) for s in earlier if s.kind not in _LISTED_KINDS), default=0)


def _apply_correction(
    said: Statement,
    line: str,
    root_cause: str | None,
    sections: dict[str, list[str]],
    author: str | None,
    earlier: Sequence[Statement] = (),
) -> str | None:
    """A correction replaces what it is about: the root cause (one shared word: it follows the
    discussion of the cause) or a listed decision, mitigation or action (the same item, or two
    shared words), unless it says more about a statement the roll-up does not list (then it
    replaces nothing). A handover that names the item only by its key keeps what the item is:
    "AI-1: move the rebuild. owner Raj → ola: I'll take AI-1 over". Returns the root cause."""
    text = said.text
    line = without_correction_cue(line)  # the roll-up states what is true now
    elsewhere = _said_most_about_elsewhere(text, earlier)
    for name in ("actions", "decisions", "mitigations"):
        bucket = sections[name]
        for i in _newest_first(bucket, text if name == "actions" else ""):
            if _about(bucket[i], text, words=2) and overlap(bucket[i], text) >= elsewhere:
                owner = said.owner or author
                # A handover moves the item and keeps what it is: "@raj to add a forecast
                # alert by Friday → mia: handing the forecast alert over to @mia".
                if name == "actions" and (
                    shared_item_references(bucket[i], text) or hands_over(text)
                ):
                    who = f"{owner}: " if owner and not _names(line, owner) else ""
                    line = _clip(f"{bucket[i].split(' → ')[0]} → {who}{line}", MAX_LINE_CHARS)
                bucket[i] = line
                return root_cause
    if root_cause and _about(root_cause, text) and overlap(root_cause, text) >= elsewhere:
        return line
    # A handover of an item the roll-up does not list: who owns it now is still an action.
    if names_an_owner(text) and line not in sections["actions"]:
        sections["actions"].append(line)
        del sections["actions"][:-MAX_LINES_PER_SECTION]
    return root_cause


def _later_status(status: str) -> bool:
    """A status line that already says the incident moved on (resolved, recovered...)."""
    return bool(re.search(r"\b(resolved|recovered|all clear|back to normal)\b", status, re.I))
