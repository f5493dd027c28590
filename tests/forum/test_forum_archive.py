"""Forum and mail are one story in the archive (issue 26 item 5): the forum_conflict golden,
played in a Discourse topic by the GM, Ruth and Cassandra and by mail by Ethan, is one scene
page with every applied post in order, each saying where it was written."""
from __future__ import annotations

import re

from pbp.archive.site import write_site
from pbp.store import models as m
from tests.play import golden

from .discourse_mail import BOT, LIST_ID, SITE
from .forum_table import ForumTable


def test_forum_posts_and_mails_are_one_story(chicago, config, tmp_path):
    from pbp.campaigns import add_member, bind_forum

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")   # the GM posts there
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "cassandra@pbp.localhost", forum_username="cassandra_v")
    table, _ = golden.play("forum_conflict", config, table=ForumTable(config))
    rows = list(m.ArchivePost.select().order_by(m.ArchivePost.id))
    sources = {r.source for r in rows}
    assert {"mail", "forum"} <= sources, sources
    write_site(chicago, tmp_path)
    page = (tmp_path / "scene-1.html").read_text()
    shown = [r for r in rows if r.shown and r.scene_number == 1]
    ids = [int(n) for n in re.findall(r'<article class="post" id="post-(\d+)"', page)]
    assert ids == [r.id for r in shown], "every post the table saw, forum or mail, in the order played"
    forum_ids = {r.id for r in shown if r.source == "forum"}
    mail_ids = {r.id for r in shown if r.source == "mail"}
    assert forum_ids and mail_ids
    for n in forum_ids:
        article = page[page.index(f'id="post-{n}"'):]
        assert "· forum</small>" in article[:article.index("</h2>") + 10]
