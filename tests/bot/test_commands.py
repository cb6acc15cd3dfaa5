"""`/incident` parsing: bad input names the exact problem (issue 5, item 6)."""

from __future__ import annotations

import pytest

from bot.listeners.commands import UsageError, parse_incident_command


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "needs a subcommand"),
        ("frobnicate now", "`frobnicate` is not an /incident subcommand"),
        ("note", "`/incident note` needs text after it"),
        ("status sideways", "Status must be one of open, mitigated or resolved"),
    ],
)
def test_bad_input_names_the_problem(text: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        parse_incident_command(text)


def test_subcommand_is_case_insensitive_and_keeps_the_text() -> None:
    cmd = parse_incident_command("  DECISION  roll back to v41 ")
    assert (cmd.sub, cmd.args) == ("decision", "roll back to v41")


def test_long_unknown_subcommand_is_shortened_in_the_error() -> None:
    with pytest.raises(UsageError) as err:
        parse_incident_command("x" * 500)
    assert len(str(err.value)) < 100
