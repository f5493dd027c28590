"""Someone ``/place``d into a conflict under way joins a side that is there: the side ``with
NAME`` names, or the one side with characters of their kind (PCs with the PCs, NPCs with
the NPCs), also when the sides were written with ``vs``; never a third side of their own.

The rules texts do not say how a conflict takes in someone who arrives once it is under way
(Fate Condensed, 001, "Conflicts": "the characters involved have the capability to harm each
other"; a side is who fights together): the choice is pbp's, documented in docs/conflicts.md,
section 1, and docs/commands.md (``/place``)."""
from __future__ import annotations

from pbp.store import models as m
from tests.play.conftest import state_snapshot

SCENE = '/scene start "Yard" zones Dock, Office borders Dock-Office\n'


def sides(campaign) -> dict[str, str]:
    return m.Campaign.get_by_id(campaign.id).play["conflict"]["sides"]


def start(mt, conflict: str):
    step = mt.post("GM", SCENE + conflict)
    assert step.status == "applied", step.text
    return step


def test_a_newcomer_joins_the_side_of_their_kind_when_the_sides_were_written_with_vs(mt, chicago):
    start(mt, "/conflict start Ruth, Cassandra vs Ghoul first Ruth\n")
    step = mt.post("GM", '/place Charles in Dock\n/place "Masked Acolyte" in Office\n')
    assert step.status == "applied", step.text
    s = sides(chicago)
    assert s["Charles"] == s["Ruth"] == s["Cassandra"]
    assert s["Masked Acolyte"] == s["Ghoul"] != s["Ruth"]
    assert len(set(s.values())) == 2                            # no third side
    assert "Charles joins the conflict on the side of Cassandra and Ruth" in step.text
    assert "Masked Acolyte joins the conflict on the side of Ghoul" in step.text


def test_without_vs_the_pcs_side_takes_a_pc(mt, chicago):
    start(mt, "/conflict start Ruth, Ghoul first Ruth\n")
    step = mt.post("GM", "/place Ethan in Dock\n")
    assert step.status == "applied", step.text
    s = sides(chicago)
    assert s["Ethan"] == s["Ruth"] and len(set(s.values())) == 2


def test_with_names_the_side_where_pcs_fight_each_other(mt, chicago):
    """A duel between PCs: a PC who steps in must be told whose side; an NPC too (neither side
    has NPCs). Refused posts change nothing."""
    start(mt, "/conflict start Ruth vs Cassandra first Ruth\n")
    before = state_snapshot(chicago)
    refused = mt.post("GM", "/place Charles in Dock\n")
    assert refused.status == "rejected"
    assert "say whose side Charles joins: PCs are on more than one side (Cassandra; Ruth)" in refused.text
    assert "example:  /place Charles in Dock with Cassandra" in refused.text
    refused = mt.post("GM", "/place Ghoul in Dock\n")
    assert refused.status == "rejected"
    assert "say whose side Ghoul joins: no side has NPCs on it" in refused.text
    assert state_snapshot(chicago) == before

    step = mt.post("GM", "/place Charles in Dock with Cassandra\n/place Ghoul in Office with Ruth\n")
    assert step.status == "applied", step.text
    s = sides(chicago)
    assert s["Charles"] == s["Cassandra"] != s["Ruth"] == s["Ghoul"]
    assert len(set(s.values())) == 2


def test_with_is_for_someone_joining(mt, chicago):
    mt.post("GM", SCENE)
    before = state_snapshot(chicago)
    refused = mt.post("GM", "/place Ruth in Dock with Ghoul\n")
    assert refused.status == "rejected"
    assert '"with" names the side of someone who joins a conflict, and there is no conflict going on' in refused.text
    assert "example:  /place Ruth in Dock" in refused.text
    mt.post("GM", "/conflict start Ruth, Ghoul first Ruth\n")
    before = state_snapshot(chicago)
    refused = mt.post("GM", "/place Ruth in Dock with Ghoul\n")
    assert refused.status == "rejected"
    assert "Ruth is already in the conflict" in refused.text
    refused = mt.post("GM", "/place Ethan in Dock with Charles\n")     # Charles is not fighting
    assert refused.status == "rejected"
    assert "Charles is not in this conflict" in refused.text
    assert state_snapshot(chicago) == before
