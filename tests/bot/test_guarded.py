"""The guarded-action code layer on its own (the SQL layer has tests/memory/store/test_guarded.py):
parsing `/incident run`, the catalogue's rules, refusals, re-checks at execution and restart
recovery, with the real database, redactor and executors (issue 17)."""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.guarded.approvers import ApproverDirectory
from bot.guarded.catalogue import Catalogue, load_catalogue
from bot.guarded.executors import command_argv, sign
from bot.guarded.requests import (
    BadRunCommand,
    GuardedActions,
    Refused,
    UnknownRequest,
    parse_run,
)
from bot.settings import SettingsError
from memory.redaction.redactor import Redactor
from memory.store import guarded as store
from memory.store.db import Database
from tests.conftest import FakeClock
from tests.fakes.webhook_receiver import WebhookReceiver

BOSS, OTHER_BOSS, ALICE = "U0BOSS", "U0BOSS2", "U0ALICE"
EXAMPLE = Path(__file__).parents[2] / "actions.example.yml"


def write_catalogue(tmp_path: Path, counter: Path, *, approvals: int = 1) -> Catalogue:
    script = f"open({str(counter)!r}, 'a').write('run' + chr(10))"
    path = tmp_path / "actions.yml"
    path.write_text(
        f"""
actions:
  restart:
    title: restart
    description: Restart a service
    risk: medium
    parameters:
      service: {{type: string, pattern: '[a-z0-9-]{{1,30}}'}}
      replicas: {{type: integer, min: 1, max: 5}}
    approvals_required: {approvals}
    dry_run: false
    executor: {{type: command, argv: ["{sys.executable}", "-c", "{script}", "{{service}}"]}}
"""
    )
    return load_catalogue(path)


@pytest.fixture
def counter(tmp_path: Path) -> Path:
    return tmp_path / "runs.txt"


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def guarded(db: Database, catalogue: Catalogue, redactor: Redactor, clock: FakeClock,
            approvers: frozenset[str] = frozenset({BOSS, OTHER_BOSS})) -> GuardedActions:  # fmt: skip
    return GuardedActions(db, catalogue, ApproverDirectory(None, approvers), redactor, clock=clock)


async def request(g: GuardedActions, *, click: str = "t1", user: str = ALICE) -> int:
    action, params = parse_run("restart service=checkout replicas=2", g.catalogue)
    req, _ = await g.request(
        action=action, params=params, team_id="T1", channel_id="C1", thread_ts=None,
        incident_id="inc-1", incident_resolved=False, click_id=click,
        subject_id=f"T1/{user}", user_id=user, source="/incident run",
    )  # fmt: skip
    return req.id


async def approve(g: GuardedActions, rid: int, user: str = BOSS, *, yes: bool = True):  # type: ignore[no-untyped-def]
    return await g.decide(rid, team_id="T1", user_id=user, subject_id=f"T1/{user}", approve=yes)


def test_the_shipped_example_catalogue_is_valid() -> None:
    catalogue = load_catalogue(EXAMPLE)
    assert set(catalogue.actions) == {"rollback", "scale_out"}
    assert all(a.dry_run for a in catalogue.actions.values())


def test_catalogue_problems_name_the_file_the_field_and_why(tmp_path: Path) -> None:
    path = tmp_path / "a.yml"
    path.write_text(
        "actions:\n  wipe:\n    title: t\n    description: d\n    risk: low\n"
        "    colour: red\n    parameters:\n      target: {type: string}\n"
        "    executor: {type: command, argv: [rm, '{victim}']}\n"
    )
    with pytest.raises(SettingsError) as err:
        load_catalogue(path)
    where = f"OPSMEMORY_ACTIONS_FILE ({path})"
    assert err.value.problems == [
        f"{where}: actions.wipe.parameters.target: a string parameter needs `allowed` values "
        "or a `pattern`",
        f"{where}: actions.wipe.colour: is not a known field",
    ]
    path.write_text("actions: [\n")
    with pytest.raises(SettingsError, match=r"is not valid YAML at line 2"):
        load_catalogue(path)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "Name the action to run"),
        ("drop_db", "`drop_db` is not in the action catalogue. Actions: `restart`."),
        ("restart service=checkout", "Missing replicas; nothing is filled in for you."),
        ("restart service=checkout replicas=9", "`replicas` must be between 1 and 5."),
        ("restart service=Checkout! replicas=1", "`service` must match"),
        ("restart service=a replicas=1 force=yes", "`force` is not a parameter"),
        ("restart service='a replicas=1", "A quote in the parameters is not closed"),
    ],
)
def test_a_bad_run_command_says_exactly_what_is_wrong(
    tmp_path: Path, counter: Path, text: str, says: str
) -> None:
    with pytest.raises(BadRunCommand) as err:
        parse_run(text, write_catalogue(tmp_path, counter))
    assert says in str(err.value)


