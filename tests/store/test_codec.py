"""The codec's loads are independent of what they were loaded from: the play state is one
JSON document per campaign (``Campaign.play``), and ``pbp.flow.commit.save_play`` writes it only when
the new dump differs from it. A load that shared a nested dict or list with that document let
an in-place edit change both, so the edit looked like no change and was never saved, and a
second load of the same document saw the first one's edits."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pbp.flow.commit import save_play as _save_play
from pbp.play.state import PlayState, dump_play, load_play
from pbp.rules.fate_points import DetailRequest
from pbp.store import models as m
from pbp.store.codec import dump, load
from tests.helpers import FIXED_NOW


@dataclass
class Untyped:
    plain: dict = field(default_factory=dict)
    items: list = field(default_factory=list)
    anything: Any = None
    pairs: tuple = ()


def _walk(value):
    """Every dict and list inside a JSON value."""
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        yield value
        for v in value:
            yield from _walk(v)


def _objects(value) -> set[int]:
    """The ids of every dict and list reachable from a loaded value's fields."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        x = stack.pop()
        if isinstance(x, (dict, list, tuple)):
            if isinstance(x, (dict, list)):
                seen.add(id(x))
            stack.extend(x.values() if isinstance(x, dict) else x)
        elif hasattr(x, "__dataclass_fields__"):
            stack.extend(getattr(x, f) for f in x.__dataclass_fields__)
    return seen


def test_a_load_shares_no_dict_or_list_with_its_source():
    source = dump(Untyped(plain={"a": {"b": [1, 2]}}, items=[{"c": 1}, [2]], anything={"d": [3]},
                          pairs=({"e": 1}, [4])))
    loaded = load(Untyped, source)
    assert loaded.plain == {"a": {"b": [1, 2]}} and loaded.anything == {"d": [3]}
    assert _objects(loaded).isdisjoint(id(x) for x in _walk(source))
    loaded.plain["a"]["b"].append(3)
    loaded.items[0]["c"] = 2
    loaded.anything["d"].clear()
    loaded.pairs[0]["e"] = 9
    assert source["plain"] == {"a": {"b": [1, 2]}}
    assert source["items"] == [{"c": 1}, [2]] and source["anything"] == {"d": [3]}
    assert source["pairs"] == [{"e": 1}, [4]]


def test_two_loads_of_one_play_state_are_independent():
    play = PlayState()
    play.details.append(DetailRequest(3, "Ruth", "x", FIXED_NOW, kind="cost", data={"severity": "minor"}))
    play.settled["2"] = "compel #2 is already accepted"
    play.open_rolls.append(["Ruth", [1], FIXED_NOW.isoformat(), "{}"])
    source = dump_play(play)
    first, second = load_play(source), load_play(source)
    first.details[0].data["severity"] = "serious"
    first.settled["2"] = "changed"
    first.open_rolls[0][1].append(5)
    assert second.details[0].data == {"severity": "minor"}
    assert second.settled == {"2": "compel #2 is already accepted"}
    assert second.open_rolls[0][1] == [1]
    assert dump_play(first) != source


def test_an_in_place_edit_of_a_nested_dict_is_saved(chicago, config):
    """The pipeline's own load and save, on a real SQLite store."""
    play = PlayState()
    play.details.append(DetailRequest(play.new_id(), "Ruth", "a minor cost on Ruth's roll", FIXED_NOW,
                                      kind="cost", data={"severity": "minor", "roll": None}))
    play.advances = {"Ruth": {"level": "minor", "skill_points": 1}}
    _save_play(chicago, play, config)

    campaign = m.Campaign.get_by_id(chicago.id)
    loaded = load_play(campaign.play)
    loaded.details[0].data["roll"] = 7               # in place: the nested dict, not the field
    loaded.advances["Ruth"]["skill_points"] = 0
    _save_play(campaign, loaded, config)

    again = load_play(m.Campaign.get_by_id(chicago.id).play)
    assert again.details[0].data == {"severity": "minor", "roll": 7}
    assert again.advances == {"Ruth": {"level": "minor", "skill_points": 0}}
