"""Scale on situation aspects by mail, on the sample table of ``pbp demo --system dfc``
(000_7ba3f797fc1d45d3.txt, "Aspects and Scale": "the GM may determine that invoking the
aspect grants the additional benefit of its scale").

Marcus is Mundane, Nora Supernatural, the Lake Thing Otherworldly. The GM puts the Warded
Stacks in play with a level of scale and raises it; Marcus invokes it with his attack, Nora
after her dice; a hidden aspect's level stays with the GM; another system refuses scale on
aspects.
"""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from pbp.flow.commit import read_post
from pbp.flow.context import Context
from pbp.play.overview import overview, to_json
from pbp.rules.dice import FixedDice
from pbp.store import models as m
from pbp.store import repo
from tests.play.conftest import state_snapshot
from tests.play.table import MailTable
from tests.play.test_hidden import assert_players_never_told, mails_of


@pytest.fixture
def lakeshore(db):
    return create_sample_campaign("dfc")


def setup(mt: MailTable):
    assert mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n').status == "applied"
    return mt.post("GM", '/aspect add "Warded Stacks" scale Supernatural free 1\n'
                         '/aspect add "Lake Fog" hidden scale Otherworldly\n')


def test_the_gm_gives_an_aspect_scale_and_the_table_sees_it(lakeshore, config):
    mt = MailTable(config)
    added = setup(mt)
    assert added.status == "applied", added.text
    table_mail, gm_mail = mails_of(added)
    assert "Warded Stacks is in play on the scene, with 1 free invoke for the GM's side, carrying Supernatural " \
           "scale (invoking it grants that scale)." in table_mail.parts[0]
    assert "Warded Stacks scale none -> Supernatural" in table_mail.parts[0]
    assert "Lake Fog" in gm_mail.parts[0] and "carrying Otherworldly scale" in gm_mail.parts[0]
    seen = mt.post("Marcus", "/table\n")
    assert '"Warded Stacks" on the scene, Supernatural scale (the GM\'s side: 1 free invoke)' in seen.text
    raised = mt.post("GM", '/aspect set "Warded Stacks" scale=Legendary\n')
    assert raised.status == "applied" and "Warded Stacks carries Legendary scale." in raised.text, raised.text
    assert "Warded Stacks scale Supernatural -> Legendary" in raised.text
    fog = mt.post("GM", '/aspect set "Lake Fog" scale=Legendary\n')
    assert fog.status == "applied" and [r.to for r in fog.replies] == [["gm@pbp.localhost"]]
    assert_players_never_told("Lake Fog")
    stored = {a.name: a.system_state for a in repo.load_table(m.Campaign.get_by_id(lakeshore.id)).aspects
              if a.kind == "situation"}
    assert stored == {"Warded Stacks": {"scale": "Legendary"}, "Lake Fog": {"scale": "Legendary"}}
    # pbp table --json (the GM's view: the hidden one too, marked) and a player's /table
    view = to_json(overview(read_post(m.Campaign.get_by_id(lakeshore.id), Context(config=config, dice=FixedDice(""))),
                            gm=True))
    assert {"name": "Warded Stacks", "kind": "situation", "on": None, "free_invokes": {"GM": 1}, "hidden": False,
            "scale": "Legendary"} in view["aspects"]
    assert {"name": "Lake Fog", "kind": "situation", "on": None, "free_invokes": {}, "hidden": True,
            "scale": "Legendary"} in view["aspects"]
    players = mt.post("Nora", "/table\n").text
    assert '"Warded Stacks" on the scene, Legendary scale' in players and "Lake Fog" not in players
    # taken away again
    gone = mt.post("GM", '/aspect set "Warded Stacks" scale=\n')
    assert gone.status == "applied" and "Warded Stacks carries no scale." in gone.text


def test_invoking_the_aspect_grants_its_scale_with_the_roll_and_after_the_dice(lakeshore, config):
    mt = MailTable(config)
    setup(mt)
    mt.post("GM", '/aspect set "Warded Stacks" scale=Legendary\n')
    assert mt.post("GM", '/conflict start Nora, Marcus, "Lake Thing" first Marcus\n').status == "applied"
    # Marcus (Mundane) invokes the Legendary Warded Stacks: his side is a level above the
    # Otherworldly Lake Thing, +1 before the roll. Fight +1, ++00 (+2), the invoke +2, scale
    # +1: 6, against the Lake Thing's Fight +3 with 0000.
    hit = mt.post("Marcus", '/attack "Lake Thing" with Fight +invoke "Warded Stacks"\n', dice="++00,0000")
    assert hit.status == "applied", hit.text
    assert "scale  Legendary (Warded Stacks) over Otherworldly" in hit.text and "+1" in hit.text
    assert "effort                                      +6 Fantastic" in hit.text
    assert "=> success with style, 3 shifts" in hit.text and "Marcus FP 2 -> 1" in hit.text
    before_nora = mt.post("Marcus", "/next Nora\n")
    assert before_nora.status == "applied", before_nora.text
    # Nora (Supernatural) against the Otherworldly Lake Thing: its defence takes +1. Fight +3,
    # 0000, against Fight +3, 0000, +1: a fail by 1.
    roll = mt.post("Nora", '/attack "Lake Thing" with Fight\n', dice="0000,0000")
    assert roll.status == "applied", roll.text
    assert "scale Otherworldly over Supernatural +1" in roll.text, roll.text
    # after the dice, in reply to her roll: the Warded Stacks puts her side at Legendary, a
    # level above the Lake Thing, whose +1 is gone; she takes +1 and the invoke's +2
    late = mt.post("Nora", '/invoke "Warded Stacks"\n', reply_to=roll)
    assert late.status == "applied", late.text
    assert "scale  Legendary (Warded Stacks) over Otherworldly" in late.text, late.text
    assert "scale Otherworldly over Supernatural" not in late.text
    assert "the opposition goes from 4 to 3; the shifts go from -1 to 3" in late.text
    assert "Nora FP 3 -> 2" in late.text


