"""Discourse's mail as its sites really write it (docs/forum.md, "By mail"): every Message-ID
format, X-Discourse ids first, "NAME via SITE" senders, full names, BBCode quotes, a
repeated move, a subcategory, and a display name that imitates the GM.

The mails are built by tests/forum/discourse_mail.py from Discourse's own source (its
header names the files: lib/email/sender.rb, lib/email/message_id_service.rb,
lib/email/message_builder.rb, app/mailers/user_notifications.rb). Rules cited: Fate
Condensed, "Overcome" (a skill against a difficulty; shifts are the margin)."""
from __future__ import annotations

import email
import email.policy

import pytest

from pbp.pipeline import process_message
from pbp.store import models as m
from tests.helpers import make_ctx

from .discourse_mail import BOT, LIST_ID, SITE, STYLES, TITLE, discourse_mail, receiver_refuses, BOT_ADDRESS

OVERCOME = "/overcome Investigate vs Fair\n"


def table(chicago, names="names"):
    from pbp.campaigns import add_member, bind_forum

    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names=names)
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth", forum_name="Ruth Kim")
    add_member(chicago, "charles@pbp.localhost", forum_username="charles_d")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm", forum_name="Tess Moreau")
    return chicago


@pytest.fixture
def names_table(chicago):
    return table(chicago)


@pytest.fixture
def usernames_table(chicago):
    return table(chicago, "usernames")


def outbox():
    return list(m.OutboxMail.select().order_by(m.OutboxMail.id))


def parsed(row):
    return email.message_from_string(row.raw, policy=email.policy.default)


def text_of(row) -> str:
    return parsed(row).get_body(("plain",)).get_content()


@pytest.mark.parametrize("style", STYLES)
def test_every_id_format_names_the_same_posts_and_answers_thread(names_table, config, style):
    """A topic's first post and a reply to it, in each format Discourse has written: the
    posts get the ids the API path gives them, and each answer goes to its own reply key
    with In-Reply-To the forum mail's own Message-ID (the thread in the bot's mailbox)."""
    first_mail = discourse_mail("Ruth searches the dock.\n\n" + OVERCOME, poster="ruth", style=style, key="k1")
    first = process_message(first_mail, make_ctx(config, "0+00"))
    assert first.status == "applied", first.errors
    assert first.message_id == f"topic/12@{SITE}"
    second_mail = discourse_mail("Charles looks too.\n" + OVERCOME, poster="charles_d", style=style, post=345,
                                 number=2, key="k2")
    second = process_message(second_mail, make_ctx(config, "0000"))
    assert second.status == "applied", second.errors
    assert second.message_id == f"topic/12/345@{SITE}"
    for mail, key in ((first_mail, "k1"), (second_mail, "k2")):
        (row,) = [r for r in outbox() if r.recipients == [f"replies+{key}@{SITE}"]]
        sent = parsed(row)
        assert sent["In-Reply-To"] == email.message_from_bytes(mail)["Message-ID"]
        assert sent["X-PBP-Topic"] == "12"
        assert receiver_refuses(row.raw.encode(), key_user_address=BOT_ADDRESS) == []


def test_the_current_format_without_x_discourse_headers_takes_the_topic_from_the_archive(names_table, config):
    """A current id names a post only; with no X-Discourse headers the topic is the one in
    List-Archive (``/t/slug/TOPIC``), and a reply's parent is the topic's first post."""
    out = process_message(discourse_mail(OVERCOME, poster="ruth", style="current", post=346, x_headers=False),
                          make_ctx(config, "0+00"))
    assert out.status == "applied", out.errors
    assert out.message_id == f"topic/12/346@{SITE}"
    assert m.Message.get(m.Message.message_id == out.message_id).author == "ruth@pbp.localhost"


def test_the_x_discourse_ids_come_first(names_table, config):
    """A mail whose Message-ID is not Discourse's (the first post came in by mail, so the
    forum reuses that mail's id) is still known by its X-Discourse ids."""
    raw = discourse_mail(OVERCOME, poster="ruth", style="current", post=347).replace(
        f"Message-ID: <discourse/post/347@{SITE}>".encode(), b"Message-ID: <CAF1234@mail.gmail.com>")
    out = process_message(raw, make_ctx(config, "0+00"))
    assert out.status == "applied" and out.message_id == f"topic/12/347@{SITE}"


def test_one_post_in_two_formats_rolls_once(names_table, config):
    """A site upgraded between two mails of one post (a bounce resent, a second bot mail):
    the same post id, one roll."""
    a = process_message(discourse_mail(OVERCOME, poster="ruth", style="2021", post=348), make_ctx(config, "0+00"))
    b = process_message(discourse_mail(OVERCOME, poster="ruth", style="current", post=348), make_ctx(config, "++++"))
    assert (a.status, b.status) == ("applied", "duplicate")
    assert m.RollRecord.select().count() == 1


