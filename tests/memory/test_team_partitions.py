"""Migration 0010: channel partitions carry the team, in the notes and in every vector table,
and a full member's vector search reaches every public channel of the team (issue 14)."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import numpy as np

from memory.scopes import Requester, visible_partitions
from memory.store import vectors
from memory.store.db import Database
from memory.store.visibility import public_channels

RELEASE_DB = Path(__file__).parents[1] / "fixtures" / "release-0.1.0.db.gz"


async def _vec_parts(db: Database, kind: vectors.VecKind) -> dict[int, str]:
    out: dict[int, str] = {}
    layout = vectors.LAYOUTS[kind]
    for name in await vectors.tables(db, kind):
        rows = await db.fetchall(
            f"SELECT {layout.id_column}, {layout.partition_column} FROM {name}"
        )
        out |= {int(r[0]): str(r[1]) for r in rows}
    return out


async def test_upgrade_moves_notes_and_vectors_to_team_partitions(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    path.write_bytes(gzip.decompress(RELEASE_DB.read_bytes()))
    db = await Database.open(path)
    try:
        notes = await db.fetchall("SELECT id, partition_key FROM memory_notes ORDER BY id")
        assert [r[1] for r in notes] == ["c:T0STANDIN:C0INC42"] * 2 + ["cp:T0STANDIN:G0INC43"]
        bits = await _vec_parts(db, "note")
        assert bits == {int(r[0]): str(r[1]) for r in notes}  # every code moved with its note
        episodes = await _vec_parts(db, "episode")
        assert all(p.startswith(("c:T0STANDIN:", "cp:T0STANDIN:")) for p in episodes.values())
        assert (
            await db.scalar("SELECT count(*) FROM meta WHERE key = 'vec_partitions_pending'") == 0
        )
        # The FTS partition filter follows the key (memory_notes_au): a MATCH on it finds them.
        fts = await db.scalar(
            "SELECT count(*) FROM memory_notes_fts WHERE memory_notes_fts MATCH"
            " 'fts_keys : \"c t0standin c0inc42\"'"
        )
        assert fts == 2
        # A full member asking from another channel searches the moved codes.
        member = Requester.full_member("T0STANDIN/U0BOB", "T0STANDIN", channel_id="C0OTHER")
        parts = visible_partitions(member, public_channel_ids=await public_channels(db, member))
        assert "c:T0STANDIN:C0INC42" in parts and "cp:T0STANDIN:G0INC43" not in parts
        (table,) = await vectors.tables(db, "note")
        meta = await db.scalar("SELECT value FROM meta WHERE key = :k", {"k": "vec_table:" + table})
        info = json.loads(meta)
        found = await vectors.VectorTable("note", dim=info["dim"], digest=info["digest"]).nearest(
            db, np.ones(info["dim"], dtype=np.float32) / info["dim"] ** 0.5, partitions=parts, k=5
        )
        assert {nid for nid, _ in found} == {1, 2}
    finally:
        await db.close()
    # Opening again changes nothing: the vector half ran once.
    again = tmp_path / "again.db"
    shutil.copy(path, again)
    db = await Database.open(again)
    try:
        assert await _vec_parts(db, "note") == bits
    finally:
        await db.close()


async def test_public_channels_lists_the_teams_public_channels_with_memory_only(
    tmp_path: Path,
) -> None:
    db = await Database.open(tmp_path / "m.db")
    try:
        rows = [
            ("T1", "C1", 0, "c:T1:C1"),
            ("T1", "C1", 0, "c:T1:C1"),
            ("T1", "C2", 0, "c:T1:C2"),
            ("T1", "G3", 1, "cp:T1:G3"),
            ("T2", "C4", 0, "c:T2:C4"),
        ]
        async with db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO memory_notes (team_id, scope, channel_id, channel_is_private,"
                " owner_subject_id, partition_key, kind, text, created_at)"
                " VALUES (?, 'channel', ?, ?, 'T1/U1', ?, 'note', 'x', '2026-01-01T00:00:00Z')",
                rows,
            )
        full = Requester.full_member("T1/U1", "T1")
        assert sorted(await public_channels(db, full)) == ["C1", "C2"]
        assert await public_channels(db, Requester.limited("T1/U9", "T1")) == []
        plan = await db.fetchall(
            "EXPLAIN QUERY PLAN SELECT min(partition_key) FROM memory_notes"
            " WHERE partition_key > 'c:T1:' AND partition_key < 'c:T1;'"
        )
        assert "memory_notes_partition" in " ".join(str(r[3]) for r in plan)  # a seek, not a scan
    finally:
        await db.close()
