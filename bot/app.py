"""Builds everything the bot needs from Settings: database, domain objects, the Bolt AsyncApp
(with exactly-once middleware and the one global error handler) and the runtime around it.
"""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from pathlib import Path
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncApp
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.answer import messages
from bot.answer.compose import Answering, AnsweringConfig
from bot.deps import Deps
from bot.directory import ChannelDirectory, HomeTeam, Memberships, user_directory
from bot.guarded.approvers import ApproverDirectory
from bot.guarded.catalogue import Catalogue, load_catalogue
from bot.guarded.requests import GuardedActions
from bot.listeners import actions, commands, home, membership, mentions, shortcuts
from bot.listeners import messages as message_events
from bot.listeners.commands import UsageError
from bot.metrics import Metrics
from bot.pacing import ChannelPacer
from bot.preflight import check_start
from bot.runtime import Runtime
from bot.settings import Settings, SettingsError
from bot.state.dedupe import Dedupe
from bot.state.feedback import Feedback
from bot.state.saves import SourceSaves
from memory.clock import Clock, utc_now
from memory.errors import OpsmemoryError

log = logging.getLogger("opsmemory.bot")


def _trace(metrics: Metrics) -> aiohttp.TraceConfig:
    """Counts and times every Slack Web API call by method name (no bodies, no tokens)."""
    trace = aiohttp.TraceConfig()

    async def start(_s: Any, ctx: Any, params: Any) -> None:
        ctx.started = time.perf_counter()

    async def end(_s: Any, ctx: Any, params: Any) -> None:
        method = params.url.path.rsplit("/", 1)[-1]
        outcome = "ok" if params.response.status == 200 else str(params.response.status)
        metrics.slack_calls.labels(method, outcome).inc()
        metrics.slack_latency.labels(method).observe(time.perf_counter() - ctx.started)

    trace.on_request_start.append(start)
    trace.on_request_end.append(end)
    return trace


async def build_app(settings: Settings, *, clock: Clock = utc_now) -> Runtime:
    """Open the database, build the domain and the Bolt app; nothing is served yet."""
    await check_start(settings)  # SettingsError (exit 2) before anything is opened
    catalogue = load_actions(settings)  # likewise for an invalid action catalogue
    metrics = Metrics()
    session = aiohttp.ClientSession(trace_configs=[_trace(metrics)])
    token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    client = AsyncWebClient(
        token=token,
        base_url=settings.slack_api_base,
        session=session,
        timeout=10,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
        ],
    )
    secret = settings.slack_signing_secret
    app = AsyncApp(
        client=client,
        # Socket Mode needs no signing secret. A random one per process keeps Bolt's verifier on
        # and makes an HTTP request impossible to forge, should one ever reach the app.
        signing_secret=secret.get_secret_value() if secret else secrets.token_hex(32),
        request_verification_enabled=True,
        process_before_response=False,
        logger=_bolt_logger(),
    )
    deps = await _build_deps(settings, client, metrics, clock, catalogue, session)
    _install_exactly_once(app, deps)
    _install_error_handler(app, deps)
    for module in (mentions, message_events, commands, actions, shortcuts, home, membership):
        module.register(app, deps)
    _acknowledge_other_events(app, deps)
    return Runtime(settings=settings, app=app, deps=deps, session=session)


def load_actions(settings: Settings) -> Catalogue:
    """The action catalogue OPSMEMORY_ACTIONS_FILE names (none: no actions), validated."""
    if settings.actions_file is None:
        return Catalogue.empty()
    catalogue = load_catalogue(settings.actions_file)
    if catalogue.uses_webhooks() and settings.actions_webhook_secret is None:
        raise SettingsError(
            [
                f"OPSMEMORY_ACTIONS_WEBHOOK_SECRET is not set, and {settings.actions_file} has "
                "webhook actions with dry_run: false; set it to the secret the receiver checks "
                "signatures with."
            ]
        )
    return catalogue


