"""A runbook answer's lead is cut where a reader expects a cut: at a sentence, line or word, with
an ellipsis, never inside a code span, a code block line or a Slack entity (the sandbox once
showed "… Check l")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.answer.compose import LEAD_CHARS, Answering, Question, ThreadKey
from bot.answer.runbook_text import (
    ELLIPSIS,
    first_words,
    lead,
    plain,
    to_mrkdwn,
    without_leading_headings,
)
from knowledge.search import Knowledge
from memory.embedding.embedder import Embedder
from memory.recall.recall import Recall
from memory.scopes import Requester
from memory.store.db import Database
from tests.knowledge.conftest import write_corpus

SECTION = (
    "Check the logs of the pod with `kubectl logs -n monitoring alertmanager-main-0 --previous`"
    " and look for configuration errors. See <https://docs.example/am|the Alertmanager docs>"
    " for the fields &amp; their defaults.\n\n"
    "```shell\nkubectl get events -n monitoring --sort-by=.lastTimestamp\n"
    "kubectl describe pod alertmanager-main-0 -n monitoring\n```\n"
    "Check listeners and receivers once the pod is back."
)
WORDS = set(re.findall(r"\S+", SECTION))


def test_a_lead_is_cut_at_a_boundary_with_an_ellipsis_at_every_length() -> None:
    for limit in range(20, len(SECTION)):
        cut = lead(SECTION, limit)
        assert len(cut) <= limit and cut.endswith(ELLIPSIS), limit
        kept = cut.removesuffix(ELLIPSIS).removesuffix("\n```").rstrip()
        if kept.endswith("```"):
            kept = kept.removesuffix("```").rstrip()
        assert SECTION.startswith(kept), limit
        # The last kept word is a whole word of the section ("Check l" is not).
        if kept:
            assert kept.split()[-1] in WORDS, (limit, cut)
        lines = cut.split("\n")
        assert cut.count("```") % 2 == 0, (limit, cut)  # a code block is closed
        in_fence = False
        for line in lines:
            if line.startswith("```"):
                in_fence = not in_fence
            elif in_fence:
                assert SECTION.count(line + "\n") >= 1, (limit, line)  # commands stay whole
            else:
                assert line.count("`") % 2 == 0, (limit, line)  # no open code span
        assert cut.count("<") == cut.count(">"), (limit, cut)  # no half Slack link
        assert re.search(r"&[a-z]*(?!;)\W*$", kept.replace("&amp;", "")) is None


def test_a_cut_inside_a_code_block_keeps_the_whole_commands_before_it() -> None:
    inside_second = SECTION.index("kubectl describe") + 15
    cut = lead(SECTION, inside_second)
    assert "kubectl get events -n monitoring --sort-by=.lastTimestamp\n```" in cut
    assert "describe" not in cut
    assert "kubectl describe pod alertmanager-main-0" in lead(SECTION, len(SECTION) - 10)


def test_a_lead_within_its_limit_is_left_alone() -> None:
    assert lead(SECTION, len(SECTION)) == SECTION
    assert lead("Roll back the deploy.", 900) == "Roll back the deploy."


def test_a_paragraph_longer_than_the_body_is_cut_at_a_word_not_dropped() -> None:
    body = to_mrkdwn("Scale the deployment down before draining. " * 60, limit=300)
    assert body.startswith("Scale the deployment down") and body.endswith(ELLIPSIS)
    assert body.removesuffix(ELLIPSIS).split()[-1] in {"Scale", "the", "deployment", "down",
                                                       "before", "draining."}  # fmt: skip
    assert len(body) <= 300


async def test_the_answer_leads_with_a_long_section_cut_at_a_word(
    db: Database, tmp_path: Path, embedder: Embedder
) -> None:
    """Through the answer a mention gets: the top section is longer than the lead, and the
    lead ends on a whole word with an ellipsis."""
    steps = " ".join(
        f"Check listener {i} and restart its receiver when it has stopped." for i in range(40)
    )
    corpus = write_corpus(
        tmp_path / "runbooks",
        {"alertmanager-down": f"# Alertmanager down\n\n## Mitigation\n{steps}\n"},
    )
    answering = Answering(
        recall=Recall(db, embedder),
        knowledge=Knowledge(db, corpus, embedder),
        skills=None,
        profiles=None,
        episodes=None,
    )
    requester = Requester("T1/U1", "T1", channel_id="C1")
    answer = await answering.compose(
        Question(requester, "alertmanager is down, how do I fix it?", ThreadKey("T1", "C1", "1"))
    )
    top = answer.of_kind("runbook")[0]
    assert top.label.startswith("alertmanager-down › Mitigation · confidence ")
    assert len(top.text) <= LEAD_CHARS and top.text.endswith(ELLIPSIS)
    last = top.text.removesuffix(ELLIPSIS).split()[-1]
    assert last in set(steps.split())
    assert answer.summary.split("\n")[1].endswith(ELLIPSIS)


def test_layout_html_is_not_shown_and_a_summary_label_goes_whole() -> None:
    """The scenario's KubeCPUOvercommit answer showed `&lt;details&gt; &lt;summary&gt;Full
    context…` (GitHub folds the text; Slack printed the tags)."""
    text = (
        "Cluster has overcommitted CPU.\n\n<details>\n<summary>Full context</summary>\n\n"
        "Total requests exceed capacity.<br>\n</details>"
    )
    body = to_mrkdwn(text)
    assert "details" not in body and "summary" not in body and "Full context" not in body
    assert "<br>" not in body and "Total requests exceed capacity." in body
    assert "<" not in plain(text) and "Full context" not in plain(text)


def test_a_link_in_a_lead_keeps_its_address_when_the_message_is_escaped_later() -> None:
    """ "Follow the steps described in the disaster-recovery" lost its link in mention answers."""
    text = "Follow the steps in the [disaster-recovery](https://docs.example/dr.html) guide."
    assert to_mrkdwn(text) == (
        "Follow the steps in the disaster-recovery (https://docs.example/dr.html) guide."
    )
    escaped = to_mrkdwn(text, escape=lambda s: s.replace("<", "&lt;"))
    assert "<https://docs.example/dr.html|disaster-recovery>" in escaped


def test_a_code_block_whose_first_command_does_not_fit_is_not_opened() -> None:
    """The PVC answer ended in an empty code block: "```\n```\n…"."""
    text = "Run this with your namespace and PVC name replaced.\n\n```shell\n" + "k" * 400 + "\n```"
    body = to_mrkdwn(text, limit=120)
    assert "```" not in body and body.endswith(ELLIPSIS) and "kkk" not in body