@pytest.mark.parametrize("name", ["ruth", "RUTH", "Ruth Kim", "ruth kim", "Ruth Kim via Example Forum",
                                  "ruth via Example Forum"])
def test_a_member_is_found_by_username_or_full_name_with_or_without_via(names_table, config, name):
    raw = discourse_mail(OVERCOME, poster=name, post=350)
    out = process_message(raw, make_ctx(config, "0+00"))
    assert out.status == "applied", (out.reason, out.errors)
    assert m.Message.get(m.Message.message_id == out.message_id).author == "ruth@pbp.localhost"


def test_the_via_suffix_is_the_sites_title_even_when_a_name_says_via(names_table, config):
    from pbp.campaigns import add_member

    add_member(names_table, "cassandra@pbp.localhost", forum_username="cass", forum_name="Anna via Roma")
    out = process_message(discourse_mail(OVERCOME, poster=f"Anna via Roma via {TITLE}", post=351),
                          make_ctx(config, "0+00"))
    assert out.status == "applied", out.reason
    assert m.Message.get(m.Message.message_id == out.message_id).author == "cassandra@pbp.localhost"


def test_a_name_two_members_answer_to_is_refused_never_guessed(names_table, config):
    """Charles's full name is Ruth's username: a post by "ruth" could be either."""
    from pbp.campaigns import add_member
    from pbp.errors import ConfigError

    with pytest.raises(ConfigError, match="already ruth@pbp.localhost's"):
        add_member(names_table, "charles@pbp.localhost", forum_name="Ruth")
    # made behind the CLI's back (an older pbp let it be), the post is still nobody's
    m.Member.update(forum_name="ruth").where(m.Member.email == "charles@pbp.localhost").execute()
    out = process_message(discourse_mail(OVERCOME, poster="ruth via Example Forum", post=352),
                          make_ctx(config, "0+00"))
    assert out.status == "ignored" and "never guessed" in out.reason
    assert outbox() == [] and m.RollRecord.select().count() == 0


GM_MOVE = '/scene start "The Docks"\n/aspect add "Thick Fog"\n'


def scene_state(campaign) -> tuple:
    campaign = m.Campaign.get_by_id(campaign.id)
    return (m.Aspect.select().count(), dict(campaign.play or {}))


@pytest.mark.parametrize("name", ["TESS_GM", "@tess_gm", "Tess GM via Example Forum", "tess_gm",
                                  "Tess Moreau via Example Forum"])
def test_on_a_site_that_shows_names_no_forum_mail_is_the_gms(names_table, config, name):
    """Anyone can type any full name, and the forum's mail comes from the forum: on a site
    that mails names, a post under the GM's name (or one like it) changes nothing and
    nothing is answered where the poster could read it."""
    before = scene_state(names_table)
    out = process_message(discourse_mail(GM_MOVE, poster=name, post=360), make_ctx(config))
    assert out.status == "ignored"
    assert scene_state(names_table) == before and outbox() == []


@pytest.mark.parametrize("name", ["@tess_gm", "Tess GM via Example Forum", "Tess Moreau via Example Forum",
                                  "tess_gm_ via Example Forum"])
def test_on_a_site_that_mails_usernames_an_imitation_is_nobody(usernames_table, config, name):
    before = scene_state(usernames_table)
    out = process_message(discourse_mail(GM_MOVE, poster=name, post=361), make_ctx(config))
    assert out.status == "ignored" and "no member" in out.reason
    assert scene_state(usernames_table) == before and outbox() == []


def test_on_a_site_that_mails_usernames_the_gms_username_is_the_gm(usernames_table, config):
    out = process_message(discourse_mail(GM_MOVE, poster=f"tess_gm via {TITLE}", post=362), make_ctx(config))
    assert out.status == "applied", (out.reason, out.errors)
    assert m.Aspect.select().where(m.Aspect.name == "Thick Fog").count() == 1


QUOTED = '[quote="ruth, post:2, topic:12"]\n/overcome Investigate vs Fair\n[/quote]\n'


@pytest.mark.parametrize("body", [
    QUOTED,
    QUOTED + "\nWhat she said.\n",
    '[quote="charles_d, post:4, topic:12"]\nLook:\n' + QUOTED + "/overcome Investigate vs Fair\n[/quote]\nNice.\n",
    '[QUOTE=ruth]\n/overcome Investigate vs Fair\n[/QUOTE]\n',
    '[quote="ruth, post:2, topic:12"]\n/overcome Investigate vs Fair\n',     # left open: still quoted
])
def test_a_bbcode_quote_never_runs_by_mail(names_table, config, body):
    out = process_message(discourse_mail(body, poster="charles_d", post=370), make_ctx(config, "0+00"))
    assert out.status != "applied" or not out.results
    assert m.RollRecord.select().count() == 0


