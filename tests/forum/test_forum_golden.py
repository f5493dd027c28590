"""A Fate Condensed conflict played in a Discourse topic, through the same pipeline and the
same golden-transcript check as the mail conversations (tests/play/golden.py)."""
from __future__ import annotations

import re

import pytest

from tests.play import golden

from .discourse_mail import BOT, LIST_ID, SITE
from .forum_table import ForumTable


@pytest.fixture
def update(request):
    return request.config.getoption("--update-golden")


def test_the_warehouse_conflict_in_a_forum_topic(chicago, config, update):
    from pbp.campaigns import add_member, bind_forum
    from pbp.store import models as m

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "cassandra@pbp.localhost", forum_username="cassandra_v")
    table, transcript = golden.check("forum_conflict", config, update, table=ForumTable(config))
    assert len(table.steps) >= 20
    forum = [r for s in table.steps for r in s.replies if r.subject == "(forum post)"]
    assert len(forum) >= 15 and all(r.to[0].startswith("replies+key") for r in forum)
    # a forum post is answered at most once in the topic, under its own reply key; a post by
    # mail (Ethan's) under the key of the table's latest forum answer
    for n, step in enumerate(table.steps, start=1):
        keys = [r.to[0] for r in step.replies if r.subject == "(forum post)"]
        assert len(keys) <= 1
        if keys and (step.post_id or n == 1):
            assert keys == [f"replies+key{n}@{SITE}"]
    # Ethan, by mail, got the table's mails; nobody else had a mail copy of a forum answer
    mails = [r for s in table.steps for r in s.replies if r.subject != "(forum post)"]
    assert any(r.to == ["ethan@pbp.localhost"] or "ethan@pbp.localhost" in r.to for r in mails)
    assert m.RollRecord.select().count() > 10
    # the same dice give the same outcomes as the same posts by mail (whole_conflict's opening)
    assert verdicts(transcript, len(table.steps)) == verdicts(
        (golden.GOLDEN / "whole_conflict" / "expected.txt").read_text(encoding="utf-8"), len(table.steps))


def verdicts(transcript: str, steps: int) -> list[list[str]]:
    """Each step's outcomes ("=> success, 2 shifts") in its first reply."""
    parts = re.split(r"(?m)^=== (\d+) ", transcript)
    found = []
    for number, body in zip(parts[1::2], parts[2::2]):
        if int(number) > steps:
            break
        first = body.split("--- to:")[1] if "--- to:" in body else ""
        found.append(re.findall(r"=> ([^\n*]+)", first))
    return found


def test_the_warehouse_conflict_by_the_forums_api(chicago, tmp_path, update, contract):
    """The same scene through the API path (GET /posts.json items built from Discourse's
    published schema, byapi.post_from, process_post): the same outcomes as by mail and as
    by forum mail, its own transcript (the answers are the API requests' Markdown)."""
    from pbp.campaigns import add_member, bind_forum
    from pbp.config import config_from_dict
    from pbp.store import models as m

    from .conftest import latest_item
    from .forum_table import ApiForumTable

    config = config_from_dict({"database": {"url": f"sqlite:///{tmp_path / 'pbp.db'}"},
                               "mail": {"domain": "pbp.test", "from_address": "table@pbp.test"},
                               "maildir": {"inbox": str(tmp_path / "in"), "outbox": str(tmp_path / "out")},
                               "discourse": {"url": f"https://{SITE}", "username": BOT, "categories": [5]}},
                              base=tmp_path)
    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, category_id=5)
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "cassandra@pbp.localhost", forum_username="cassandra_v")
    table = ApiForumTable(config, item=lambda post_id, **fields: latest_item(contract, post_id, **fields))
    _, transcript = golden.play("forum_conflict", config, table)
    path = golden.GOLDEN / "forum_conflict" / "expected_api.txt"
    if update or not path.exists():
        path.write_text(transcript, encoding="utf-8")
    assert transcript == path.read_text(encoding="utf-8"), "rerun with --update-golden if intended"
    forum = [r for s in table.steps for r in s.replies if r.subject == "(forum post)"]
    assert len(forum) >= 15 and all(r.to[0] == "topic:12" for r in forum)
    from markdown_it import MarkdownIt

    for r in forum:    # as CommonMark shows them: no heading, quote or link made of the text
        html = MarkdownIt("commonmark").render(r.text)
        assert not re.search(r"<(h\d|blockquote|a)\b", html) and html.count("<pre>") == r.text.count("```") // 2
    assert m.RollRecord.select().count() > 10
    assert verdicts(transcript, len(table.steps)) == verdicts(
        (golden.GOLDEN / "whole_conflict" / "expected.txt").read_text(encoding="utf-8"), len(table.steps))
