"""A secret roll on a forum played by its API (issue 25, "Everywhere"): the topic's post says
the roll was made and carries its secret line, never its dice or outcome; the GM's part goes
privately. Committed dice (the daemon's real dice), the forum's requests checked against
the published schemas (tests/data/discourse)."""
from __future__ import annotations

import re

from pbp.daemon import Daemon, make_sender
from pbp.rules.dice import RandomDice
from pbp.store import models as m

from .conftest import latest_item
from .test_byapi import SITE, api_config, api_table  # noqa: F401 (fixtures)
from .test_client import created, page

OUTCOMES = re.compile(r"success|fail|tie|=>|dice\s+\[|total|Superb|Great|Mediocre|Terrible|\[[-+0]\]", re.I)


def test_a_secret_roll_by_api_shows_the_topic_nothing_of_its_dice(api_table, api_config, forum, contract):
    items = [latest_item(contract, 43, username="tess_gm", category_id=5, topic_id=7, post_number=4,
                         raw="The Ghoul listens.\n\n/as Ghoul overcome Notice vs Fair secret\n"),
             latest_item(contract, 42, username="tess_gm", category_id=5, topic_id=7, post_number=3,
                         raw='/scene start "Docks"\n')]
    client, transport, _ = forum(("GET", "/posts.json", None, page(contract, *items, latest_item(contract, 40))),
                                 *[("POST", "/posts.json", None, created(contract, id=900 + n, post_number=50 + n))
                                   for n in range(3)])
    d = Daemon(api_config, dice=RandomDice(), environ={"PBP_DISCOURSE_API_KEY": "k"})
    d.forum = client
    d.sender = make_sender(api_config, forum=client)
    m.MailboxState.get_or_create(mailbox=f"discourse:{SITE}", defaults={"last_uid": 40})
    d.run_once()
    assert [r.status for r in m.Message.select().order_by(m.Message.id)] == ["applied", "applied"]
    posts = [x.body for x in transport.exchanges if x.request.method == "POST"]
    topic = [b["raw"] for b in posts if b.get("topic_id") == 7]
    assert len(topic) == 2, posts
    assert "Dice: committed to" in topic[0]
    secret = topic[1]
    assert "rolled in secret" in secret and not OUTCOMES.search(secret.split("pbp-dice/2")[0]), secret
    assert re.search(r"pbp-dice/2 secret scene=chicago/1 post=\S+ text=\w+ key=0 t0=#\d+:4dF:\?", secret), secret
    private = [b for b in posts if b.get("topic_id") != 7]
    gm_mails = [r for r in m.OutboxMail.select() if r.recipients == ["gm@pbp.localhost"]]
    assert private or gm_mails, (posts, [r.recipients for r in m.OutboxMail.select()])
    told = (private[0]["raw"] if private else gm_mails[0].raw)
    assert "Ghoul overcomes with Notice" in told or "Ghoul overcomes" in told, told

