"""The sandbox's seeded scenario: people, channels and a few incident conversations.

Played through the real bot, as Slack would deliver it (signed events and slash commands to the
bot's HTTP endpoint), so what the bot remembers is exactly what it would have captured in a real
workspace: an earlier, resolved incident to be found as "similar", an incident under way with a
realistic thread, the next day's incident, a private channel and a digest in #general.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from bot.runtime import Runtime
from bot.standin import SlackDriver, Workspace

ONCALL, APPROVER, ENGINEER, GUEST = "U0DANA", "U0SAM", "U0LEE", "U0JO"
PAST, INCIDENT, NEXT_DAY, PRIVATE, GENERAL = (
    "C0INC087",
    "C0INC101",
    "C0INC102",
    "G0INC103",
    "C0GENERAL",
)
APPROVERS = (APPROVER,)

# The sandbox's guarded actions: dry runs only (they show what would run, nothing runs), so a
# newcomer can request and approve one without a deploy pipeline behind it.
CATALOGUE = f"""
actions:
  rollback:
    title: roll back
    description: Roll a service back to an earlier release (sandbox, dry run)
    aliases: [roll back, rollback]
    risk: medium
    parameters:
      service: {{type: string, allowed: [checkout-api, search-api]}}
      version: {{type: string, pattern: 'v\\d+\\.\\d+'}}
    approvers: {{users: [{APPROVER}]}}
    ttl: 30m
    dry_run: true
    executor:
      type: command
      argv: [kubectl, rollout, undo, "deployment/{{service}}", "--to-revision={{version}}"]
  scale_out:
    title: scale out
    description: Set a service's replica count (sandbox, dry run)
    aliases: [scale out, scale up]
    risk: low
    parameters:
      service: {{type: string, allowed: [checkout-api, search-api]}}
      replicas: {{type: integer, min: 2, max: 20}}
    approvers: {{users: [{APPROVER}]}}
    dry_run: true
    executor:
      type: command
      argv: [kubectl, scale, "deployment/{{service}}", "--replicas={{replicas}}"]
"""


@dataclass(frozen=True)
class Person:
    id: str
    name: str
    real_name: str
    role: str
    guest: bool = False


PEOPLE = (
    Person(ONCALL, "dana", "Dana Okafor", "on-call engineer"),
    Person(APPROVER, "sam", "Sam Reyes", "incident commander, approver"),
    Person(ENGINEER, "lee", "Lee Chen", "engineer"),
    Person(GUEST, "jo.vendor", "Jo Marsh", "guest from a vendor", guest=True),
)


def add_people_and_channels(ws: Workspace) -> None:
    """Users and channels only: what the stand-in holds before anyone says anything."""
    for p in PEOPLE:
        ws.add_user(p.id, p.name, real_name=p.real_name, is_restricted=p.guest)
    everyone = [p.id for p in PEOPLE]
    staff = [ONCALL, APPROVER, ENGINEER]
    ws.add_channel(PAST, "inc-87-checkout-db-pool", members=staff)
    ws.add_channel(INCIDENT, "inc-101-checkout-latency", members=everyone)
    ws.add_channel(NEXT_DAY, "inc-102-search-errors", members=staff)
    ws.add_channel(PRIVATE, "inc-103-leaked-api-key", private=True, members=[ONCALL, APPROVER])
    ws.add_channel(GENERAL, "general", members=everyone)


# (speaker, text, reply-to-root?) — generic SRE conversations, nobody's real incident.
PAST_THREAD = [
    (ONCALL, "checkout-api p99 latency at 3.8s, error rate 4%. Paging DB on-call.", False),
    (ENGINEER, "checkout-db connection pool is at 100/100, requests queue for a connection.", True),
    (
        APPROVER,
        "Decision: raise the pool to 160 and restart checkout-api pods one at a time.",
        True,
    ),
    (ENGINEER, "Root cause: the nightly report job held 60 connections open for 20 minutes.", True),
    (
        ONCALL,
        "Latency back to 180ms after the pool change. Moved the report job to the replica.",
        True,
    ),
]
CURRENT_THREAD = [
    (ONCALL, "checkout-api p99 latency climbing since the 14:05 deploy of v2.31, now 2.9s.", False),
    (ENGINEER, "Error budget burn is 6x. Most slow requests wait on checkout-db.", True),
    (ONCALL, "DB connections at 96% of the pool; no change in traffic volume.", True),
    (APPROVER, "Let's check whether v2.31 changed the pool settings before rolling back.", True),
]
# The next day's thread opens the way most do: the alerting integration posts, people reply.
NEXT_DAY_ALERT = [
    {
        "fallback": "[FIRING:1] KubePodCrashLooping search/search-api",
        "title": "[FIRING:1] KubePodCrashLooping search/search-api",
        "text": "Pod search/search-api-6d9c is restarting repeatedly (CrashLoopBackOff).",
        "color": "danger",
        "fields": [{"title": "severity", "value": "warning", "short": True}],
    }
]
NEXT_DAY_THREAD = [
    (ENGINEER, "search-api 5xx rate at 12% after the index rebuild started at 02:00.", True),
    (ONCALL, "Pods are OOMKilled during the rebuild; memory limit is 2Gi.", True),
]
PRIVATE_THREAD = [
    (
        ONCALL,
        "An API key for the payments sandbox was pasted in a public gist. Rotating now.",
        False,
    ),
    (APPROVER, "Keep this channel private until the rotation and the audit are done.", True),
]


async def _converse(
    driver: SlackDriver, channel: str, lines: list[tuple[str, str, bool]], root: str = ""
) -> tuple[str, int]:
    """Post a conversation as people would (replies under `root`, when it is already posted);
    returns the root's ts and how many were posted."""
    for user, text, reply in lines:
        msg, _ = await driver.post(channel, user, text, thread_ts=root if reply else None)
        root = root or msg.ts
    return root, len(lines)


