"""The sheet history costs a post nothing it has done already (issue 11): the history row is
built from what ``repo.save_table`` compared, so a post dumps each row twice (its snapshot,
then the comparison) and no more, and its queries stay the same however long the history."""
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
    for i, body in enumerate(["/fp spend\n", TIE]):
        t = repo.load_table(chicago)
        rows = len(t.characters) + len(t.aspects)
        calls.clear()
        out = process_message(eml(body, message_id=f"dump-{i}@t"), make_ctx(config, "0000" if body == TIE else ""))
        assert out.status == "applied", out.errors
        assert len(calls) == 2 * rows, (body, len(calls), rows)
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
