"""The guarded-request state machine, field by field: what a request records, what every
audit row says, who may decide, and what an execution stores, with the real database,
redactor and command executor (issue 17). tests/bot/test_guarded.py has the scenarios."""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.guarded.approvers import ApproverDirectory
from bot.guarded.catalogue import Catalogue, load_catalogue
from bot.guarded.requests import (
    BadRunCommand,
    Decision,
    GuardedActions,
    Refused,
    Request,
    UnknownRequest,
    params_hash,
    parse_run,
)
from memory.clock import iso
from memory.redaction.redactor import Redactor
from memory.store import guarded as store
from memory.store.db import Database
from tests.conftest import FakeClock
from tests.fakes.crashing_recognizer import crashing_redactor

BOSS, OTHER_BOSS, ALICE = "U0BOSS", "U0BOSS2", "U0ALICE"


def catalogue_file(tmp_path: Path, actions: str) -> Catalogue:
    path = tmp_path / "actions.yml"
    path.write_text("actions:\n" + actions, "utf-8")
    return load_catalogue(path)


def echo(tmp_path: Path, *, name: str = "echo", extra: str = "", dry_run: bool = False) -> str:
    """An action whose command prints its parameter (the real command executor runs it)."""
    script = "import sys; print('said', sys.argv[1])"
    return f"""
  {name}:
    title: echo
    description: Print a word
    risk: medium
    parameters:
      word: {{type: string, pattern: '[^ ]{{1,80}}'}}
    dry_run: {str(dry_run).lower()}
    ttl: 2h
    executor: {{type: command, argv: ["{sys.executable}", "-c", "{script}", "{{word}}"]}}
{extra}"""


def actions(db: Database, catalogue: Catalogue, redactor: Redactor, clock: FakeClock,
            approvers: frozenset[str] = frozenset({BOSS, OTHER_BOSS}),
            **kwargs: Any) -> GuardedActions:  # fmt: skip
    directory = ApproverDirectory(None, approvers)
    return GuardedActions(db, catalogue, directory, redactor, clock=clock, **kwargs)


async def ask(
    g: GuardedActions,
    text: str = "echo word=hello",
    *,
    click: str = "c1",
    user: str = ALICE,
    resolved: bool = False,
    thread_ts: str | None = "1700.1",
) -> tuple[Request, bool]:
    action, params = parse_run(text, g.catalogue)
    return await g.request(
        action=action, params=params, team_id="T1", channel_id="C1", thread_ts=thread_ts,
        incident_id="inc-7", incident_resolved=resolved, click_id=click,
        subject_id=f"T1/{user}", user_id=user, source="/incident run",
    )  # fmt: skip


async def decide(g: GuardedActions, rid: int, user: str = BOSS, *, yes: bool = True) -> Any:
    return await g.decide(rid, team_id="T1", user_id=user, subject_id=f"T1/{user}", approve=yes)


async def audit(db: Database) -> list[dict[str, Any]]:
    """Every audit row as a dict, its detail parsed."""
    rows = await store.query_audit(db)
    return [{**dict(r), "detail_json": json.loads(r["detail_json"])} for r in rows]


async def closed_now(db: Database, clock: FakeClock, rid: int, event: str, actor: str) -> None:
    """The request's last audit row is `event` by `actor` (no detail), and it was decided now."""
    last = (await audit(db))[-1]
    assert (last["event"], last["actor"], last["request_id"], last["detail_json"]) == (
        event,
        actor,
        rid,
        {},
    )
    row = await store.get_request(db, rid)
    assert row is not None and row["decided_at"] == iso(clock.now)


