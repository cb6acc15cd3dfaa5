"""The digest post: one section per incident, nothing cut away, threads of no incident apart."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.scheduler import digest_parts
from memory.episodes.digest import Digest, DigestDecision, DigestIncident
from memory.episodes.model import Episode

NOW = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)


def _incident(n: int) -> DigestIncident:
    return DigestIncident(f"inc-{n}", f"checkout outage {n}", "sev2", "open", f"C{n}", NOW, None)


def _episode(n: int, incident: str | None, cause: str) -> Episode:
    sections = {
        "root_causes": [cause],
        "status": [f"status {n}: mitigated, watching error rates " + "x" * 120],
        "actions": [f"action {n}.{a}: owner files a ticket " + "y" * 120 for a in range(3)],
    }
    return Episode(
        f"episode:{n}", "T1", f"C{n}", False, f"{n}.0", incident, "T1/U1", f"thread {n}",
        "", None, sections, ("ann",), 9, NOW, NOW, NOW,
    )  # fmt: skip


def test_every_incident_gets_its_own_section_and_none_is_cut() -> None:
    """Four busy incidents used to overflow one 3,000-character section: the last ones vanished."""
    incidents = [_incident(n) for n in range(1, 5)]
    episodes = [_episode(n, f"inc-{n}", f"root cause {n}: " + "z" * 150) for n in range(1, 5)]
    decisions = [
        DigestDecision(f"decision {n}: roll back", f"C{n}", f"inc-{n}", "note") for n in range(1, 5)
    ]
    parts = digest_parts(Digest("T1", NOW, NOW, incidents, [], episodes, decisions))
    assert len(parts) == 5 and all(len(p) < 3000 for p in parts)
    for n, part in enumerate(parts[1:], start=1):
        assert part.startswith(f"• *inc-{n}* checkout outage {n}")
        assert f"root cause {n}:" in part and f"decision {n}: roll back" in part
        assert f"action {n}.2" in part


def test_threads_of_no_incident_keep_their_own_cause_and_status() -> None:
    episodes = [_episode(1, None, "bad config in A"), _episode(2, None, "expired cert in B")]
    parts = digest_parts(Digest("T1", NOW, NOW, [], [], episodes, []))
    (a,) = [p for p in parts if p.startswith("• thread 1")]
    (b,) = [p for p in parts if p.startswith("• thread 2")]
    assert "bad config in A" in a and "status 1" in a and "expired cert in B" not in a
    assert "expired cert in B" in b and "status 2" in b


def test_a_thread_status_under_an_open_incident_says_it_is_the_threads_word() -> None:
    """The scenario's digest read "sev3 · open" over "Status: resolved at 10:48": two states."""
    resolved = DigestIncident("inc-2", "db failover", "sev2", "resolved", "C2", NOW, NOW)
    episodes = [_episode(1, "inc-1", "pool exhausted"), _episode(2, "inc-2", "disk full")]
    parts = digest_parts(Digest("T1", NOW, NOW, [_incident(1)], [resolved], episodes, []))
    (still_open,) = [p for p in parts if p.startswith("• *inc-1*")]
    (closed,) = [p for p in parts if p.startswith("• *inc-2*")]
    assert " · open\n" in still_open and "Thread says: status 1: mitigated" in still_open
    assert "Status: status 2: mitigated" in closed and "Thread says" not in closed


def test_a_thread_that_says_resolved_under_an_open_incident_says_how_to_set_it() -> None:
    """The kafka-lag digest read "· open" over "Thread says: resolved 10:31.": which is it? The
    line now says the record is behind and the command that sets it."""
    episode = _episode(1, "inc-1", "pool exhausted")
    episode.sections["status"] = ["resolved 10:31."]
    (part,) = [p for p in digest_parts(Digest("T1", NOW, NOW, [_incident(1)], [], [episode], []))
               if p.startswith("• *inc-1*")]  # fmt: skip
    assert "Thread says: resolved 10:31. (still open here: `/incident status resolved`" in part
    # a record that agrees, or a thread that says no state, gets no hint
    resolved = DigestIncident("inc-1", "checkout outage 1", "sev2", "resolved", "C1", NOW, NOW)
    (agrees,) = [p for p in digest_parts(Digest("T1", NOW, NOW, [], [resolved], [episode], []))
                 if p.startswith("• *inc-1*")]  # fmt: skip
    assert "/incident status" not in agrees
    # a record ahead of the thread (resolved; the thread last said mitigated) needs nothing
    episode.sections["status"] = ["mitigated 10:20, watching"]
    (ahead,) = [p for p in digest_parts(Digest("T1", NOW, NOW, [], [resolved], [episode], []))
                if p.startswith("• *inc-1*")]  # fmt: skip
    assert "/incident status" not in ahead
    episode.sections["status"] = ["status: still investigating, next update 11:00"]
    (talk,) = [p for p in digest_parts(Digest("T1", NOW, NOW, [_incident(1)], [], [episode], []))
               if p.startswith("• *inc-1*")]  # fmt: skip
    assert "/incident status" not in talk


