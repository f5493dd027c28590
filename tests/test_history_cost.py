"""The sheet history costs a post nothing it has done already (issue 11): the history row is
built from what ``repo.save_table`` compared, so a post dumps each row twice (its snapshot,
then the comparison) and no more, and its queries stay the same however long the history.
A post after another in the same process (issue 23) takes the table the last one kept, with
its snapshot: it dumps each row once (the comparison), and a row it creates once."""
from __future__ import annotations

import pytest

from pbp.pipeline import process_message
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import counting_queries, eml, make_ctx

TIE = "/overcome Athletics vs Good on tie boost\n"     # Ruth's Good (+3) and 0000: a tie, a boost


def test_a_post_that_changes_a_sheet_dumps_each_row_twice(chicago, config, monkeypatch):
    calls = []
    dump = repo._dump
    monkeypatch.setattr(repo, "_dump", lambda fields: calls.append(1) or dump(fields))
    # the first post loads the table (a dump per row) and compares (another); the second
    # takes what the first kept and only compares, its new boost dumped once as it is stored
    for i, (body, per_row, created) in enumerate([("/fp spend\n", 2, 0), (TIE, 1, 1)]):
        t = repo.load_table(chicago)
        rows = len(t.characters) + len(t.aspects)
        calls.clear()
        out = process_message(eml(body, message_id=f"dump-{i}@t"), make_ctx(config, "0000" if body == TIE else ""))
        assert out.status == "applied", out.errors
        assert len(calls) == per_row * rows + created, (body, len(calls), rows)
        assert m.SheetChange.select().where(m.SheetChange.message_id == f"dump-{i}@t").count() == 1


@pytest.mark.slow
def test_the_queries_of_a_post_do_not_grow_with_the_history(chicago, config):
    counts = []
    with counting_queries(counts):
        for i in range(41):
            counts.append(0)
            out = process_message(eml(TIE, message_id=f"grow-{i}@t"), make_ctx(config, "0000"))
            assert out.status == "applied", out.errors
    assert m.SheetChange.select().count() == 41          # each post changed Ruth's sheet: a boost held
    assert counts[1] == counts[40], counts


def test_a_post_s_history_row_keeps_only_what_it_changed(chicago, config):
    """Issue 23: the row holds the entries the post changed, before and after (a spent fate
    point: two numbers, not two whole sheets), and undo still takes the post back."""
    from pbp.sheethistory import undo

    start = m.Character.get(m.Character.name == "Ruth").fate_points
    out = process_message(eml("/fp spend\n", message_id="small@t"), make_ctx(config))
    assert out.status == "applied", out.errors
    row = m.SheetChange.get(m.SheetChange.message_id == "small@t")
    assert (row.before, row.after) == ({"fate_points": start}, {"fate_points": start - 1})
    undo(chicago, "Ruth", who="gm@pbp.localhost")
    assert m.Character.get(m.Character.name == "Ruth").fate_points == start