async def test_a_request_records_who_asked_what_where_and_until_when(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, created = await ask(g)
    assert created
    assert req == Request(
        id=req.id,
        team_id="T1",
        channel_id="C1",
        thread_ts="1700.1",
        message_ts=None,
        incident_id="inc-7",
        action="echo",
        params={"word": "hello"},
        params_hash=params_hash("echo", {"word": "hello"}),
        requested_by="T1/U0ALICE",
        requester_user=ALICE,
        source="/incident run",
        risk="medium",
        approvals_needed=1,
        dry_run=False,
        state="requested",
        created_at=clock.now,
        expires_at=clock.now + timedelta(hours=2),
        outcome=None,
    )
    await g.set_message(req.id, "1700.9")
    assert (await g.get(req.id)).message_ts == "1700.9"
    [row] = await audit(db)
    assert row == {
        "at": iso(clock.now),
        "team_id": "T1",
        "channel_id": "C1",
        "incident_id": "inc-7",
        "request_id": req.id,
        "action": "echo",
        "event": "requested",
        "actor": "T1/U0ALICE",
        "detail_json": {
            "parameters": {"word": "hello"},
            "source": "/incident run",
            "dry_run": False,
        },
    }


async def test_the_same_click_twice_returns_the_first_request_and_audits_it_once(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    first, created = await ask(g)
    again, created_again = await ask(g, "echo word=other")
    assert (created, created_again) == (True, False)
    assert again == first
    other, created_other = await ask(g, click="c2")
    assert created_other and other.id != first.id
    assert [r["request_id"] for r in await audit(db)] == [first.id, other.id]


def test_the_parameter_hash_is_canonical_and_covers_the_action_and_every_value() -> None:
    h = params_hash("echo", {"a": "1", "b": "2"})
    assert h == params_hash("echo", {"b": "2", "a": "1"})  # order does not matter
    assert len(h) == 64 and all(c in "0123456789abcdef" for c in h)
    assert h != params_hash("echo2", {"a": "1", "b": "2"})
    assert h != params_hash("echo", {"a": "1", "b": "3"})
    assert h != params_hash("echo", {"a": "1"})


def test_the_parameter_hash_stays_what_earlier_versions_stored() -> None:
    """Requests approved before an upgrade are re-checked after it against their stored hash:
    the canonical form (sorted JSON of the action and its parameters) may never change."""
    stored = b'{"action": "echo", "params": {"word": "hello"}}'
    assert params_hash("echo", {"word": "hello"}) == hashlib.sha256(stored).hexdigest()


async def test_one_execution_is_audited_step_by_step_and_stamps_each_move(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    """requested → approved → executing → succeeded: who did each step, with what detail, at
    which time; the outcome is the command's own output."""
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    clock.advance(minutes=1)
    decided = await decide(g, req.id)
    assert decided.run and decided.event == "approved"
    assert decided.decisions == (Decision("T1/U0BOSS", BOSS, "approve"),)
    assert await g.decisions(req.id) == decided.decisions
    clock.advance(minutes=1)
    done = await g.execute(req.id)
    assert (done.state, done.outcome) == ("succeeded", "exit 0 said hello")
    rows = await audit(db)
    assert [(r["event"], r["actor"], r["detail_json"]) for r in rows[1:]] == [
        ("approved", "T1/U0BOSS", {}),
        ("executing", "opsmemory", {"dry_run": False}),
        ("succeeded", "opsmemory", {"detail": "exit 0 said hello"}),
    ]
    assert {(r["team_id"], r["channel_id"], r["incident_id"], r["request_id"]) for r in rows} == {
        ("T1", "C1", "inc-7", req.id)
    }
    assert [r["at"] for r in rows[1:]] == [iso(clock.now - timedelta(minutes=1))] + [
        iso(clock.now)
    ] * 2
    row = await store.get_request(db, req.id)
    assert row is not None
    assert (row["decided_at"], row["started_at"], row["finished_at"]) == (
        iso(clock.now - timedelta(minutes=1)),
        iso(clock.now),
        iso(clock.now),
    )
    assert await g.execute(req.id) == done  # a second call runs nothing


async def test_only_an_approved_request_executes(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    assert await g.execute(req.id) == req  # still waiting for its approver: unchanged
    assert [r["event"] for r in await audit(db)] == ["requested"]


async def test_what_an_execution_prints_is_redacted_before_it_is_stored(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    script = "print('rotated; new key AKIAIOSFODNN7EXAMPLE')"
    cat = catalogue_file(
        tmp_path,
        f"""
  rotate:
    title: rotate
    description: Rotate the key
    risk: low
    dry_run: false
    executor: {{type: command, argv: ["{sys.executable}", "-c", "{script}"]}}
""",
    )
    g = actions(db, cat, redactor, clock)
    req, _ = await ask(g, "rotate")
    await decide(g, req.id)
    done = await g.execute(req.id)
    assert done.outcome == "exit 0 rotated; new key <AWS_ACCESS_KEY>"
    assert (await audit(db))[-1]["detail_json"] == {"detail": done.outcome}


async def test_output_that_cannot_be_checked_for_secrets_is_withheld(
    db: Database, clock: FakeClock, tmp_path: Path
) -> None:
    """Fail closed: with redaction failing, neither the request nor the audit keeps the raw
    output (the action has no parameters, so requesting it needs no redaction)."""
    script = "print('secret output')"
    cat = catalogue_file(
        tmp_path,
        f"""
  hello:
    title: hello
    description: Say hello
    risk: low
    dry_run: false
    executor: {{type: command, argv: ["{sys.executable}", "-c", "{script}"]}}
""",
    )
    g = actions(db, cat, crashing_redactor(), clock)
    req, _ = await ask(g, "hello")
    await decide(g, req.id)
    done = await g.execute(req.id)
    withheld = "(output withheld: it could not be checked for secrets)"
    assert (done.state, done.outcome) == ("succeeded", withheld)
    assert (await audit(db))[-1]["detail_json"] == {"detail": withheld}


def webhook(url: str, *, dry_run: bool) -> str:
    return f"""
  notify:
    title: notify
    description: Tell the pipeline
    risk: low
    parameters:
      word: {{type: string, pattern: '[a-z]{{1,20}}'}}
    dry_run: {str(dry_run).lower()}
    executor: {{type: webhook, url: "{url}"}}
"""


@pytest.mark.parametrize(("incident", "shown"), [("inc-7", "inc-7"), (None, "")])
async def test_a_dry_run_webhook_shows_the_exact_body_it_would_send(
    db: Database,
    redactor: Redactor,
    clock: FakeClock,
    tmp_path: Path,
    incident: str | None,
    shown: str,
) -> None:
    g = actions(db, catalogue_file(tmp_path, webhook("https://hooks.example/x", dry_run=True)),
                redactor, clock)  # fmt: skip
    action, params = parse_run("notify word=deploy", g.catalogue)
    req, _ = await g.request(
        action=action, params=params, team_id="T1", channel_id="C1", thread_ts=None,
        incident_id=incident, incident_resolved=False, click_id="c", subject_id="T1/U0ALICE",
        user_id=ALICE, source="button",
    )  # fmt: skip
    assert req.dry_run is True
    await decide(g, req.id)
    done = await g.execute(req.id)
    body = {
        "action": "notify",
        "channel_id": "C1",
        "incident_id": shown,
        "parameters": {"word": "deploy"},
        "request_id": req.id,
        "team_id": "T1",
    }
    sent = json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert done.outcome == f"dry run: would POST {sent} to https://hooks.example/x"


async def test_a_real_webhook_is_signed_with_the_secret_and_sent_on_the_bots_session(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    import aiohttp

    from tests.fakes.webhook_receiver import WebhookReceiver

    receiver = WebhookReceiver("s3cret")
    url = await receiver.start()
    sent: list[str] = []

    async def on_start(_: object, __: object, params: aiohttp.TraceRequestStartParams) -> None:
        sent.append(str(params.url))

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_start)
    try:
        async with aiohttp.ClientSession(trace_configs=[trace]) as session:
            g = actions(db, catalogue_file(tmp_path, webhook(url, dry_run=False)), redactor,
                        clock, webhook_secret="s3cret", session=session)  # fmt: skip
            req, _ = await ask(g, "notify word=deploy")
            await decide(g, req.id)
            done = await g.execute(req.id)
    finally:
        await receiver.stop()
    assert (done.state, done.outcome) == ("succeeded", 'HTTP 200 {"ok": true, "run": 1}')
    assert receiver.rejected == 0
    assert [c.body["parameters"] for c in receiver.calls] == [{"word": "deploy"}]
    assert sent == [url]


async def test_a_request_expiring_at_the_moment_it_would_run_does_not_run(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    assert (await decide(g, req.id)).run
    clock.now = req.expires_at  # the ttl ends exactly now
    done = await g.execute(req.id)
    assert (done.state, done.outcome) == ("failed", "not run: the request expired before it ran")
    last = (await audit(db))[-1]
    assert (last["event"], last["actor"], last["detail_json"]) == (
        "failed",
        "opsmemory",
        {"reason": "not run: the request expired before it ran"},
    )
    row = await store.get_request(db, req.id)
    assert row is not None and row["finished_at"] == iso(clock.now)
    assert row["started_at"] is None


async def test_execution_asks_slack_again_who_is_in_an_approver_group(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    """Group members are cached for deciding, never for running: an approver who left the
    group between the approval and the run stops it."""
    from slack_sdk.web.async_client import AsyncWebClient

    from bot.standin import FakeSlack

    slack = FakeSlack()
    slack.workspace.usergroups["S0SRE"] = [BOSS]
    await slack.start()
    client = AsyncWebClient(token=slack.workspace.bot_token, base_url=slack.api_url)
    try:
        cat = catalogue_file(tmp_path, echo(tmp_path, extra="    approvers: {groups: [S0SRE]}"))
        g = GuardedActions(db, cat, ApproverDirectory(client, frozenset()), redactor, clock=clock)
        assert await g.approvers_for(cat.actions["echo"]) == frozenset({BOSS})
        req, _ = await ask(g)
        assert (await decide(g, req.id)).run
        slack.workspace.usergroups["S0SRE"] = [OTHER_BOSS]  # BOSS left the group meanwhile
        done = await g.execute(req.id)
    finally:
        if client.session is not None:
            await client.session.close()
        await slack.stop()
    assert (done.state, done.outcome) == (
        "failed",
        "not run: an approver is no longer allowed to approve it",
    )


async def test_a_restart_marks_an_interrupted_run_unknown_audited_and_stamped(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    from bot.answer import messages

    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    await decide(g, req.id)
    async with db.transaction() as tx:
        await store.move(tx, req.id, from_state="approved", to_state="executing", at="x")
    clock.advance(minutes=5)
    [interrupted], executed = await g.recover()
    assert executed == []
    assert (interrupted.state, interrupted.outcome) == ("unknown", messages.GUARDED_INTERRUPTED)
    last = (await audit(db))[-1]
    assert (last["event"], last["actor"], last["at"], last["detail_json"]) == (
        "unknown",
        "opsmemory",
        iso(clock.now),
        {"reason": "restarted while executing"},
    )
    row = await store.get_request(db, req.id)
    assert row is not None and row["finished_at"] == iso(clock.now)


async def test_the_expiry_job_skips_a_long_lived_request_and_expires_a_later_short_one(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    """The job looks at every waiting request, not only up to the first one still in time."""
    cat = catalogue_file(
        tmp_path, echo(tmp_path) + echo(tmp_path, name="quick").replace("ttl: 2h", "ttl: 10m")
    )
    g = actions(db, cat, redactor, clock)
    long_lived, _ = await ask(g, click="long")
    short, _ = await ask(g, "quick word=hi", click="short")
    assert long_lived.id < short.id
    clock.advance(minutes=10)
    [expired] = await g.expire_due()
    assert (expired.id, expired.state) == (short.id, "expired")
    assert (await g.get(long_lived.id)).state == "requested"
    await closed_now(db, clock, short.id, "expired", "opsmemory")


async def test_who_may_decide_is_said_and_every_refusal_is_audited_with_its_reason(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g, user=BOSS)
    with pytest.raises(Refused) as own:
        await decide(g, req.id, BOSS)
    assert own.value.reason == "own request"
    with pytest.raises(Refused) as stranger:
        await decide(g, req.id, "U0BOB")
    assert stranger.value.reason == "not an approver"
    assert str(stranger.value) == (
        "You cannot approve `echo`: only its approvers can decide it "
        "(<@U0BOSS>, <@U0BOSS2>). Nothing changed."
    )
    with pytest.raises(Refused, match=r"^You cannot deny `echo`"):
        await decide(g, req.id, "U0BOB", yes=False)
    refusals = [(r["actor"], r["detail_json"]) for r in await audit(db) if r["event"] == "refused"]
    assert refusals == [
        ("T1/U0BOSS", {"reason": "approve: own request"}),
        ("T1/U0BOB", {"reason": "approve: not an approver"}),
        ("T1/U0BOB", {"reason": "deny: not an approver"}),
    ]
    # After a restart with nobody left on the approver list, the refusal says so.
    nobody = actions(db, g.catalogue, redactor, clock, approvers=frozenset())
    with pytest.raises(Refused, match=r"\(nobody \(the catalogue lists no one\)\)"):
        await decide(nobody, req.id, OTHER_BOSS)


async def test_a_closed_request_answers_with_the_decisions_that_closed_it(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    await decide(g, req.id, yes=False)
    late = await decide(g, req.id, OTHER_BOSS)
    assert (late.event, late.run) == ("closed", False)
    assert late.decisions == (Decision("T1/U0BOSS", BOSS, "deny"),)


async def test_an_unknown_request_says_how_to_request_again(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    from bot.answer import messages

    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    with pytest.raises(UnknownRequest) as err:
        await g.get(404)
    assert str(err.value) == messages.GUARDED_UNKNOWN_REQUEST
    with pytest.raises(BadRunCommand):
        parse_run("reboot", g.catalogue)


async def test_a_request_on_a_resolved_incident_is_refused_audited_and_not_stored(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    with pytest.raises(Refused) as err:
        await ask(g, resolved=True)
    assert err.value.reason == "incident resolved"
    assert str(err.value) == (
        "This incident is resolved, and `echo` may not run on a resolved incident; reopen it "
        "with `/incident status open` first. Nothing was requested."
    )
    assert await db.fetchall("SELECT id FROM guarded_requests") == []
    assert await audit(db) == [
        {
            "at": iso(clock.now),
            "team_id": "T1",
            "channel_id": "C1",
            "incident_id": "inc-7",
            "request_id": None,
            "action": "echo",
            "event": "refused",
            "actor": "T1/U0ALICE",
            "detail_json": {
                "reason": "request: incident resolved",
                "parameters": {"word": "hello"},
            },
        }
    ]
    allowed = catalogue_file(tmp_path, echo(tmp_path, extra="    allow_when_resolved: true"))
    req, _ = await ask(actions(db, allowed, redactor, clock), resolved=True)
    assert req.state == "requested"


async def test_a_request_nobody_else_could_approve_is_refused_with_the_counts(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    """Two approvals needed, two approvers, one of them asking: only one other could approve."""
    two = catalogue_file(tmp_path, echo(tmp_path, extra="    approvals_required: 2"))
    g = actions(db, two, redactor, clock)
    with pytest.raises(Refused) as err:
        await ask(g, user=BOSS)
    assert err.value.reason == "cannot ever be approved"
    assert str(err.value).startswith(
        "`echo` needs 2 approval(s) from someone other than you, and only 1 other approver(s) "
        "exist, so this request could never be approved."
    )
    [row] = await audit(db)
    assert (row["event"], row["request_id"], row["detail_json"]["reason"]) == (
        "refused",
        None,
        "request: cannot ever be approved",
    )
    req, _ = await ask(g, user=ALICE)  # asked by someone else, both approvers remain
    assert req.approvals_needed == 2
    may = catalogue_file(
        tmp_path, echo(tmp_path, extra="    approvals_required: 2\n    requester_may_approve: true")
    )
    mine, _ = await ask(actions(db, may, redactor, clock), user=BOSS, click="c3")
    assert mine.state == "requested"


async def test_a_secret_in_a_parameter_is_refused_naming_the_parameter(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    with pytest.raises(BadRunCommand) as err:
        await ask(g, "echo word=AKIAIOSFODNN7EXAMPLE")
    assert str(err.value) == (
        "The value of `word` looks like a secret or personal data, which requests never store; "
        "nothing was requested."
    )


async def test_a_second_approval_by_the_same_approver_is_a_duplicate_that_runs_nothing(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    two = catalogue_file(tmp_path, echo(tmp_path, extra="    approvals_required: 2"))
    g = actions(db, two, redactor, clock)
    req, _ = await ask(g)
    first = await decide(g, req.id)
    assert (first.event, first.run, first.request.state) == ("approved", False, "requested")
    again = await decide(g, req.id)
    assert (again.event, again.run, again.request.state) == ("duplicate", False, "requested")
    assert len(again.decisions) == 1
    second = await decide(g, req.id, OTHER_BOSS)
    assert (second.event, second.run, second.request.state) == ("approved", True, "approved")


async def test_a_denial_closes_the_request_stamped_and_audited(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    clock.advance(minutes=3)
    denied = await decide(g, req.id, yes=False)
    assert (denied.event, denied.run, denied.request.state) == ("denied", False, "denied")
    assert denied.decisions == (Decision("T1/U0BOSS", BOSS, "deny"),)
    await closed_now(db, clock, req.id, "denied", "T1/U0BOSS")


async def test_an_approval_at_the_moment_of_expiry_expires_the_request_instead(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, catalogue_file(tmp_path, echo(tmp_path)), redactor, clock)
    req, _ = await ask(g)
    clock.now = req.expires_at
    result = await decide(g, req.id)
    assert (result.event, result.run, result.request.state) == ("expired", False, "expired")
    assert result.decisions == ()  # the click is not recorded as an approval
    await closed_now(db, clock, req.id, "expired", "opsmemory")


class ClickInBetween(ApproverDirectory):
    """The approver list, while another approver's click (another replica) is decided in
    the moment between this click's first look at the request and its transaction."""

    def __init__(self, approvers: frozenset[str]) -> None:
        super().__init__(None, approvers)
        self.g: GuardedActions | None = None
        self.request_id = 0
        self.other: Any = None

    async def allowed(self, action: Any, *, fresh: bool = False) -> frozenset[str]:
        if self.g is not None:
            g, self.g = self.g, None  # the other click looks itself up without a detour
            self.other = await decide(g, self.request_id, OTHER_BOSS)
        return await super().allowed(action, fresh=fresh)


async def test_a_click_that_loses_the_race_to_another_click_changes_nothing(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    directory = ClickInBetween(frozenset({BOSS, OTHER_BOSS}))
    g = GuardedActions(db, catalogue_file(tmp_path, echo(tmp_path)), directory, redactor,
                       clock=clock)  # fmt: skip
    req, _ = await ask(g)
    directory.g, directory.request_id = g, req.id
    late = await decide(g, req.id, BOSS)
    assert (directory.other.event, directory.other.run) == ("approved", True)
    assert (late.event, late.run, late.request.state) == ("closed", False, "approved")
    assert late.decisions == (Decision("T1/U0BOSS2", OTHER_BOSS, "approve"),)


def scale(tmp_path: Path) -> Catalogue:
    return catalogue_file(
        tmp_path,
        echo(tmp_path)
        + """
  scale:
    title: scale
    description: Set the replicas
    risk: low
    parameters:
      service: {type: string, allowed: [checkout, payments]}
      replicas: {type: integer, min: 1, max: 5}
    executor: {type: webhook, url: "https://hooks.example/x"}
""",
    )


SCALE_USAGE = "Usage: `/incident run scale service=<checkout | payments> replicas=<1–5>`"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Name the action to run: `/incident run <action> key=value …`. "
             "Actions: `echo`, `scale`."),
        ("x" * 50, f"`{'x' * 40}` is not in the action catalogue. Actions: `echo`, `scale`."),
        ("scale checkout", f"`checkout` is not `key=value`. {SCALE_USAGE}"),
        ("scale " + "y" * 50, f"`{'y' * 40}` is not `key=value`. {SCALE_USAGE}"),
        ("scale " + "k" * 40 + "=1", f"`{'k' * 30}` is not a parameter of this action. "
                                     f"{SCALE_USAGE}"),
        ("scale replicas=9", f"`replicas` must be between 1 and 5. {SCALE_USAGE}"),
        ("scale", f"Missing service, replicas; nothing is filled in for you. {SCALE_USAGE}"),
    ],
)  # fmt: skip
def test_a_bad_run_command_is_answered_with_the_exact_problem_and_the_usage(
    tmp_path: Path, text: str, says: str
) -> None:
    with pytest.raises(BadRunCommand) as err:
        parse_run(text, scale(tmp_path))
    assert str(err.value) == says


def test_an_empty_catalogue_says_there_are_no_actions() -> None:
    with pytest.raises(BadRunCommand) as err:
        parse_run("", Catalogue.empty())
    assert str(err.value).endswith("Actions: none.")


def test_a_value_may_hold_an_equals_sign_and_the_action_name_any_case(tmp_path: Path) -> None:
    action, params = parse_run('ECHO word="a=b"', scale(tmp_path))
    assert (action.name, params) == ("echo", {"word": "a=b"})


async def test_parameters_are_stored_in_one_order_whatever_order_they_were_typed(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path
) -> None:
    g = actions(db, scale(tmp_path), redactor, clock)
    req, _ = await ask(g, "scale service=checkout replicas=2")
    assert list(req.params) == ["replicas", "service"]
    row = await store.get_request(db, req.id)
    assert row is not None and row["params_json"] == '{"replicas": "2", "service": "checkout"}'