def test_an_unknown_level_is_refused_and_nothing_changes(lakeshore, config):
    mt = MailTable(config)
    mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n')
    before = state_snapshot(lakeshore)
    step = mt.post("GM", '/aspect add "Warded Stacks" scale Mythic\n')
    assert step.status == "rejected"
    assert '"Mythic" is not a level of scale (Mundane, Supernatural, Otherworldly, Legendary, Godlike)' in step.text
    assert 'example:  /aspect add "Warded Stacks" scale Supernatural' in step.text
    high = mt.post("GM", '/aspect set "Owes Marcus a Life" scale=Supernatural\n')
    assert high.status == "rejected" and "scale is for situation aspects" in high.text
    assert state_snapshot(lakeshore) == before
    player = mt.post("Nora", '/aspect add "Warded Stacks" scale Supernatural\n')
    assert player.status == "rejected"


def test_another_system_keeps_no_scale_on_aspects(mt, chicago):
    before = state_snapshot(chicago)
    step = mt.post("GM", '/aspect add "Veiled" scale Supernatural\n')
    assert step.status == "rejected" and "Fate Condensed keeps no scale on aspects" in step.text
    assert 'example:  /aspect add "Veiled"' in step.text
    mt.post("GM", '/aspect add "Veiled"\n')
    edit = mt.post("GM", '/aspect set "Veiled" scale=Supernatural\n')
    assert edit.status == "rejected" and "Fate Condensed keeps no scale on aspects" in edit.text
    assert state_snapshot(chicago) != before     # only the plain /aspect add applied


def test_the_defence_by_mail_answers_the_attackers_side_at_the_level_of_the_aspect_it_invoked(lakeshore, config):
    """"Aspects and Scale": invoking the aspect "grants the additional benefit of its scale";
    "Scale": the higher side takes its benefit "on any rolled action against their lesser".
    A Mundane thug invokes the Otherworldly Warded Stacks (a fate point from the GM's pool) on its
    attack on Nora (Supernatural): its side is a level above hers, +1. Fight +2, 0000, the
    invoke +2, scale +1: 5. Her /defend, a mail later, answers that side: no +1 of hers for
    being above a Mundane attacker (and no ``+scale``: she is not the higher side). Fight +3,
    0000: 3 against 5, a hit of 2."""
    mt = MailTable(config)
    assert mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n'
                         '/aspect add "Warded Stacks" scale Otherworldly free 1\n'
                         '/npc add Thug aspects "Hired Muscle" skills Fight Fair, Athletics Average stress 1\n'
                         ).status == "applied"
    assert mt.post("GM", '/conflict start Nora, Thug first Thug\n').status == "applied"
    hit = mt.post("GM", '/as Thug attack Nora with Fight +invoke "Warded Stacks"\n', dice="0000")
    assert hit.status == "applied", hit.text
    assert "scale  Otherworldly (Warded Stacks) over Supernatural" in hit.text, hit.text
    plus = mt.post("Nora", "/defend Fight +scale\n", dice="0000")
    assert plus.status == "rejected"
    assert "Nora (Supernatural) is not above Thug (Otherworldly (Warded Stacks)) in scale" in plus.text, plus.text
    defence = mt.post("Nora", "/defend Fight\n", dice="0000")
    assert defence.status == "applied", defence.text
    assert "vs     Thug's attack (Fight), Superb (+5)" in defence.text
    assert "scale" not in defence.text.split("=>")[0], defence.text
    assert "effort                                      +3 Good" in defence.text
    assert "=> fail, 2 shifts short" in defence.text and "Nora takes a hit of 2 shifts" in defence.text


def test_an_invoke_after_the_attacks_dice_carries_its_scale_to_the_defence(lakeshore, config):
    """The same attack with the Warded Stacks invoked after its dice, before Nora defends:
    the re-run attack is Fight +2, 0000, +2, +1 (Otherworldly (Warded Stacks) over
    Supernatural): 5, and the defence waiting on it answers that side, no scale of Nora's."""
    mt = MailTable(config)
    mt.post("GM", '/scene start "The Stacks" with "Lake Thing"\n'
                  '/aspect add "Warded Stacks" scale Otherworldly\n'
                  '/npc add Thug aspects "Hired Muscle" skills Fight Fair, Athletics Average stress 1\n')
    mt.post("GM", '/conflict start Nora, Thug first Thug\n')
    hit = mt.post("GM", "/as Thug attack Nora with Fight\n", dice="0000")
    assert hit.status == "applied", hit.text
    late = mt.post("GM", '/as Thug invoke "Warded Stacks"\n', reply_to=hit)
    assert late.status == "applied", late.text
    assert "Nora now defends against 5." in late.text, late.text
    defence = mt.post("Nora", "/defend Fight\n", dice="0000")
    assert defence.status == "applied", defence.text
    assert "scale" not in defence.text.split("=>")[0] and "=> fail, 2 shifts short" in defence.text, defence.text
