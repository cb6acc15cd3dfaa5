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
    assert (app.bot_id, app.name) == ("B0AM", "Alertmanager")
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


def test_rich_text_blocks_are_read_as_shown() -> None:
    msg = {
        "blocks": [
            {
                "type": "rich_text",
                "elements": [
                    {
                        "type": "rich_text_section",
                        "elements": [
                            {"type": "text", "text": "Deploy of "},
                            {
                                "type": "link",
                                "url": "https://ci.example/88",
                                "text": "checkout v42",
                            },
                            {"type": "text", "text": " failed"},
                        ],
                    }
                ],
            }
        ]
    }
    assert words(msg) == "Deploy of checkout v42 failed"


@pytest.mark.parametrize(
    "msg",
    [
        {"text": "a person typed this", "user": "U0ANA"},  # no bot id: a person
        {"text": "Memory says: …", "bot_id": "B0BOT"},  # this bot's own post
        {"text": "Memory says: …", "bot_id": "B0OTHERID", "user": "U0BOT"},  # … by its user
        {
            "text": "their pager",
            "bot_id": "B0THEIRS",
            "bot_profile": {"name": "Their pager", "team_id": "T0OTHER"},
        },  # an app of another organisation in a shared channel
    ],
)
def test_people_this_bot_and_other_organisations_apps_are_not_app_messages(
    msg: dict[str, Any],
) -> None:
    assert from_event(msg, **OWN) is None


def test_an_app_is_named_by_its_profile_or_plainly() -> None:
    named = from_event({"bot_id": "B1", "text": "x", "bot_profile": {"name": "Grafana"}}, **OWN)
    plain = from_event({"bot_id": "B1", "text": "x"}, **OWN)
    assert named is not None and named.name == "Grafana"
    assert plain is not None and plain.name == UNNAMED_APP
