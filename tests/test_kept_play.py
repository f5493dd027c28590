"""The play state a post keeps for the campaign's next post (issue 23) is the one a load would
read back from the database: the same values of the same types and every map in the stored
order (a JSON column gives its keys back sorted; replies show maps in that order). Since the
post decodes again only the parts it changed (:func:`pbp.play.state.as_stored`), each post of
the benchmark's session on every system is checked against a whole load."""
from __future__ import annotations

import json

import pytest

from benchmarks.throughput import SESSIONS, Campaign
from pbp.play.state import PlayState, as_stored, dump_play, load_play
from pbp.store import models as m
from pbp.store import repo
from pbp.store.codec import in_key_order, key_sorted


def _in_order(play) -> str:
    return json.dumps(dump_play(play))      # not sort_keys: the maps' own order


@pytest.mark.parametrize("system", sorted(SESSIONS))
def test_each_post_keeps_the_play_state_a_load_would_read(system):
    campaign = Campaign(system)
    row = m.Campaign.get(m.Campaign.slug == campaign.slug)
    for _ in range(2 * len(campaign.script)):
        campaign.play(1)
        row = m.Campaign.get_by_id(row.id)
        kept = repo._KEPT[row.id].play
        loaded = load_play(row.play)
        assert kept == loaded                       # values and types (a tuple is not a list)
        assert _in_order(kept) == _in_order(loaded)


def test_a_map_put_out_of_order_is_decoded_again():
    play = PlayState()
    play.closed_rolls = {"99": "closed", "100": "closed"}
    stored = json.loads(json.dumps(dump_play(play), sort_keys=True))
    assert list(load_play(stored).closed_rolls) == ["100", "99"]
    # the same content as stored, in another order: the dump is equal, the order is not
    assert dump_play(play) == stored and not in_key_order(dump_play(play)["closed_rolls"])
    again = as_stored(play, dump_play(play), stored)
    assert list(again.closed_rolls) == ["100", "99"]


def test_a_changed_part_is_decoded_from_its_keys_sorted():
    play = PlayState()
    stored = json.loads(json.dumps(dump_play(play), sort_keys=True))
    play.settled = {"3": "refused", "12": "accepted"}
    again = as_stored(play, dump_play(play), stored)
    assert list(again.settled) == ["12", "3"]
    assert key_sorted({"b": [{"d": 1, "c": 2}], "a": 0}) == {"a": 0, "b": [{"c": 2, "d": 1}]}
    assert list(key_sorted({"b": 1, "a": 2})) == ["a", "b"]
