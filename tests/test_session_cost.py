"""A post's cost does not grow with the campaign's history (product: "a message's cost must
not grow with the length of the campaign's history"): the same session of a conflict (the
session of benchmarks/throughput.py: a scene, a conflict, an attack, an invoke after the
dice, an advantage, an NPC's attack, a defence, an absorb, a compel accepted, the next
exchange, the scene's end) played again and again costs each post the same queries, and the
play state the campaign carries from post to post is the same size after each session."""
from __future__ import annotations

import pytest

import json

from pbp.pipeline import process_message
from pbp.play import compels, state
from pbp.store import models as m
from tests.helpers import counting_queries, eml, make_ctx

SESSION = [     # (sender, post, dice): Ruth's tie becomes a hit with an invoke after the dice
    ("gm", '/scene start "The Warehouse"\n/aspect add "Stacked Crates"\n'
           "/conflict start Ruth, Charles, Ghoul first Ruth", ""),
    ("ruth", "/attack Ghoul with Fight\n/next Charles", "--00,0000"),
    ("ruth", '/invoke "Stacked Crates"', ""),
    ("charles", '/advantage Lore "Cornered" on Ghoul\n/next Ghoul', "0000,0000"),
    ("gm", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth", "++00"),
    ("ruth", "/defend Athletics", "-000"),
    ("ruth", "/absorb stress 2", ""),
    ("gm", '/compel Ruth "Hair-Trigger Temper" event "Ruth punches the wall"', ""),
    ("ruth", "/accept", ""),
    ("ruth", "/attack Ghoul with Fight\n/next Charles", "----,0000"),
    ("charles", "/overcome Athletics vs Fair\n/next Ghoul", "0000"),
    ("gm", "/as Ghoul attack Charles with Fight\n/as Ghoul next Ruth", "+000"),
    ("charles", "/defend Athletics", "-000"),
    ("charles", "/absorb stress 1", ""),
    ("gm", "/conflict end\n/scene end", ""),
]


def _shape(play: dict) -> dict:
    """The play state's shape: each field's length (a list's, a dict's), not the numbers in
    it (the ids grow by one a roll, which is not the state growing)."""
    return {k: len(v) if isinstance(v, (list, dict)) else None for k, v in play.items()}


def _play(config, sessions: int, counts: list[int] | None = None, tag: str = "s"):
    """Play the session ``sessions`` times; each session's queries per post, and the play
    state's shape and size after it."""
    per_session, shapes, sizes = [], [], []
    counts = []
    with counting_queries(counts):
        for s in range(sessions):
            counts.clear()
            for i, (who, body, dice) in enumerate(SESSION):
                counts.append(0)
                out = process_message(eml(body, sender=f"{who}@pbp.localhost", message_id=f"{tag}{s}-{i}@t"),
                                      make_ctx(config, dice))
                assert out.status == "applied", (s, i, body, out.errors)
            per_session.append(list(counts))
            play = m.Campaign.get().play
            shapes.append(_shape(play))
            sizes.append(len(json.dumps(play)))
    return per_session, shapes, sizes


@pytest.mark.slow
def test_a_session_costs_the_same_however_long_the_history(chicago, config, monkeypatch):
    """The play state keeps only the latest closed rolls and settled compels (50 each; 4 here,
    so that the cap is reached in a short test): after that, session 8 costs each post the
    same queries as session 5, and the play state is the same shape and size."""
    monkeypatch.setattr(state, "CLOSED_KEPT", 4)
    monkeypatch.setattr(compels, "SETTLED_KEPT", 4)
    per_session, shapes, sizes = _play(config, 8)
    rolls = m.RollRecord.select().where(m.RollRecord.action.not_in(("dice_commit", "dice_reveal")))
    assert rolls.count() == 8 * 9        # the history did grow: 8 rolls and a re-run a session
    # and each scene's dice commitment and reveal (docs/verify.md): the scene's posts roll real dice
    assert m.RollRecord.select().count() - rolls.count() == 8 * 2
    assert m.SheetChange.select().count() > 8 * 5
    assert per_session[4] == per_session[7], (per_session[4], per_session[7])
    assert shapes[4] == shapes[7], (shapes[4], shapes[7])
    assert shapes[7]["closed_rolls"] == 4 and shapes[7]["settled"] == 4
    assert abs(sizes[7] - sizes[4]) < 40, sizes           # only the ids' digits may differ


@pytest.mark.slow
def test_the_latest_closed_rolls_are_kept_when_ids_pass_99(chicago, config, monkeypatch):
    """The play state's JSON comes back with its keys sorted as strings ("100" before "99"):
    the rolls and compels forgotten are still the oldest, so an invoke on a roll that closed a
    moment ago is told why it is closed, and a compel answered again is told it is settled."""
    monkeypatch.setattr(state, "CLOSED_KEPT", 4)
    monkeypatch.setattr(compels, "SETTLED_KEPT", 4)
    _play(config, 8)                                      # ids up to 8 * 14 = 112
    play = m.Campaign.get().play
    kept = sorted(int(k) for k in play["closed_rolls"])
    assert len(kept) == 4 and kept[0] > 100 and kept[-1] == 111, kept   # the last session's
    assert sorted(int(k) for k in play["settled"]) == [64, 78, 92, 106]
    out = process_message(eml('/invoke "Stacked Crates" on #107', sender="ruth@pbp.localhost",
                              message_id="late@t"), make_ctx(config))
    assert out.status == "rejected"
    assert out.errors[0]["message"].startswith("roll #107 is closed to invokes: "), out.errors
    out = process_message(eml("/accept #106", sender="ruth@pbp.localhost", message_id="again@t"),
                          make_ctx(config))
    assert out.status == "rejected"
    assert out.errors[0]["message"] == "compel #106 is already accepted", out.errors


def test_the_session_plays_as_its_comment_says(chicago, config):
    """The session is the one the benchmark times: the invoke after the dice turns Ruth's tie
    into a 2-shift hit the ghoul absorbs, each defence fails by the shifts its absorb names, and
    the compel gives back the fate point the invoke cost; the scene's end clears the stress."""
    outs = [process_message(eml(body, sender=f"{who}@pbp.localhost", message_id=f"c-{i}@t"),
                            make_ctx(config, dice)) for i, (who, body, dice) in enumerate(SESSION)]
    assert [o.status for o in outs] == ["applied"] * len(SESSION)
    text = [" ".join(r.get("text", "") for r in o.results) for o in outs]
    ruth = m.Character.get(m.Character.name == "Ruth")
    assert ruth.fate_points == 3
    assert "tie" in json.dumps(outs[1].results) and "2 shifts" in json.dumps(outs[2].results), text[:3]