async def _build_deps(
    settings: Settings,
    client: AsyncWebClient,
    metrics: Metrics,
    clock: Clock,
    catalogue: Catalogue,
    session: aiohttp.ClientSession,
) -> Deps:
    import knowledge
    import skills as skills_pkg
    from bot.answer.llm import Generator, OllamaChat, TokenLedger
    from bot.cli.redact_cmd import redaction_policy
    from knowledge.search import Knowledge
    from memory.controls.controls import Controls
    from memory.embedding.cache import QueryCachingEmbedder
    from memory.embedding.embedder import build_embedder
    from memory.episodes.episodes import Episodes
    from memory.incidents import Incidents
    from memory.notes.notes import NotePolicy, Notes
    from memory.profiles.profiles import Profiles
    from memory.recall.recall import Recall, RecallConfig
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database
    from memory.threads import Threads
    from skills.loader import SkillIndex

    db = await Database.open(settings.database_path)
    embedder = build_embedder(
        settings.embedder,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_embed_model,
        timeout_s=settings.ollama_timeout_s,
    )
    if embedder is not None:
        embedder = QueryCachingEmbedder(embedder)
    redactor = Redactor(redaction_policy(settings))
    recall = Recall(
        db, embedder, RecallConfig(half_life_hours=settings.recall_half_life_hours), clock
    )
    profiles = Profiles(db, redactor, embedder, clock)
    runbooks = settings.runbooks_dir or Path(knowledge.__file__).parent / "runbooks"
    know = Knowledge(db, runbooks, embedder, runbooks_url=settings.runbooks_url)
    skills_root = settings.skills_dir or Path(skills_pkg.__file__).parent
    skill_index = await asyncio.to_thread(SkillIndex.load, skills_root)
    episodes = Episodes(db, embedder, clock, redactor=redactor)
    incidents = Incidents(
        db, clock, channel_pattern=settings.incident_channel_pattern, redactor=redactor
    )
    generator = None
    if settings.ollama_host:
        chat = OllamaChat(
            host=settings.ollama_host,
            model=settings.ollama_chat_model,
            timeout_s=settings.ollama_timeout_s,
        )
        generator = Generator(chat, TokenLedger(db, cap=settings.thread_token_cap, clock=clock))
    home = HomeTeam()  # learned from auth.test at start-up (Runtime.warm_up)
    secret = settings.actions_webhook_secret
    notes = Notes(db, redactor, embedder, NotePolicy(max_chars=settings.note_max_chars), clock)
    return Deps(
        settings=settings,
        db=db,
        clock=clock,
        metrics=metrics,
        dedupe=Dedupe(db, clock),
        pacer=ChannelPacer(),
        channels=ChannelDirectory(client, ttl_s=300, clock=clock),
        memberships=Memberships(client, ttl_s=settings.users_cache_ttl_s, clock=clock),
        home=home,
        users=user_directory(client, home=home, ttl_s=settings.users_cache_ttl_s, clock=clock),
        redactor=redactor,
        incidents=incidents,
        notes=notes,
        recall=recall,
        profiles=profiles,
        threads=Threads(db, redactor, clock, notes=notes),
        episodes=episodes,
        controls=Controls(db, clock, episodes=episodes),
        knowledge=know,
        skills=skill_index,
        answering=Answering(
            recall=recall,
            knowledge=know,
            skills=skill_index,
            profiles=profiles,
            episodes=episodes,
            config=AnsweringConfig(actions=catalogue.vocabulary()),
        ),
        generator=generator,
        guarded=GuardedActions(
            db,
            catalogue,
            ApproverDirectory(client, settings.approver_ids),
            redactor,
            webhook_secret=secret.get_secret_value() if secret else None,
            session=session,
            incidents=incidents,
            clock=clock,
        ),
        feedback=Feedback(db, clock),
        saves=SourceSaves(db, clock),
    )


def _not_env_token_notice(record: logging.LogRecord) -> bool:
    """Drops Bolt's "`token` will be unused": Bolt 1.30 reads SLACK_BOT_TOKEN from the environment
    even when given a client, then warns; our client holds that same token (issue 18)."""
    return record.getMessage() != warning_client_prioritized_and_token_skipped()


