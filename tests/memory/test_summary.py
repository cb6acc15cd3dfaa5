"""The extractive roll-up (`memory.episodes.summary`): a correction replaces what it is about,
stated as what is true now."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from memory.episodes.statements import without_correction_cue
from memory.episodes.summary import summarise


@dataclass(frozen=True)
class Said:
    ts: str
    text: str
    author_subject_id: str


def _thread(*lines: str) -> list[Said]:
    return [Said(f"17000000{i:02d}.000100", t, f"T1/U{i % 3}") for i, t in enumerate(lines)]


def test_a_new_owner_replaces_the_action_without_the_words_that_announced_the_correction() -> None:
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "action item: Bob owns adding a CI check on pool size",
            "scratch that, Dan owns the CI check",
        )
    )
    assert s.sections["actions"] == ["Dan owns the CI check"]
    assert "scratch that" not in s.text


def test_a_corrected_root_cause_is_the_one_the_roll_up_gives() -> None:
    s = summarise(
        _thread(
            "checkout 5xx since 10:02",
            "root cause: DNS resolution failing for the db host",
            "correction: the db host DNS was fine, the pool was exhausted",
        )
    )
    assert s.root_cause == "the db host DNS was fine, the pool was exhausted"


@pytest.mark.parametrize(
    ("said", "now_true"),
    [
        ("scratch that, Dan owns the CI check", "Dan owns the CI check"),
        ("*Correction*: the rollback target is v40", "the rollback target is v40"),
        ("I was wrong - it's not DNS", "it's not DNS"),
        ("scratch that", "scratch that"),  # nothing else said: the words stay
        ("correctional facility traffic", "correctional facility traffic"),  # a whole word only
    ],
)
def test_a_correction_is_read_without_how_it_opens(said: str, now_true: str) -> None:
    assert without_correction_cue(said) == now_true


def test_an_app_that_posted_the_alert_is_not_a_participant() -> None:
    """Alertmanager opened the thread; the people who worked it are who took part."""
    said = [
        Said("1700000000.000100", "[FIRING:1] KubeHpaMaxedOut search-api", "T1/B0ALERTS"),
        Said("1700000060.000100", "looking, HPA is at 20/20", "T1/U0ANA"),
        Said("1700000120.000100", "decision: raise maxReplicas to 40", "T1/U0BEN"),
    ]
    s = summarise(said, names={"T1/U0ANA": "Ana", "T1/U0BEN": "Ben", "T1/B0ALERTS": "Alertmanager"})
    assert s.participants == ["T1/U0ANA", "T1/U0BEN"]
    assert "Participants: Ana, Ben ·" in s.text
    assert s.first_report.startswith("[FIRING:1] KubeHpaMaxedOut")


def test_a_thread_only_an_app_posted_in_has_no_participants_yet() -> None:
    s = summarise([Said("1700000000.000100", "[FIRING:1] KubeHpaMaxedOut", "T1/B0ALERTS")])
    assert s.participants == []
    assert "Participants: none yet ·" in s.text


def test_an_apps_resolved_alert_is_not_the_threads_status_nor_any_statement() -> None:
    """Alertmanager auto-resolving is not the team calling it resolved; "Assigned to Ana" in a
    pager's post owns nothing."""
    said = [
        Said("1700000000.000100", "[FIRING:1] KubeHpaMaxedOut search-api", "T1/B0ALERTS"),
        Said("1700000060.000100", "status: mitigated, watching", "T1/U0ANA"),
        Said("1700000120.000100", "[RESOLVED] KubeHpaMaxedOut. Assigned to Ana", "T1/B0ALERTS"),
    ]
    s = summarise(said)
    assert s.status == "mitigated, watching"
    assert s.sections["actions"] == []
