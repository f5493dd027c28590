"""Whole conversations by mail, checked against their transcripts in tests/golden/."""
from __future__ import annotations

from tests.play import golden


def test_popcorn_cassandra_and_ruth(chicago, config, update):
    table, _ = golden.check("popcorn", config, update)
    statuses = [s.status for s in table.steps]
    assert statuses[3] == "rejected"                       # Cassandra out of turn
    assert statuses.count("rejected") == 1
    # the last PC (Ruth) picks the acolyte; the GM's NPCs act to the end of the exchange and
    # the last of them picks the acolyte to open the next one
    assert "Ruth hands the turn to Masked Acolyte." in table.steps[2].text
    assert "Robed Cultist hands the turn to Masked Acolyte, who opens exchange 2." in table.steps[8].text
    assert "it is Masked Acolyte's turn, not Cassandra's" in table.steps[3].text


def test_a_whole_conflict_of_three_pcs_and_four_npcs(chicago, config, update):
    table, _ = golden.check("whole_conflict", config, update)
    assert len(table.steps) >= 60
    statuses = [s.status for s in table.steps]
    rejected = [n for n, status in enumerate(statuses, start=1) if status == "rejected"]
    assert rejected == [27, 29, 31]      # a short absorption, out of turn, conceding with dice out
    from pbp.store import repo
    from pbp.play.state import load_play
    from pbp.store import models as m
    t = repo.load_table(chicago)
    # Ethan conceded with two consequences taken in this conflict: 1 + 2 fate points, paid when
    # the ghoul's concession ended it; the ghoul had taken two as well
    # Ethan conceded (1 + 2 consequences) and takes 3 points; the Ghoul carries its 3 to the GM's next pool
    assert (t.character("Ethan").fate_points, t.character("Ghoul").carried_points) == (6, 3)
    assert "The conflict is over: Cassandra and Ruth win" in table.steps[54].text
    assert load_play(m.Campaign.get_by_id(chicago.id).play).conflict is None