def test_an_excerpt_reads_a_runbooks_markdown_as_words() -> None:
    text = "### Disaster and recovery\nFollow the **steps** in [the guide](https://d.example/g)."
    assert " ".join(plain(text).split()) == "Disaster and recovery Follow the steps in the guide."


def test_a_runbook_links_address_cannot_end_the_link_and_start_slack_markup() -> None:
    """Review: `[docs](https://a.example/x><!channel><https://evil.example|https://good)` in a
    runbook file rendered a live @channel and a disguised link."""
    text = "See [docs](https://a.example/x><!channel><https://evil.example|https://good) now"
    body = to_mrkdwn(text, escape=lambda s: s.replace("&", "&amp;").replace("<", "&lt;"))
    assert "<!channel>" not in body and "<https://evil" not in body
    assert body.count("<") == 1 and body.count("|") == 1  # one link, the bot's own


@pytest.mark.parametrize(
    ("section", "line"),
    [
        ("## Steps\n\n1. Post in the [incident\nchannel](https://x.example/c). Then wait.\n2. x",
         "Post in the incident channel. Then wait."),
        ("```bash\nkubectl get pods -n x\n```", "`kubectl get pods -n x`"),
        ("<details>\n<summary>More</summary>\n\nReal words here.\n</details>", "Real words here."),
        ("| a | b |\n|---|---|\n| 1 | 2 |\n\nAfter the table.", "After the table."),
        ("> quoted advice\n> more", "quoted advice more"),
        ("Check why HPA was unable to scale:\n\n- max replicas too low\n- requests too low",
         "Check why HPA was unable to scale: max replicas too low"),
        ("- [ ] check the disk\n- [ ] other", "check the disk"),
        ("![diagram](img.png)\n\nSee the diagram above.", "See the diagram above."),
        ("Setext\n======\n\nBody text.", "Body text."),
        # a label for the code under it is said with its first command, not with the next label
        ("Kafka:\n\n```promql\nsum(kafka_consumergroup_lag)\n```\n\nRabbitMQ:\n\n```\nx\n```",
         "Kafka: `sum(kafka_consumergroup_lag)`"),
        ("```\nkubectl get pods\n```\n\nPlot it:\n\n```\nopenssl s_client \\\n  | grep x\n```",
         "Plot it: `openssl s_client \\ | grep x`"),
        # a comment is no command; a command continued on many lines is shown by its first few
        ("Check lag:\n```\n# per group\nkafka-consumer-groups --describe\n```",
         "Check lag: `kafka-consumer-groups --describe`"),
        ("Run:\n```\na \\\n b \\\n c \\\n d \\\n e\n```", "Run: `a \\ b \\ c \\`"),
    ],
)  # fmt: skip
def test_a_section_in_one_line_is_its_first_words_without_markdown(section: str, line: str) -> None:
    assert first_words(section) == line


def test_a_section_is_shown_without_the_headings_that_only_repeat_its_label() -> None:
    text = "# KubePodCrashLooping\n\n## Meaning\nA pod keeps restarting.\n## Impact\nNone."
    named = ["kube-pod-crash-looping", "Meaning"]
    assert without_leading_headings(text, named) == "A pod keeps restarting.\n## Impact\nNone."
    assert without_leading_headings("# Kube Pod Crash Looping\n\n", named) == ""
    # A heading that says more than the label is content: it stays.
    option = "### Option A: flush the session cache (safe)\n`redis-cli -n 2 FLUSHDB`"
    assert without_leading_headings(option, ["redis-memory-high", "Mitigation"]) == option