async def test_a_parameter_redaction_would_change_is_refused_before_anything_is_stored(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    path = tmp_path / "b.yml"
    path.write_text(
        "actions:\n  notify:\n    title: n\n    description: d\n    risk: low\n"
        "    parameters:\n      who: {type: string, pattern: '[^ ]{1,80}'}\n"
        "    executor: {type: webhook, url: 'https://hooks.example/x'}\n"
    )
    g = guarded(db, load_catalogue(path), redactor, clock)
    action, params = parse_run("notify who=jane.doe@example.com", g.catalogue)
    with pytest.raises(BadRunCommand, match="looks like a secret or personal data"):
        await g.request(action=action, params=params, team_id="T1", channel_id="C1",
                        thread_ts=None, incident_id="inc-1", incident_resolved=False,
                        click_id="t", subject_id="T1/U0ALICE", user_id=ALICE, source="x")  # fmt: skip
    assert await db.fetchall("SELECT id FROM guarded_requests") == []
    assert "example.com" not in json.dumps([tuple(r) for r in await store.query_audit(db)])


async def test_a_request_from_another_team_is_unknown_there(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g)
    with pytest.raises(UnknownRequest):
        await g.decide(rid, team_id="T2", user_id=BOSS, subject_id=f"T2/{BOSS}", approve=True)


async def test_a_closed_request_is_answered_without_reaching_the_writer(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    """The code check alone: a decided request is answered while the one writer is held."""
    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g)
    await approve(g, rid, yes=False)
    held, release = asyncio.Event(), asyncio.Event()

    async def hold_the_writer() -> None:
        async with db.transaction():
            held.set()
            await release.wait()

    holder = asyncio.create_task(hold_the_writer())
    await held.wait()
    try:
        result = await asyncio.wait_for(approve(g, rid, OTHER_BOSS), timeout=5)
    finally:
        release.set()
        await holder
    assert (result.event, result.request.state, result.run) == ("closed", "denied", False)


async def test_refusals_are_audited_and_the_requester_may_still_deny(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g, user=BOSS)
    with pytest.raises(Refused, match="someone else on its approver list"):
        await approve(g, rid, BOSS)
    with pytest.raises(Refused, match=r"You cannot deny `restart`"):
        await approve(g, rid, "U0BOB", yes=False)
    denied = await approve(g, rid, BOSS, yes=False)
    assert denied.event == "denied"
    events = [(r["event"], r["actor"]) for r in await store.query_audit(db)]
    assert events == [("requested", "T1/U0BOSS"), ("refused", "T1/U0BOSS"),
                      ("refused", "T1/U0BOB"), ("denied", "T1/U0BOSS")]  # fmt: skip


async def test_an_approver_removed_before_execution_stops_the_run(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    catalogue = write_catalogue(tmp_path, counter)
    directory = ApproverDirectory(None, frozenset({BOSS}))
    g = GuardedActions(db, catalogue, directory, redactor, clock=clock)
    rid = await request(g)
    decided = await approve(g, rid)
    assert decided.run
    directory._default = frozenset({OTHER_BOSS})  # BOSS leaves the approver list meanwhile
    done = await g.execute(rid)
    assert (done.state, done.outcome) == (
        "failed",
        "not run: an approver is no longer allowed to approve it",
    )
    assert runs(counter) == 0


async def test_tampered_parameters_are_not_run(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g)
    await approve(g, rid)
    await db.execute(
        "UPDATE guarded_requests SET params_json = :p WHERE id = :id",
        {"p": '{"replicas": "2", "service": "payments"}', "id": rid},
    )
    done = await g.execute(rid)
    assert done.outcome == "not run: the parameters differ from those approved"
    assert runs(counter) == 0


async def test_after_a_restart_a_started_run_is_unknown_and_an_unstarted_one_runs_once(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    catalogue = write_catalogue(tmp_path, counter)
    g = guarded(db, catalogue, redactor, clock)
    started, unstarted = await request(g, click="a"), await request(g, click="b")
    for rid in (started, unstarted):
        assert (await approve(g, rid)).run  # the process "dies" before executing either
    async with db.transaction() as tx:  # ... after committing 'executing' for the first
        await store.move(tx, started, from_state="approved", to_state="executing", at="x")
    restarted = guarded(db, catalogue, redactor, clock)
    interrupted, executed = await restarted.recover()
    assert [(r.id, r.state) for r in interrupted] == [(started, "unknown")]
    assert [(r.id, r.state) for r in executed] == [(unstarted, "succeeded")]
    assert runs(counter) == 1
    assert await restarted.recover() == ([], [])  # a second restart runs nothing
    assert runs(counter) == 1


async def test_an_expired_request_cannot_be_approved_even_at_the_last_click(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g)
    clock.advance(minutes=31)  # the default ttl is 30m
    result = await approve(g, rid)
    assert (result.event, result.request.state, result.run) == ("expired", "expired", False)


def test_hostile_values_stay_one_argument_each(tmp_path: Path, counter: Path) -> None:
    action = write_catalogue(tmp_path, counter).actions["restart"]
    argv = command_argv(action.executor, {"service": "; rm -rf / $(reboot)", "replicas": "1"})  # type: ignore[arg-type]
    assert argv[-1] == "; rm -rf / $(reboot)" and len(argv) == 4


def test_the_signature_is_what_a_receiver_verifies() -> None:
    body = b'{"action":"rollback"}'
    receiver = WebhookReceiver("s3cret")
    import time

    ts = str(int(time.time()))
    assert receiver.verifies(ts, body, sign("s3cret", ts, body))
    assert not receiver.verifies(ts, body, sign("other", ts, body))
    assert not receiver.verifies(ts, body + b" ", sign("s3cret", ts, body))


async def test_forget_me_pseudonymises_the_person_in_the_audit_and_keeps_the_facts(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    from memory.controls.controls import Controls

    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g)
    await approve(g, rid)
    await g.execute(rid)
    receipt = await Controls(db, clock).forget_everything("T1/U0ALICE")
    rows = await store.query_audit(db)
    assert [r["event"] for r in rows] == ["requested", "approved", "executing", "succeeded"]
    assert rows[0]["actor"].startswith("forgotten-") and rows[1]["actor"] == "T1/U0BOSS"
    dump = json.dumps([tuple(r) for r in rows]) + json.dumps(
        [tuple(r) for r in await db.fetchall("SELECT * FROM guarded_requests")]
    )
    assert "U0ALICE" not in dump
    assert receipt.counts["guarded_audit_pseudonymised"] == 2


async def test_opsmemory_audit_filters_and_prints_json_lines(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    from tests.bot.test_cli import _opsmemory

    clock.now = datetime.now(UTC)
    g = guarded(db, write_catalogue(tmp_path, counter), redactor, clock)
    rid = await request(g)
    with pytest.raises(Refused):
        await approve(g, rid, "U0BOB")
    await approve(g, rid)
    env = {"OPSMEMORY_DATA_DIR": str(tmp_path)}

    def audit(*args: str) -> list[dict[str, object]]:
        done = _opsmemory("audit", "--json", *args, env=env, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return [json.loads(line) for line in done.stdout.splitlines()]

    everything = audit("--incident", "inc-1", "--since", "1d")
    assert [e["event"] for e in everything] == ["requested", "refused", "approved"]
    assert everything[0]["detail"]["parameters"] == {"replicas": "2", "service": "checkout"}
    assert [e["event"] for e in audit("--user", "U0BOB")] == ["refused"]
    assert audit("--action", "rollback") == []
    assert audit("--since", "2999-01-01") == []
    table = _opsmemory("audit", env=env, cwd=tmp_path)
    assert "refused" in table.stdout and "T1/U0BOB" in table.stdout
    bad = _opsmemory("audit", "--since", "yesterday", env=env, cwd=tmp_path)
    assert bad.returncode == 1 and "is neither a date" in bad.stderr


async def test_an_incident_resolved_after_the_request_stops_the_run(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    from memory.incidents import Incidents
    from tests.memory.contexts import ctx

    incidents = Incidents(db, clock, redactor=redactor)
    inc = await incidents.open(ctx("C1"), title="checkout slow", channel_id="C1")
    g = GuardedActions(db, write_catalogue(tmp_path, counter),
                       ApproverDirectory(None, frozenset({BOSS})), redactor,
                       incidents=incidents, clock=clock)  # fmt: skip
    action, params = parse_run("restart service=checkout replicas=2", g.catalogue)
    req, _ = await g.request(
        action=action, params=params, team_id="T1", channel_id="C1", thread_ts=None,
        incident_id=inc.id, incident_resolved=False, click_id="t", subject_id="T1/U0ALICE",
        user_id=ALICE, source="/incident run",
    )  # fmt: skip
    assert (await approve(g, req.id)).run
    await incidents.set_status("T1", inc.id, "resolved")
    done = await g.execute(req.id)
    assert (done.state, done.outcome) == (
        "failed",
        f"not run: {inc.id} was resolved after the request",
    )
    assert runs(counter) == 0


async def test_a_user_group_slack_cannot_be_asked_about_approves_nothing(tmp_path: Path) -> None:
    """Fail closed: Slack unreachable (connection refused) while resolving a group leaves only
    the users listed by id, so a re-check at execution refuses instead of raising."""
    from slack_sdk.web.async_client import AsyncWebClient

    path = tmp_path / "actions.yml"
    path.write_text(
        """
actions:
  restart:
    title: restart
    description: Restart a service
    risk: low
    approvers: {users: [U0BOSS], groups: [S0SRE]}
    executor: {type: webhook, url: "http://127.0.0.1:9/hook"}
"""
    )
    action = load_catalogue(path).actions["restart"]
    unreachable = AsyncWebClient(token="xoxb-test", base_url="http://127.0.0.1:9/", timeout=2)
    directory = ApproverDirectory(unreachable, frozenset())
    assert await directory.allowed(action, fresh=True) == frozenset({"U0BOSS"})


async def test_the_expiry_job_expires_only_undecided_requests_past_their_time_once(
    db: Database, redactor: Redactor, clock: FakeClock, tmp_path: Path, counter: Path
) -> None:
    """`expire_due` (the scheduler's expiry job) on its own: a request still waiting at its
    expiry moves to expired, audited once; a younger one and an approved one are left alone;
    a second run finds nothing; the expired request can no longer be approved."""
    g = guarded(db, write_catalogue(tmp_path, counter, approvals=2), redactor, clock)
    due = await request(g, click="old")
    approved = await request(g, click="approved")
    assert (await approve(g, approved)).event == "approved"  # one of two: still 'requested'
    decided = await request(g, click="decided")
    assert (await approve(g, decided, BOSS)).request.state == "requested"
    assert (await approve(g, decided, OTHER_BOSS)).request.state == "approved"
    clock.advance(minutes=15)
    young = await request(g, click="young")
    assert await g.expire_due() == []  # nothing is due yet
    clock.advance(minutes=15)  # exactly the 30 min ttl of the first three
    expired = await g.expire_due()
    assert sorted(r.id for r in expired) == sorted([due, approved])
    assert all(r.state == "expired" for r in expired)
    assert (await g.get(decided)).state == "approved"  # decided: its run re-checks expiry
    assert (await g.get(young)).state == "requested"
    assert await g.expire_due() == []  # a second run expires nothing again
    rows = await db.fetchall(
        "SELECT request_id FROM guarded_audit WHERE event = 'expired' ORDER BY request_id"
    )
    assert [r[0] for r in rows] == sorted([due, approved])
    result = await approve(g, due, OTHER_BOSS)  # already closed by the job
    assert (result.event, result.request.state, result.run) == ("closed", "expired", False)
    assert runs(counter) == 0