def _bolt_logger() -> logging.Logger:
    logger = logging.getLogger("opsmemory.bolt")
    logger.addFilter(_not_env_token_notice)  # a no-op when already added
    return logger


def _install_exactly_once(app: AsyncApp, deps: Deps) -> None:
    """Drop Events API retries (same event_id) before any listener runs; ack them with 200."""

    @app.middleware
    async def exactly_once(body: dict[str, Any], context: Any, next: Any) -> BoltResponse | None:
        kind = _request_kind(body)
        if kind in _NOTICES:
            # Slack telling us something (we are rate limited): nothing to run and no listener
            # matches, so without this Bolt would answer 404 (issue 18).
            deps.metrics.events.labels(kind, "ignored").inc()
            log.warning("slack_notice", extra={"kind": kind})
            return BoltResponse(status=200, body="")
        event_id = body.get("event_id")
        if event_id and not await deps.dedupe.claim_event(str(event_id)):
            deps.metrics.events.labels(kind, "duplicate").inc()
            log.info("event_duplicate", extra={"event_id": event_id, "kind": kind})
            return BoltResponse(status=200, body="")
        deps.metrics.events.labels(kind, "accepted").inc()
        if kind in _ACK_FIRST:
            # Bolt (1.30) resets the ack when a listener fails within ~10 ms of acking, then
            # answers 404 after 3 s. Acking here, before the listener starts, makes the 200 stick;
            # the listener's own `await ack()` is then a harmless repeat.
            await context.ack()
        await next()
        return None


_ACK_FIRST = frozenset({"block_actions", "message_action", "shortcut"})  # commands: issue 18


_NOTICES = frozenset({"app_rate_limited"})


def _acknowledge_other_events(app: AsyncApp, deps: Deps) -> None:
    """Events no listener above takes (Bolt runs only the first match) are acknowledged with 200
    and dropped: Bolt would answer 404, which Slack retries as a failed delivery (issue 18)."""

    @app.event(re.compile(".*"))
    async def other_event(body: dict[str, Any]) -> None:
        deps.metrics.events.labels(_request_kind(body), "ignored").inc()


def _request_kind(body: dict[str, Any]) -> str:
    if body.get("type") == "event_callback":
        return str(body.get("event", {}).get("type", "event"))
    if "command" in body:
        return "command"
    return str(body.get("type", "unknown"))


def _install_error_handler(app: AsyncApp, deps: Deps) -> None:
    """OpsmemoryError → its sentence; anything else → a reference, ephemeral to the causer."""

    @app.error
    async def on_error(
        error: Exception,
        body: dict[str, Any],
        context: Any,
        respond: Any = None,
        response: BoltResponse | None = None,
    ) -> BoltResponse | None:
        if isinstance(error, OpsmemoryError):
            text = str(error)
            if isinstance(error, UsageError):
                text = f"{text}\n{messages.USAGE}"
            deps.metrics.errors.labels(type(error).__name__).inc()
        else:
            ref = secrets.token_hex(2)
            text = messages.internal_error(ref)
            deps.metrics.errors.labels("internal").inc()
            log.error(
                "listener_failed",
                extra={
                    "ref": ref,
                    "error_type": type(error).__name__,
                    "kind": _request_kind(body),
                    "team": context.team_id,
                    "channel": context.channel_id,
                    "user": context.user_id,
                    "event_id": body.get("event_id"),
                },
            )
        if response is not None and _request_kind(body) == "command":  # not acked yet: tell in it
            return BoltResponse(status=200, body={"response_type": "ephemeral", "text": text})
        await _tell(context, respond, text)
        return None


async def _tell(context: Any, respond: Any, text: str) -> None:
    """Say `text` only to the person who caused it."""
    if respond is not None and context.get("response_url"):
        await respond(text=text, response_type="ephemeral", replace_original=False)
    elif context.channel_id and context.user_id and not str(context.channel_id).startswith("D"):
        await context.client.chat_postEphemeral(
            channel=context.channel_id, user=context.user_id, text=text
        )
    elif context.user_id:
        await context.client.chat_postMessage(channel=context.user_id, text=text)