def test_open_items_come_first_and_a_done_one_keeps_its_done_mark() -> None:
    """A done item took one of the three action lines and its clip cut off "done"."""
    episode = _episode(1, "inc-1", "pool exhausted")
    done = "tom: AI-1 document the pool " + "x" * 150 + " → done: AI-1 done, in the wiki"
    episode.sections["actions"] = [done, *(f"ana: AI-{n} item {n}" for n in (2, 3, 4))]
    (part,) = [
        p for p in digest_parts(Digest("T1", NOW, NOW, [], [], [episode], [])) if "inc-1" in p
    ]
    lines = [x for x in part.splitlines() if "Action:" in x]
    assert [x.split("Action: ")[1] for x in lines] == [
        "ana: AI-2 item 2",
        "ana: AI-3 item 3",
        "ana: AI-4 item 4",
    ]
    assert "…and 1 more action" in part
    episode.sections["actions"] = [done]
    (part,) = [
        p for p in digest_parts(Digest("T1", NOW, NOW, [], [], [episode], [])) if "inc-1" in p
    ]
    assert part.rstrip().endswith("→ done") and "tom: AI-1 document the pool" in part


def test_an_incident_registered_from_its_channel_shows_the_severity_its_thread_said() -> None:
    """#inc-601-checkout-pg-conns was never declared: its "sev3" was a default nobody chose,
    while the thread said "sev1, opening bridge". The digest shows what the thread said, marked
    so; with nothing said, that none is set. A declared incident keeps the severity it was
    given, whatever its thread says."""
    from dataclasses import replace

    recognised = replace(_incident(1), severity="sev3", severity_set=False)
    said = _episode(1, "inc-1", "pool exhausted")
    said.sections["severity"] = ["sev1"]
    (part,) = digest_parts(Digest("T1", NOW, NOW, [recognised], [], [said], []))[1:]
    assert part.startswith("• *inc-1* checkout outage 1 · sev1 (said in the thread) · open"), part
    (quiet,) = digest_parts(Digest("T1", NOW, NOW, [recognised], [], [], []))[1:]
    assert "· severity not set ·" in quiet and "sev3" not in quiet
    (declared,) = digest_parts(Digest("T1", NOW, NOW, [_incident(1)], [], [said], []))[1:]
    assert declared.startswith("• *inc-1* checkout outage 1 · sev2 · open"), declared


def test_a_decision_quoted_by_the_roll_up_and_its_whole_message_is_said_once() -> None:
    """The roll-up quotes "we keep v3.8.0 but pre-warm the cache"; the decision note is the
    message it was said in ("That fits the timing. Decision: we keep v3.8.0 …")."""
    quoted = "we keep v3.8.0 but pre-warm the cache with the top 50k keys"
    decisions = [
        DigestDecision(quoted, "C1", "inc-1", "episode"),
        DigestDecision(f"That fits the timing. Decision: {quoted}", "C1", "inc-1", "note"),
        DigestDecision("roll back search to v2", "C1", "inc-1", "note"),
    ]
    parts = digest_parts(Digest("T1", NOW, NOW, [_incident(1)], [], [], decisions))
    (part,) = parts[1:]
    assert part.count("pre-warm the cache") == 1, part
    assert "roll back search to v2" in part


def test_decisions_that_only_share_words_are_all_shown() -> None:
    """ "roll back" does not hide "roll back checkout to v41 and disable retries", "scale to
    10" does not hide "scale to 100", and one incident's decision hides no other's."""
    decisions = [
        DigestDecision("roll back", "C1", "inc-1", "note"),
        DigestDecision("roll back checkout to v41 and disable retries", "C1", "inc-1", "note"),
        DigestDecision("scale to 10", "C1", "inc-1", "note"),
        DigestDecision("scale to 100", "C1", "inc-1", "note"),
        DigestDecision("roll back", "C2", "inc-2", "note"),
    ]
    parts = digest_parts(Digest("T1", NOW, NOW, [_incident(1), _incident(2)], [], [], decisions))
    first, second = parts[1:]
    lines = [line.strip() for line in first.splitlines()]
    assert "Decision: roll back" in lines and "Decision: scale to 10" in lines, lines
    assert "disable retries" in first and "Decision: scale to 100" in lines, lines
    assert "Decision: roll back" in second, second
