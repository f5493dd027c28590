"""Small rows (issue 23): an applied post's message row does not repeat what the ledger and
the outbox hold, and a resent copy still gets its whole result back, as first given."""
from __future__ import annotations

import json

from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import eml, make_ctx

POST = '/attack Ghoul with Fight\n/advantage Notice "Loose Floorboards" vs Fair\n/fp spend\n'


def test_a_resent_post_gets_the_whole_result_back_from_a_short_row(chicago, config):
    first = process_message(eml(POST, message_id="short@t"), make_ctx(config, "+0+0,-0-0,00+0"))
    assert first.status == "applied", first.errors
    row = m.Message.get(m.Message.message_id == "short@t")
    whole = json.dumps(first.to_dict())
    kept = json.dumps(row.result)
    assert len(kept) < len(whole) * 0.5, (len(kept), len(whole))
    # of the replies only the first's own id is kept (how a resent copy finds its original)
    assert [set(r) for r in row.result["replies"]] == [{"message_id"}] and all("dice" not in r for r in row.result["results"] if "ledger" in r)
    again = process_message(eml(POST, message_id="short@t"), make_ctx(config, "----"))
    assert again.status == "duplicate"
    assert again.results == first.results      # rolls put back together from the ledger, effects added after
    assert again.errors == first.errors and again.campaign == first.campaign


def test_a_result_the_table_read_as_it_is_points_at_the_archive_record(chicago, config):
    first = process_message(eml("/fp spend\n", message_id="facts@t"), make_ctx(config))
    assert first.status == "applied", first.errors
    row = m.Message.get(m.Message.message_id == "facts@t")
    archived = m.ArchivePost.get_by_id(row.result["archive"])
    assert archived.post_id == "facts@t"
    assert row.result["results"] == [{"fact": 0}]          # not the result again: the archive has it
    assert archived.facts[0]["command"] == "/fp spend"
    again = process_message(eml("/fp spend\n", message_id="facts@t"), make_ctx(config))
    assert again.status == "duplicate" and again.results == first.results


def test_a_reply_s_thread_is_stored_without_its_empty_fields_and_reads_back_the_same():
    from pbp.posts import ThreadRef, thread_from_dict, thread_to_dict

    mail = ThreadRef(source="mail", id="pbp.1@pbp.localhost", chain=("post-1@t",))
    assert thread_to_dict(mail) == {"id": "pbp.1@pbp.localhost", "chain": ["post-1@t"]}
    forum = ThreadRef(source="discourse", id="topic/12/345", parent="topic/12/344", topic="warehouse",
                      reply_to="reply+abc@forum.example.org")
    for thread in (mail, forum, ThreadRef(source="mail"), ThreadRef(source="mail", id="")):
        assert thread_from_dict(json.loads(json.dumps(thread_to_dict(thread)))) == thread
    old = {"source": "mail", "id": "x@t", "parent": None, "chain": [], "topic": None, "reply_to": None}
    assert thread_from_dict(old) == ThreadRef(source="mail", id="x@t")     # rows written before read the same
