"""Compels and story details through whole posts (rules 004, "Compelling an Aspect",
"Declaring a Story Detail"; 000, "Your Fate Points"): the cases the golden conversations
do not show."""
from __future__ import annotations

from datetime import timedelta

from pbp.flow.deadlines import apply_deadlines
from pbp.pipeline import process_message
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import FIXED_NOW, eml, make_ctx
from tests.test_pipeline import reply_text


def fp(campaign, name):
    return repo.load_table(campaign).character(name).fate_points


def play(campaign):
    return m.Campaign.get_by_id(campaign.id).play


class Table:
    def __init__(self, config):
        self.config, self.n = config, 0

    def post(self, who, body, *, reply_to=None, at=None, dice=None):
        self.n += 1
        extra = f"In-Reply-To: <{reply_to}>\n" if reply_to else ""
        ctx = make_ctx(self.config, dice)
        if at is not None:
            ctx.clock = lambda: at
        return process_message(eml(body, sender=f"{who.lower()}@pbp.localhost", message_id=f"c{self.n}@t",
                                   extra=extra), ctx)

    def tick(self, at):
        ctx = make_ctx(self.config)
        ctx.clock = lambda: at
        apply_deadlines(ctx)


def test_a_bare_word_is_prose_unless_it_answers_a_mail_about_a_compel(chicago, config):
    t = Table(config)
    out = t.post("GM", "approve\nThe night is quiet.\n")
    assert out.status == "applied" and out.results == []
    offer = t.post("Cassandra", '/compel Ruth "Hair-Trigger Temper" event "The jibe"\n')
    out = t.post("GM", "Approve.\n\nYes, that fits.\n", reply_to=offer.replies[0]["message_id"])
    assert out.status == "applied", out.errors
    assert out.results[0]["action"] == "approve"
    assert play(chicago)["compels"][0]["state"] == "offered"


def test_a_gm_compel_nobody_answers_is_accepted_after_a_reminder(chicago, config):
    t = Table(config)
    t.post("GM", '/compel Ruth "Hair-Trigger Temper" decision "You storm out"\n')
    deadline = FIXED_NOW + timedelta(hours=config.reaction_deadline_hours)
    t.tick(deadline - timedelta(hours=1))
    reminders = m.OutboxMail.select().where(m.OutboxMail.subject.contains("Reminder"))
    assert [r.recipients for r in reminders] == [["ruth@pbp.localhost"]]
    t.tick(deadline)
    assert fp(chicago, "Ruth") == 4
    assert play(chicago)["compels"] == [] and play(chicago)["settled"] == {"1": "compel #1 is already accepted"}


def test_a_decision_is_refused_for_free(chicago, config):
    t = Table(config)
    t.post("GM", '/compel Ruth "Hair-Trigger Temper" decision "You storm out"\n')
    out = t.post("Ruth", "/refuse #1\n")
    assert out.status == "applied", out.errors
    assert fp(chicago, "Ruth") == 3


def test_only_the_target_answers_an_offered_compel(chicago, config):
    t = Table(config)
    t.post("GM", '/compel Ruth "Hair-Trigger Temper" event "The jibe"\n')
    out = t.post("Charles", "/accept #1\n")
    assert out.status == "rejected"
    assert "compel #1 is for Ruth's player to answer" in reply_text(out)


def test_a_player_compel_on_an_npc_is_answered_by_the_gm_into_the_pool(chicago, config):
    t = Table(config)
    t.post("GM", '/scene start "Sewers"\n')
    t.post("Ruth", '/compel Ghoul "Hungry for Flesh" decision "It stops to feed"\n')
    t.post("GM", "/approve #1\n")
    out = t.post("GM", "/accept #1\n")
    assert out.status == "applied", out.errors
    assert play(chicago)["ledger"]["gm_pool"] == 5
    assert fp(chicago, "Ruth") == 2


def test_withdrawing_an_offered_compel_needs_the_gm(chicago, config):
    t = Table(config)
    t.post("Cassandra", '/compel Ruth "Hair-Trigger Temper" event "The jibe"\n')
    t.post("GM", "/approve #1\n")
    out = t.post("Cassandra", "/withdraw #1\n")
    assert out.status == "rejected" and "needs the GM's agreement" in reply_text(out)
    out = t.post("GM", '/withdraw #1 "off the mark"\n')
    assert out.status == "applied", out.errors
    assert (fp(chicago, "Cassandra"), fp(chicago, "Ruth")) == (3, 3)


def test_a_self_compel_is_on_your_own_aspects(chicago, config):
    out = Table(config).post("Ruth", '/compel me "Curiosity Will Be My Death" decision "I peek"\n')
    assert out.status == "rejected"
    assert "Charles's aspect" in reply_text(out)


def test_a_story_detail_costs_a_point_when_the_gm_approves(chicago, config):
    t = Table(config)
    out = t.post("Ruth", '/detail "The bouncer owes me a favour"\n')
    assert out.status == "applied", out.errors
    assert fp(chicago, "Ruth") == 3
    tell = m.OutboxMail.get(m.OutboxMail.subject.contains("Story detail #1 needs your approval"))
    out = t.post("GM", "approve\n", reply_to=tell.message_id)
    assert out.status == "applied", out.errors
    assert fp(chicago, "Ruth") == 2


def test_a_story_detail_nobody_approves_is_denied_at_no_cost(chicago, config):
    t = Table(config)
    t.post("Ruth", '/detail "The bouncer owes me a favour"\n')
    t.post("Charles", '/detail "I read about this in the archive"\n')
    t.post("GM", '/deny #2 "that would solve the mystery"\n')
    t.tick(FIXED_NOW + timedelta(days=3))
    assert (fp(chicago, "Ruth"), fp(chicago, "Charles")) == (3, 3)
    assert play(chicago)["details"] == []
    assert play(chicago)["settled"] == {"2": "story detail #2 is already denied",
                                         "1": "story detail #1 is already expired"}
    out = t.post("GM", "/approve #1\n")
    assert out.status == "rejected" and "story detail #1 is already expired" in reply_text(out)


def test_a_story_detail_needs_a_point_in_hand(chicago, config):
    t = Table(config)
    t.post("GM", "/fp take Ruth 3\n")
    out = t.post("Ruth", '/detail "The bouncer owes me a favour"\n')
    assert out.status == "rejected"
    assert "declaring a story detail costs one" in reply_text(out)
