"""Slack-safe text (issue 14, item 6): one escaping in render.py, entity-safe clipping, bot links
kept, personal memory only in the addendum."""

from __future__ import annotations

import html
import json

from bot.answer import render
from bot.answer.compose import Answer, Source
from bot.listeners.mentions import without_bot_mention

EVIL = "<!channel> see <https://evil.example/login|https://runbooks.example/x> & <@U0BOSS>"


def test_escape_makes_pings_mentions_and_disguised_links_inert_and_round_trips() -> None:
    safe = render.escape(EVIL)
    assert "<" not in safe and ">" not in safe
    assert html.unescape(safe) == EVIL


def test_clip_never_ends_inside_an_entity_or_a_link() -> None:
    safe = render.escape("a & b")  # "a &amp; b"
    for limit in range(1, len(safe) + 1):
        cut = render.clip(safe, limit)
        assert len(cut) <= limit
        assert not cut.endswith(("&", "&a", "&am", "&amp")), cut
    linked = "see " + render.bot_link("https://x.example/p1", "the thread")
    for limit in range(1, len(linked)):
        cut = render.clip(linked, limit)
        assert cut.count("<") == cut.count(">"), cut


def test_one_line_escapes_then_clips_with_an_ellipsis() -> None:
    line = render.one_line("x & y " * 100, 50)
    assert len(line) <= 50 and line.endswith("…")
    assert not line[:-1].rstrip().endswith(("&", "&a", "&am", "&amp"))


def test_bot_links_stay_links_and_their_labels_are_escaped() -> None:
    assert render.bot_link("https://s.slack.com/archives/C1/p1", "<b>") == (
        "<https://s.slack.com/archives/C1/p1|&lt;b&gt;>"
    )
    assert render.bot_link("https://e.example/a|b>c", "x") == "<https://e.example/a%7Cb%3Ec|x>"


def test_answer_blocks_show_stored_text_inert_and_personal_memory_only_in_the_addendum() -> None:
    a = Answer(
        summary=f"Memory says [S1]: {EVIL}",
        sources=(
            Source(
                "S1", "incident", "note 1", EVIL, "https://s.slack.com/archives/C1/p1", "note:1"
            ),
        ),
        personal=(Source("Y1", "mine", "your memory 7", "I am interviewing at Globex"),),
    )
    blocks = json.dumps(render.answer(a))
    assert (
        "<!channel>" not in blocks and "<https://evil" not in blocks and "<@U0BOSS>" not in blocks
    )
    assert "<https://s.slack.com/archives/C1/p1|note 1>" in blocks  # the bot's own link
    assert "Globex" not in blocks
    assert json.loads(render.shown_refs(a)) == ["note:1"]
    addendum = json.dumps(render.personal_addendum(a))
    assert "Globex" in addendum
    assert render.personal_addendum(Answer("x")) == []


def test_the_bots_own_mention_is_stripped_other_mentions_kept() -> None:
    text = "<@U0BOT> decision: roll back, cc <@U0ALICE> <@U0BOT|opsmemory>"
    assert without_bot_mention(text, "U0BOT") == "decision: roll back, cc <@U0ALICE>"
    assert without_bot_mention(text, None) == text


def test_one_line_cuts_after_a_whole_word_and_mid_word_only_without_a_late_space() -> None:
    line = render.one_line("check the pgbouncer pool and the replica lag before failing over", 40)
    assert line == "check the pgbouncer pool and the…"
    assert render.one_line("x" * 80, 20) == "x" * 19 + "…"  # one long token: nothing to cut at
    assert render.one_line("see " + "y" * 80, 20) == "see " + "y" * 15 + "…"  # space too early


def test_a_runbook_line_shows_a_markdown_link_as_its_words_not_a_cut_url() -> None:
    src = Source("S1", "runbook", "kube-pod-crash-looping › Mitigation",
                 "Fix the app. See [Debugging Pods](https://kubernetes.io/docs/tasks/debug/)")  # fmt: skip
    text = json.dumps(render.answer(Answer(summary="x", sources=(src,))))
    assert "See Debugging Pods" in text and "kubernetes.io" not in text
