"""pbp's forum answers as a CommonMark renderer shows them (markdown-it-py, the
CommonMark reference behaviour Discourse's markdown-it builds on): code blocks stay code
blocks, lines meant as lines stay lines even without Discourse's "newline is a break"
setting, and what players typed never becomes a heading, a quote, a list, a link or a
mention (``@name`` notifies that account on Discourse)."""
from __future__ import annotations

import email
import email.policy
import re

import pytest
from markdown_it import MarkdownIt

from pbp.pipeline import process_message
from pbp.render import ZWSP, markdown_text
from pbp.store import models as m
from tests.helpers import make_ctx

from .discourse_mail import BOT, LIST_ID, SITE, discourse_mail

STRICT = MarkdownIt("commonmark")                       # traditional_markdown_linebreaks on
DISCOURSE = MarkdownIt("commonmark", {"breaks": True})  # Discourse's default: a newline is a break


@pytest.fixture
def forum_table(chicago):
    from pbp.campaigns import add_member, bind_forum

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    return chicago


def answer(raw: bytes, config, dice: str) -> str:
    out = process_message(raw, make_ctx(config, dice))
    assert out.status == "applied", (out.reason, out.errors)
    row = next(r for r in m.OutboxMail.select().order_by(m.OutboxMail.id.desc()) if r.recipients[0].startswith("replies+"))
    return email.message_from_string(row.raw, policy=email.policy.default).get_body(("plain",)).get_content()


@pytest.mark.parametrize("typed", ["@charles_d look", "see https://evil.example/x", "www.evil.example",
                                   "<script>", "# Big", "> quoted", "1. first", "* item", "[a](https://x)"])
def test_what_a_player_typed_is_shown_as_typed_and_nothing_more(typed):
    html = STRICT.render(markdown_text(typed))
    assert html.startswith("<p>") and html.count("<p>") == 1
    assert not re.search(r"<(a|h\d|blockquote|ol|ul|script|em|strong)\b", html)
    assert not re.search(r"@\w", html) and not re.search(r"[a-z]://", html) and "www." not in html
    assert html.replace(ZWSP, "")[3:-5].replace("&lt;", "<").replace("&gt;", ">") == typed


def test_a_forum_answer_renders_as_meant(forum_table, config):
    """Fate Condensed, "Create an Advantage": Ruth names the aspect; its name, with a
    mention and a link in it, is shown, never linked; the roll's working stays one code
    block; each status line is a line of its own in strict CommonMark too."""
    name = '"@tess_gm www.x.example ```"'
    text = answer(discourse_mail(f"/advantage Notice {name} vs Fair\n", poster="ruth", post=5), config, "0+00")
    for renderer in (STRICT, DISCOURSE):
        html = renderer.render(text)
        assert html.count("<pre><code") == 1 and html.count("</code></pre>") == 1
        assert "<a " not in html and not re.search(r"@\w", html)
        assert "<strong>" in html and "<h1" not in html
    status = [line for line in text.splitlines() if line.startswith("**") and line.rstrip("\\").endswith("**")]
    if len(status) > 1:   # whose turn it is, what pbp waits for: one line each
        html = STRICT.render(text)
        assert html.count("<br />") >= len([s for s in status if s.endswith("\\")])


def test_every_answer_of_the_golden_forum_scene_renders_as_meant(chicago, config):
    """The Warehouse conflict in a topic (test_forum_golden.py): each forum answer has as
    many code blocks as it opens, no heading, quote or link, and lines that follow each
    other (whose turn it is, what pbp waits for) stay lines in strict CommonMark."""
    from pbp.campaigns import add_member, bind_forum
    from tests.play import golden

    from .forum_table import ForumTable

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    add_member(chicago, "cassandra@pbp.localhost", forum_username="cassandra_v")
    table, _ = golden.check("forum_conflict", config, False, table=ForumTable(config))
    answers = [r.text for step in table.steps for r in step.replies if r.subject == "(forum post)"]
    assert len(answers) >= 15
    breaks = 0
    for text in answers:
        html = STRICT.render(text)
        assert html.count("<pre><code") == text.count("```") // 2
        assert not re.search(r"<(h\d|blockquote|a)\b", html), text
        held = [line for line in text.splitlines() if line.endswith("\\")]
        assert html.count("<br />") >= len(held)
        breaks += len(held) + html.count("<li>")    # held lines, or a block's lines as a list
    assert breaks > 0      # the scene has answers with several status lines
