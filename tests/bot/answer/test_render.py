"""Block Kit limits are enforced by the renderer (issue 5, item 10)."""

from __future__ import annotations

import html

from bot.answer import render
from bot.answer.compose import Answer, ProposedAction, SimilarIncident, Source
from bot.standin.methods import block_problems


def _answer(n_sources: int, text_len: int = 100, summary_len: int = 50) -> Answer:
    sources = tuple(
        Source(f"S{i}", "runbook", f"slug-{i} › Section", "x" * text_len, f"https://rb/{i}")
        for i in range(1, n_sources + 1)
    )
    return Answer("s" * summary_len, sources)


def test_long_summary_is_cut_to_3000_chars_with_a_link() -> None:
    rendered = render.answer(_answer(1, summary_len=10_000), link="https://x.slack.com/p1")
    text = rendered[0]["text"]["text"]
    assert len(text) <= 3000
    assert "<https://x.slack.com/p1|(truncated, full text)>" in text


def test_truncate_leaves_short_text_alone() -> None:
    assert render.truncate("short") == "short"


def test_fit_keeps_at_most_50_blocks_and_says_how_many_were_left_out() -> None:
    many = [render.section(str(i)) for i in range(120)]
    fitted = render.fit(many, link="https://x")
    assert len(fitted) == 50
    assert "71 more not shown" in fitted[-1]["elements"][0]["text"]


def test_rendered_answer_passes_slacks_block_validation() -> None:
    a = Answer(
        "summary " * 1000,
        tuple(Source(f"S{i}", "incident", f"note {i}", "y" * 900) for i in range(1, 40)),
        tuple(SimilarIncident(f"inc-{i}", "t" * 300, "why " * 50) for i in range(30)),
        (ProposedAction("rollback", "roll back", "runbook db › Steps"),),
        notice="n" * 5000,
    )
    assert block_problems(render.answer(a)) == []


def test_answer_cites_runbook_sections_as_slug_arrow_section_with_links() -> None:
    text = str(render.answer(_answer(2)))
    assert "[S1] <https://rb/1|slug-1 › Section>" in text
    assert "[S2] <https://rb/2|slug-2 › Section>" in text


def test_proposed_action_is_only_a_proposal_button() -> None:
    a = Answer("s", actions=(ProposedAction("rollback", "roll back", "runbook db › Steps"),))
    elements = next(b for b in render.answer(a) if b["type"] == "actions")["elements"]
    ids = [e["action_id"] for e in elements]
    assert "propose_action" in ids
    assert "approve_action" not in ids
    said = str(render.answer(a))
    assert "Propose: roll back" in said
    assert "roll back is named by runbook db › Steps" in said  # where it came from, truthfully


def test_home_view_fits_the_home_tab_limit() -> None:
    class Item:
        def __init__(self, i: int) -> None:
            self.id, self.text = f"f{i}", "fact " * 200

    view = render.home(
        counts={"notes (note)": 80},
        facts=[Item(i) for i in range(80)],
        notes=[Item(i) for i in range(80)],
        episodes=[],
    )
    assert block_problems(view["blocks"], limit=100) == []


def test_export_is_split_into_valid_messages_that_join_back_to_the_whole_dump() -> None:
    dump = "\n".join(f'  "text": "line {i} <EMAIL_ADDRESS> & more {"y" * 300}",' for i in range(60))
    dump += "\n" + "z" * 7000  # one line longer than a section
    parts = render.export_messages(dump)
    assert len(parts) > 1
    for part in parts:
        assert len(part) <= render.MAX_BLOCKS
        assert all(len(b["text"]["text"]) <= render.MAX_SECTION_CHARS for b in part[1:])
    code = "".join(
        b["text"]["text"].removeprefix("```").removesuffix("```") for p in parts for b in p[1:]
    )
    assert html.unescape(code) == dump
