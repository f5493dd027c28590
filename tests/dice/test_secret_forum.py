"""On a forum (Discourse by mailing-list mode) a secret roll's part for the GM goes by mail,
never into the topic (issue 25, "Everywhere"); the topic's post carries the commitment and
the roll's secret line, and the reveal at the scene's end."""
from __future__ import annotations

import email
import email.policy
import re

import pytest

from pbp import verify_dice
from pbp.campaigns import add_member, bind_forum
from pbp.pipeline import process_message
from pbp.store import models as m
from tests.forum.discourse_mail import BOT, LIST_ID, SITE, discourse_mail
from tests.helpers import make_ctx

OUTCOMES = re.compile(r"success|fail|tie|=>|dice\s+\[|total|Superb|Great|Mediocre|Terrible", re.I)


@pytest.fixture
def forum_table(chicago):
    """The sample campaign bound to the forum (as tests/forum/test_bymail.py binds it): the
    GM and Ruth play on the forum, Cassandra and the others by mail."""
    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")   # the GM may post there
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    return chicago


def _texts(rows):
    return [(row.recipients, email.message_from_string(row.raw, policy=email.policy.default)
             .get_body(("plain",)).get_content()) for row in rows]


def test_a_secret_roll_on_the_forum(forum_table, config, tmp_path):
    ctx = make_ctx(config)        # real dice: committed
    out = process_message(discourse_mail('/scene start "Docks"\n', poster="tess_gm"), ctx)
    assert out.status == "applied", out.errors
    before = m.OutboxMail.select().count()
    out = process_message(discourse_mail("/as Ghoul overcome Notice vs Fair secret\n", poster="tess_gm", post=1002,
                                         number=2, key="k2", random="r2"), ctx)
    assert out.status == "applied", out.errors
    rows = list(m.OutboxMail.select().where(m.OutboxMail.id > before).order_by(m.OutboxMail.id))
    texts = _texts(rows)
    topic = [t for to, t in texts if any(a.endswith("@" + SITE) for a in to)]
    assert len(topic) == 1, texts
    assert "rolled in secret" in topic[0] and not OUTCOMES.search(topic[0].split("pbp-dice/2")[0]), topic[0]
    assert re.search(r"pbp-dice/2 secret scene=chicago/1 post=\S+ text=\w+ key=\d+ t0=#\d+:4dF:\?", topic[0]), topic[0]
    gm = [t for to, t in texts if to == ["gm@pbp.localhost"]]
    assert gm and "Ghoul overcomes with Notice" in gm[0] and "dice" in gm[0], texts
    # the players who read by mail get the table's version only
    for to, text in texts:
        if "cassandra@pbp.localhost" in to:
            assert not OUTCOMES.search(text.split("pbp-dice/2")[0]), text
    # the topic, saved as text (Discourse's /raw/TOPIC), is checked once the scene ends
    out = process_message(discourse_mail("/scene end\n", poster="tess_gm", post=1003, number=3, key="k3",
                                         random="r3"), ctx)
    assert out.status == "applied", out.errors
    posts = [t for to, t in _texts(m.OutboxMail.select().order_by(m.OutboxMail.id))
             if any(a.endswith("@" + SITE) for a in to)]
    assert len(posts) == 3 and "`pbp-dice/2 reveal-roll scene=chicago/1" in posts[2], posts
    saved = tmp_path / "topic"
    saved.mkdir()
    (saved / "topic-12.md").write_text("\n\n-------------------------\n\n".join(posts), encoding="utf-8")
    good, bad = verify_dice.verify(saved)
    assert not bad and "commitment matches; 1 throws recomputed" in " ".join(good), (good, bad)