async def _captured(runtime: Runtime, team: str, channel: str, root: str, count: int) -> None:
    """Wait until the bot has stored the whole thread (capture runs after the ack)."""
    deadline = time.monotonic() + 60
    while len(await runtime.deps.threads.messages(team, channel, root)) < count:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the bot did not capture the seeded thread in {channel}")
        await asyncio.sleep(0.05)


async def play(driver: SlackDriver, runtime: Runtime) -> None:
    """Play the scenario through the bot: incidents opened, conversations, one resolved and
    rolled up into an episode, the digest posted to #general."""
    ws = driver.ws
    team = ws.team_id
    await driver.command(PAST, ONCALL, "open sev2 Checkout DB connection pool exhausted")
    root, n = await _converse(driver, PAST, PAST_THREAD)
    await driver.command(
        PAST, ENGINEER, "decision raise checkout-db pool to 160; move reports to replica"
    )
    await _captured(runtime, team, PAST, root, n)
    await driver.command(PAST, APPROVER, "status resolved")

    await driver.command(INCIDENT, ONCALL, "open sev2 Checkout latency after v2.31 deploy")
    root, n = await _converse(driver, INCIDENT, CURRENT_THREAD)
    await _captured(runtime, team, INCIDENT, root, n)

    await driver.command(PRIVATE, ONCALL, "open sev1 Leaked payments sandbox API key")
    root, n = await _converse(driver, PRIVATE, PRIVATE_THREAD)
    await _captured(runtime, team, PRIVATE, root, n)

    from bot.scheduler import Jobs

    jobs = Jobs(runtime.deps, runtime.app.client, team_id=team)
    await jobs.roll_up_threads()
    await jobs.post_digest()

    # "The next day": opened after the digest, so it is still quiet for the first mention.
    await driver.command(NEXT_DAY, ENGINEER, "open sev3 Search 5xx during index rebuild")
    alert, _ = await driver.app_post(NEXT_DAY, "Alertmanager", "", attachments=NEXT_DAY_ALERT)
    root, n = await _converse(driver, NEXT_DAY, NEXT_DAY_THREAD, root=alert.ts)
    await _captured(runtime, team, NEXT_DAY, root, n + 1)
    await jobs.index_vectors()  # what the scheduler does each minute: meaning search works now
    ws.ephemerals.clear()  # the seeding's own confirmations are nobody's to read
