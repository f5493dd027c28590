"""A taken condition is an aspect like a consequence, by mail, on the sample table of ``pbp
demo --system dfc`` (000_7ba3f797fc1d45d3.txt, "Conditions": "Once you're suffering from a
condition, that condition is an aspect on your character sheet like any other. In this way,
conditions are a lot like consequences -- you can invoke them, and they can be invoked or
compelled against you. As with a consequence, when you take a condition, someone else can
invoke it against you for free once.").

The Lake Thing (Otherworldly, Fight Good (+3)) hits Nora (Supernatural, Athletics Fair (+2))
for 4 shifts; she takes 2 stress boxes and her mantle's lasting condition Door-Burned (4,
halved to 2 with one-point stress boxes). Then: the Lake Thing's free invoke of it, Nora's
own paid invoke, and the GM's compel of it, accepted.
"""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from tests.play import golden
from tests.play.table import MailTable


@pytest.fixture
def burned(db, config):
    """The Lake Thing's Fight Good (+3) ++00 +1 scale (one level over Nora, the default) =
    Fantastic (+6) against Nora's Athletics Fair (+2) 0000: a 4-shift hit; Nora absorbs it with
    2 stress boxes and Door-Burned."""
    create_sample_campaign("dfc")
    mt = MailTable(config)
    assert mt.post("GM", '/scene start "The Basement" with "Lake Thing"\n'
                         '/conflict start Nora, Marcus, "Lake Thing" first "Lake Thing"\n').status == "applied"
    assert mt.post("GM", '/as "Lake Thing" attack Nora with Fight\n/as "Lake Thing" next Nora', dice="++00").status == "applied"
    assert mt.post("Nora", "/defend Athletics", dice="0000").status == "applied"
    step = mt.post("Nora", '/absorb stress 2 lasting "Door-Burned"')
    assert step.status == "applied", step.text
    return mt


def test_the_inflicter_holds_one_free_invoke_on_the_condition(burned):
    """"someone else can invoke it against you for free once": the Lake Thing's free invoke
    on its next attack: Fight Good (+3) 0000 +1 scale +2 Door-Burned = Fantastic (+6); no fate
    point moves, and a second free invoke is refused (once)."""
    taken = golden.sheet("Nora")
    assert [c["aspect"] for c in taken.consequences if c["aspect"]] == ["Door-Burned"]
    burned.post("Nora", "/overcome Lore vs Fair\n/next Marcus", dice="0000")
    # Marcus holds none: only the inflicter got the free invoke
    step = burned.post("Marcus", '/overcome Notice vs Fair +invoke "Door-Burned" free\n/next "Lake Thing"', dice="0000")
    assert step.status == "rejected" and "Marcus holds no free invoke on Door-Burned (free invokes held by: " \
                                         "Lake Thing (1))" in step.text, step.text
    burned.post("Marcus", '/overcome Notice vs Fair\n/next "Lake Thing"', dice="0000")
    step = burned.post("GM", '/as "Lake Thing" attack Nora with Fight +invoke "Door-Burned" free', dice="0000")
    assert step.status == "applied", step.text
    assert "invoke Door-Burned (free, held by Lake Thing) +2" in step.text
    assert "effort                                      +6 Fantastic" in step.text
    assert "Lake Thing's free invokes on Door-Burned 1 -> gone" in step.text
    assert golden.sheet("Nora").fate_points == taken.fate_points
    assert burned.post("Nora", "/defend Athletics", dice="++++").status == "applied"
    burned.post("GM", '/as "Lake Thing" next Nora')
    burned.post("Nora", "/overcome Lore vs Fair\n/next Marcus", dice="0000")
    burned.post("Marcus", '/overcome Notice vs Fair\n/next "Lake Thing"', dice="0000")
    again = burned.post("GM", '/as "Lake Thing" attack Nora with Fight +invoke "Door-Burned" free', dice="0000")
    assert again.status == "rejected", again.text
    assert "Lake Thing holds no free invoke on Door-Burned (free invokes held by: nobody)" in again.text


def test_the_owner_invokes_her_condition_for_a_fate_point(burned):
    """"you can invoke them": Nora's Lore Great (+4) 0000 +2 Door-Burned = Fantastic (+6)
    against Superb (+5): a success, for one of her fate points (3 -> 2)."""
    step = burned.post("Nora", '/overcome Lore vs Superb +invoke "Door-Burned"', dice="0000")
    assert step.status == "applied", step.text
    assert "invoke Door-Burned (fate point)             +2" in step.text
    assert "=> success, 1 shift" in step.text and "Nora FP 3 -> 2" in step.text
    assert golden.sheet("Nora").fate_points == 2


def test_a_compel_on_the_condition_accepted(burned):
    """"they can be ... compelled against you": the GM compels Door-Burned (an event), Nora
    accepts by reply and gains the fate point (3 -> 4)."""
    step = burned.post("GM", '/compel Nora "Door-Burned" event "The burn seizes her hand and the knife drops"')
    assert step.status == "applied", step.text
    assert 'The GM compels Nora\'s aspect "Door-Burned" (event)' in step.text
    step = burned.post("Nora", "/accept", reply_to=step)
    assert step.status == "applied", step.text
    assert "Nora accepts the compel on Door-Burned; Nora gains a fate point." in step.text
    assert golden.sheet("Nora").fate_points == 4
