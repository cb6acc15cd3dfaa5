"""The dependency container: everything a listener, job or runtime may use, built once by
`bot.app.build_app` and passed to every `register(app, deps)`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.pacing import ArrivalOrder

if TYPE_CHECKING:
    from bot.answer.compose import Answering
    from bot.answer.llm import Generator
    from bot.directory import ChannelDirectory, HomeTeam, Memberships
    from bot.guarded.requests import GuardedActions
    from bot.metrics import Metrics
    from bot.pacing import ChannelPacer
    from bot.settings import Settings
    from bot.state.dedupe import Dedupe
    from bot.state.feedback import Feedback
    from bot.state.saves import SourceSaves
    from knowledge.search import Knowledge
    from memory.clock import Clock
    from memory.controls.controls import Controls
    from memory.episodes.episodes import Episodes
    from memory.incidents import Incidents
    from memory.notes.notes import Notes
    from memory.profiles.profiles import Profiles
    from memory.recall.recall import Recall
    from memory.redaction.redactor import Redactor
    from memory.store.db import Database
    from memory.subjects import UserDirectory
    from memory.threads import Threads
    from skills.loader import SkillIndex


@dataclass(frozen=True)
class Deps:
    """Everything a listener may use; built once by `build_app`, passed to every `register`."""

    settings: Settings
    db: Database
    clock: Clock
    metrics: Metrics
    dedupe: Dedupe
    pacer: ChannelPacer
    home: HomeTeam
    users: UserDirectory
    channels: ChannelDirectory
    memberships: Memberships
    redactor: Redactor
    incidents: Incidents
    notes: Notes
    recall: Recall
    profiles: Profiles
    threads: Threads
    episodes: Episodes
    controls: Controls
    knowledge: Knowledge | None
    skills: SkillIndex | None
    answering: Answering
    generator: Generator | None
    guarded: GuardedActions
    feedback: Feedback
    saves: SourceSaves
    # Message events of a channel are stored in the order they arrived (`ArrivalOrder`).
    arrival: ArrivalOrder = field(default_factory=ArrivalOrder)
