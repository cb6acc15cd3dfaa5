"""app_mention: answer in the thread with one message, edited in place as the answer improves
(first the deterministic cited answer, then the LLM answer when Ollama is configured)."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import httpx
import ollama
from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import messages, render
from bot.answer.compose import Answer, Question, ThreadKey
from bot.directory import incident_for, requester_for, with_names
from bot.listeners import bind
from memory.errors import RedactionFailed

if TYPE_CHECKING:
    from bot.deps import Deps

log = logging.getLogger("opsmemory.mentions")
_MENTION = re.compile(r"<@[A-Z0-9]+(?:\|[^>]*)?>")


def question_text(text: str) -> str:
    """The question without any mention markup left in it."""
    return " ".join(_MENTION.sub(" ", text or "").split())


def _own_mention(bot_user_id: str) -> re.Pattern[str]:
    """The bot's mention in either form Slack sends: `<@U0BOT>` or `<@U0BOT|opsmemory>`."""
    return re.compile(rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>\s*")


def asks_bot(text: str, bot_user_id: str | None) -> bool:
    """Whether `text` mentions the bot (a question to it, not evidence of what happened)."""
    return bool(bot_user_id and text and _own_mention(bot_user_id).search(text))


def without_bot_mention(text: str, bot_user_id: str | None) -> str:
    """`text` as memory keeps it: the bot's own mention markup (`<@U0BOT>`) taken out, so it
    never shows up in recall, roll-ups or the digest; other people's mentions stay."""
    if not bot_user_id or not text:
        return text or ""
    return _own_mention(bot_user_id).sub("", text).strip()


def register(app: AsyncApp, deps: Deps) -> None:
    app.event("app_mention")(bind(on_mention, deps=deps))


async def on_mention(
    event: dict[str, Any], context: Any, client: AsyncWebClient, *, deps: Deps
) -> None:
    """Answer once per asking message: post the cited answer, then improve it in place.

    Bots and workflows (`bot_id`, or no `user`) are not answered: what a reader may see is
    decided per person, they have none, and two bots answering each other would loop (issue 18).
    """
    team, channel, ts = context.team_id, event.get("channel"), event.get("ts")
    if event.get("bot_id") or not event.get("user") or not channel or not ts:
        deps.metrics.events.labels("app_mention", "not_a_person").inc()
        reason = "bot" if event.get("bot_id") else "no_user"
        log.info("mention_ignored", extra={"team": team, "channel": channel, "reason": reason})
        return
    if not await deps.dedupe.claim_answer(team, channel, ts):
        deps.metrics.events.labels("app_mention", "already_answered").inc()
        return
    started = time.perf_counter()
    thread_ts = event.get("thread_ts") or ts
    incident = await incident_for(deps.incidents, deps.channels, team_id=team, channel_id=channel)
    if incident is None:
        await deps.pacer.wait(channel)
        await client.chat_postMessage(
            channel=channel, thread_ts=thread_ts, text=messages.NOT_AN_INCIDENT_CHANNEL
        )
        return
    requester = await requester_for(
        deps.users, deps.memberships, team_id=team, user_id=event["user"], channel_id=channel
    )
    q = Question(
        requester,
        # "what does <@U0DEV> own?" asks about @dev: only the bot's own mention goes.
        question_text(
            await with_names(
                without_bot_mention(event.get("text", ""), context.bot_user_id),
                deps.users,
                team_id=team,
            )
        ),
        ThreadKey(team, channel, thread_ts),
        incident.id,
        asked_ts=ts,
    )
    answer = await deps.answering.compose(q)
    for name, ms in answer.timings_ms.items():
        deps.metrics.retrieval_latency.labels(name).observe(ms / 1000)
    await deps.pacer.wait(channel)
    posted = await client.chat_postMessage(channel=channel, thread_ts=thread_ts, **_render(answer))
    await deps.dedupe.record_answer(team, channel, ts, posted["ts"])
    if answer.personal:
        # The asker's own memory reaches the asker alone, never the thread others read.
        await client.chat_postEphemeral(
            channel=channel,
            user=event["user"],
            thread_ts=thread_ts,
            text=messages.PERSONAL_ADDENDUM,
            blocks=render.personal_addendum(answer),
        )
    deps.metrics.answers.labels("cited").inc()
    deps.metrics.answer_latency.labels("cited").observe(time.perf_counter() - started)
    log.info(
        "answer_posted",
        extra={
            "team": team,
            "channel": channel,
            "incident": incident.id,
            "thread_ts": thread_ts,
            "stage": "cited",
        },
    )
    if deps.generator is not None:
        await _improve(deps, client, q, answer, posted["ts"], started)


async def _improve(
    deps: Deps, client: AsyncWebClient, q: Question, answer: Answer, answer_ts: str, started: float
) -> None:
    """Ask the LLM; edit the answer in place with its text, or with a notice why not."""
    assert deps.generator is not None
    # The model sees only what is stored: redacted text, read through the asker's visibility.
    captured = await deps.threads.visible_messages(
        q.requester, channel_id=q.thread.channel_id, thread_ts=q.thread.thread_ts
    )
    history = [{"role": "user", "content": m.text} for m in captured]
    try:
        q = replace(q, text=(await deps.redactor.redact(q.text)).text)
        improved, reply = await deps.generator.improve(q, answer, history)
    except (httpx.HTTPError, ollama.ResponseError, ConnectionError, RedactionFailed):
        # The fallback lives here: the cited answer is already posted; say why it stays.
        improved, reply = replace(answer, notice=messages.LLM_UNAVAILABLE), None
    if reply is not None:
        deps.metrics.llm_tokens.labels("prompt").inc(reply.prompt_tokens)
        deps.metrics.llm_tokens.labels("completion").inc(reply.completion_tokens)
    if improved == answer:
        return
    await deps.pacer.wait(q.thread.channel_id)
    await client.chat_update(channel=q.thread.channel_id, ts=answer_ts, **_render(improved))
    stage = "generated" if improved.generated else "notice"
    deps.metrics.answers.labels(stage).inc()
    deps.metrics.answer_latency.labels(stage).observe(time.perf_counter() - started)


def _render(answer: Answer) -> dict[str, Any]:
    """Fallback text plus blocks; cut text links to the top cited source's full text."""
    link = next((s.url for s in answer.sources if s.url), None)
    return {
        "text": render.truncate(render.escape(answer.summary)),
        "blocks": render.answer(answer, link=link),
    }
