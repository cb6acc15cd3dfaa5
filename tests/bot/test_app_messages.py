"""Reading other apps' posts (`bot.app_messages`): every piece of text said once, this bot's own
posts and other organisations' apps never read as an app message."""

from __future__ import annotations

from typing import Any

import pytest

from bot.app_messages import UNNAMED_APP, from_event, words

OWN = {"own_bot_id": "B0BOT", "own_user_id": "U0BOT", "team_id": "T1"}


def test_an_alertmanager_webhook_is_read_from_its_attachment_once() -> None:
    msg = {
        "bot_id": "B0AM",
        "subtype": "bot_message",
        "username": "Alertmanager",
        "text": "",
        "attachments": [
            {
                "fallback": "[FIRING:1] KubePodCrashLooping checkout",
                "title": "[FIRING:1] KubePodCrashLooping checkout",
                "text": "Pod checkout/api-7 is restarting 3 times / 10 minutes.",
                "fields": [{"title": "severity", "value": "critical", "short": True}],
            }
        ],
    }
    app = from_event(msg, **OWN)
    assert app is not None
    assert (app.bot_id, app.name) == ("B0AM", "Alertmanager (app)")
    assert app.text == (
        "[FIRING:1] KubePodCrashLooping checkout\n"
        "Pod checkout/api-7 is restarting 3 times / 10 minutes.\n"
        "severity: critical"
    )


def test_a_fallback_only_attachment_is_what_people_were_shown() -> None:
    assert words({"attachments": [{"fallback": "disk 91% on db-3"}]}) == "disk 91% on db-3"


def test_text_repeated_in_blocks_is_said_once_and_the_fuller_copy_kept() -> None:
    msg: dict[str, Any] = {
        "text": "Incident #88 triggered",
        "blocks": [
            {"type": "header", "text": {"type": "plain_text", "text": "Incident #88 triggered"}},
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": "Incident #88 triggered: checkout 5xx > 5%"},
                "fields": [{"type": "mrkdwn", "text": "*Urgency:* high"}],
            },
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "via PagerDuty"}]},
            {"type": "divider"},
        ],
    }
    assert words(msg) == "Incident #88 triggered: checkout 5xx > 5%\n*Urgency:* high\nvia PagerDuty"


def test_short_distinct_values_are_kept_and_every_repeat_of_a_longer_one_goes() -> None:
    msg = {
        "text": "disk 91% on db-3",
        "attachments": [
            {
                "title": "disk 91% on db-3 (checkout api-7)",
                "fields": [{"value": "api"}, {"value": "db-3"}],
            }
        ],
    }
    assert words(msg) == "disk 91% on db-3 (checkout api-7)\napi\ndb-3"


def test_link_previews_are_not_the_apps_words() -> None:
    msg = {
        "text": "deploy of checkout v42 failed, see the PR",
        "attachments": [
            {"from_url": "https://git.example/pr/9", "title": "Private PR: rotate keys"},
            {"title": "[FIRING:1] CheckoutDeployFailed"},
        ],
    }
    assert (
        words(msg) == "deploy of checkout v42 failed, see the PR\n[FIRING:1] CheckoutDeployFailed"
    )


def _rich_text(*elements: dict[str, Any]) -> dict[str, Any]:
    """A message whose one block is rich text made of `elements`."""
    return {"blocks": [{"type": "rich_text", "elements": list(elements)}]}


def _section(*elements: dict[str, Any]) -> dict[str, Any]:
    return {"type": "rich_text_section", "elements": list(elements)}


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def test_rich_text_lists_and_people_are_read_line_by_line() -> None:
    msg = _rich_text(
        _section({"type": "user", "user_id": "U0ANA"}, _text(" steps:")),
        {
            "type": "rich_text_list",
            "elements": [_section(_text("restart api")), _section(_text("scale to 4"))],
        },
    )
    assert words(msg) == "<@U0ANA> steps:\nrestart api\nscale to 4"


def test_rich_text_links_are_read_by_their_label() -> None:
    link = {"type": "link", "url": "https://ci.example/88", "text": "checkout v42"}
    msg = _rich_text(_section(_text("Deploy of "), link, _text(" failed")))
    assert words(msg) == "Deploy of checkout v42 failed"


@pytest.mark.parametrize(
    "msg",
    [
        {"text": "a person typed this", "user": "U0ANA"},  # no bot id: a person
        {"text": "x", "bot_id": "b0/../evil"},  # not a bot id Slack gives: nothing to key to
        {"text": "Memory says: …", "bot_id": "B0BOT"},  # this bot's own post
        {"text": "Memory says: …", "bot_id": "B0OTHERID", "user": "U0BOT"},  # … by its user
        {  # another app re-posting an opsmemory answer: memory would quote itself
            "bot_id": "B0TIMELINE",
            "text": "Memory says: rollback done\nopsmemory · cited, no model used",
        },
    ],
)
def test_people_and_this_bot_are_not_app_messages(msg: dict[str, Any]) -> None:
    assert from_event(msg, **OWN) is None


@pytest.mark.parametrize(
    "msg",
    [
        {"text": "x", "bot_id": "B0THEIRS", "bot_profile": {"team_id": "T0OTHER"}},
        {"text": "x", "bot_id": "B0THEIRS", "user_team": "T0OTHER"},
        {"text": "x", "bot_id": "B0THEIRS", "source_team": "T0OTHER"},
        {"text": "x", "bot_id": "B0THEIRS"},  # names no team: refused, not guessed
    ],
)
def test_in_a_shared_channel_only_our_teams_apps_are_read(msg: dict[str, Any]) -> None:
    assert from_event(msg, **OWN, shared_channel=True) is None
    ours = {**msg, "bot_profile": {"team_id": "T1"}, "user_team": "T1", "source_team": "T1"}
    assert from_event(ours, **OWN, shared_channel=True) is not None


def test_outside_shared_channels_a_sibling_grid_workspaces_app_is_read() -> None:
    """In an Enterprise Grid org a channel can span the org's workspaces; only a Slack Connect
    channel holds another organisation's posts."""
    msg = {"text": "[FIRING:1] x", "bot_id": "B0SIB", "bot_profile": {"team_id": "T0SIBLING"}}
    assert from_event(msg, **OWN) is not None


def test_an_app_is_named_by_its_profile_before_the_name_it_posts_under_and_marked_as_an_app() -> (
    None
):
    """A webhook may post as "Alice Smith": what is shown says it is an app."""
    both = {"bot_id": "B1", "text": "x", "username": "Alice Smith", "bot_profile": {"name": "CI"}}
    named = from_event(both, **OWN)
    spoofed = from_event({"bot_id": "B1", "text": "x", "username": "Alice Smith"}, **OWN)
    plain = from_event({"bot_id": "B1", "text": "x"}, **OWN)
    assert named is not None and named.name == "CI (app)"
    assert spoofed is not None and spoofed.name == "Alice Smith (app)"
    assert plain is not None and plain.name == f"{UNNAMED_APP} (app)"


def test_in_a_shared_channel_an_app_naming_no_team_is_refused() -> None:
    msg = {"bot_id": "B1", "text": "[FIRING:1] x"}
    assert from_event(msg, **OWN, shared_channel=True) is None
    ours = {**msg, "bot_profile": {"team_id": "T1"}}
    assert from_event(ours, **OWN, shared_channel=True) is not None