def test_a_quoted_bot_prompt_never_runs_its_examples_only_the_players_line(names_table, config):
    """The bot's own answer (with its example commands) quoted whole by the composer's
    Quote button, then Charles's own move: one roll, Charles's."""
    process_message(discourse_mail("/overcome Investigate vs Farr\n", poster="ruth", post=371), make_ctx(config))
    (error,) = outbox()
    prompt = text_of(error)
    assert "/overcome" in prompt      # the prompt shows an example that works
    body = f'[quote="{BOT}, post:5, topic:12"]\n{prompt}\n[/quote]\n\nCharles tries.\n/overcome Investigate vs Fair\n'
    out = process_message(discourse_mail(body, poster="charles_d", post=372), make_ctx(config, "0+00"))
    assert out.status == "applied", out.errors
    assert len(out.results) == 1 and m.RollRecord.select().count() == 1


def test_a_repeated_move_in_one_topic_is_a_new_move(names_table, config):
    """Ruth's two posts answer the topic (the Reply button): both carry In-Reply-To the
    topic's first post. The second, with new prose, is her next move, not an edited copy:
    the forum's post id alone decides copies (Fate Condensed, "Overcome": a failure changes
    the situation, and she tries again in a new post)."""
    a = process_message(discourse_mail("She looks.\n" + OVERCOME, poster="ruth", post=380, number=2),
                        make_ctx(config, "----"))
    b = process_message(discourse_mail("She looks again, closer.\n" + OVERCOME, poster="ruth", post=381, number=3,
                                       key="k381"), make_ctx(config, "++++"))
    assert (a.status, b.status) == ("applied", "applied"), (b.reason, b.errors)
    assert m.RollRecord.select().count() == 2


def test_a_subcategory_is_read_by_its_list_id(chicago, config):
    """``/c/game-table/ic/7`` is the subcategory IC of Game Table: its mails say
    ``List-ID: "Example Forum | Game Table IC" <ic.game-table.forum.example.org>``."""
    from pbp.campaigns import add_member, bind_forum, forum_from_url

    site, list_id, category = forum_from_url(f"https://{SITE}/c/game-table/ic/7")
    assert (site, list_id, category) == (SITE, f"ic.game-table.{SITE}", 7)
    bind_forum(chicago, site=site, list_id=list_id, bot=BOT, category_id=category)
    add_member(chicago, "ruth@pbp.localhost", forum_username="ruth")
    out = process_message(discourse_mail(OVERCOME, poster="ruth", post=390, list_id=list_id,
                                         category="Game Table IC"), make_ctx(config, "0+00"))
    assert out.status == "applied", out.reason


COMPEL = '/compel Charles "Curiosity Will Be My Death" decision "He reads the grimoire aloud"\n'


def test_no_bare_approve_is_offered_in_the_topic_only_in_the_gms_mail(names_table, config):
    """Ruth offers a compel in the topic: the topic's answer asks for /approve or /deny and
    offers no bare "approve" (a reply to a forum post is not a reply to pbp's mail); the
    GM's own mail, where a bare "approve" in reply is read, still offers it."""
    from pbp.posts import BARE_APPROVE_HINT

    out = process_message(discourse_mail(COMPEL, poster="ruth", post=395), make_ctx(config))
    assert out.status == "applied", out.errors
    topic = [r for r in outbox() if r.recipients[0].startswith("replies+")]
    gm = [r for r in outbox() if r.recipients == ["gm@pbp.localhost"]]
    assert len(topic) == 1 and len(gm) == 1
    assert "/approve or /deny" in text_of(topic[0]) and "bare" not in text_of(topic[0])
    assert BARE_APPROVE_HINT.strip() in " ".join(text_of(gm[0]).split())


def test_a_gms_hidden_command_in_the_topic_is_refused_and_the_gm_told_where_to_send_it(usernames_table, config):
    """The topic shows the post to everyone: a hidden aspect posted there is no secret.
    Nothing applies, nothing is answered in the topic, and the GM's own mail says to send
    it by mail to the table's address."""
    before = scene_state(usernames_table)
    out = process_message(discourse_mail('/aspect add "Secret Door" hidden\n', poster="tess_gm", post=396),
                          make_ctx(config))
    assert out.status == "rejected"
    assert scene_state(usernames_table) == before
    (row,) = outbox()
    assert row.recipients == ["gm@pbp.localhost"]
    said = " ".join(text_of(row).split())
    assert "this post is public" in said and BOT_ADDRESS in said and '/aspect add "Secret Door" hidden' in said
