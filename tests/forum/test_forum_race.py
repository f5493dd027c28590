"""Several daemons on one PostgreSQL database (docs/operating.md) read the same forum post:
it is handled once, and the daemon that loses the race goes on quietly, with no
IntegrityError out of ``process_post`` and nothing of its own kept or sent.

The race is made certain, not hoped for: the loser's look-up of the post's id runs while
the winner, on its own connection in another thread, applies and commits the same post.
Real PostgreSQL; the only thing swapped is the moment the two meet."""
from __future__ import annotations

import itertools
import threading

import pytest

from pbp.store.db import open_database
from pbp.store import models as m
from tests.helpers import make_ctx

from .discourse_mail import BOT, LIST_ID, SITE, discourse_mail

pytestmark = pytest.mark.live
_numbers = itertools.count()


@pytest.fixture
def db(postgres):
    database = open_database(postgres.create_database(f"pbp_forum_race_{next(_numbers)}"))
    yield database
    database.close()


def test_the_same_forum_post_in_two_daemons_is_handled_once(chicago, config, monkeypatch):
    from pbp import pipeline
    from pbp.campaigns import add_member, bind_forum

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    raw = discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", style="current", post=345)
    seen = pipeline._SEEN_KEY
    winner = {}

    def other_daemon_first(key):
        found = seen(key)
        if not winner:      # the other daemon applies the post now, before this one records it
            thread = threading.Thread(target=lambda: winner.update(
                outcome=pipeline.process_message(raw, make_ctx(config, "0+00")), db=m.db.close()))
            winner["started"] = True
            thread.start()
            thread.join(30)
        return found

    monkeypatch.setattr(pipeline, "_SEEN_KEY", other_daemon_first)
    loser = pipeline.process_message(raw, make_ctx(config, "++++"))
    assert winner["outcome"].status == "applied", winner["outcome"].errors
    assert loser.status == "duplicate" and "another daemon" in loser.reason
    assert m.RollRecord.select().count() == 1
    assert m.Message.select().where(m.Message.message_id == f"topic/12/345@{SITE}").count() == 1
    sent = [r.source_id for r in m.OutboxMail.select()]
    assert sent.count(f"topic/12/345@{SITE}") == len(sent) and len(sent) >= 1   # the winner's answers only
