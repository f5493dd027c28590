"""The recap (pbp.archive.recap): a few lines from what happened, the same every time,
naming only what the results the table read name."""
from __future__ import annotations

from pbp.archive.recap import recap


def roll(actor, action, outcome, target=None, skill="Fight", shifts=1, changes=()):
    return {"actor": actor, "action": action, "skill": skill, "dice": [1, 0, 0, -1], "outcome": outcome,
            "shifts": shifts, "opposition": {"character": target} if target else None, "effects": [],
            "changes": list(changes)}


def test_who_did_what_against_whom_consequences_aspects_and_the_turn():
    facts = [
        roll("Ruth", "attack", "success", "Ghoul", shifts=2,
             changes=[{"what": "consequence", "subject": "Ghoul", "before": None, "after": "Torn Ear"}]),
        roll("Ethan", "advantage", "style", "Ghoul", skill="Notice", shifts=3,
             changes=[{"what": "aspect", "subject": "Off Balance", "before": None, "after": "created"},
                      {"what": "aspect", "subject": "Dust Cloud", "before": None, "after": "created"}]),
        roll("Ruth", "attack", "fail", "Ghoul", shifts=-1),
        roll("Ruth", "attack", "success", "Ghoul",
             changes=[{"what": "taken_out", "subject": "Ghoul", "before": False, "after": True}]),
    ]
    lines = recap(facts, in_play=["Off Balance"], turn="Cassandra", note="The warehouse burns.")
    assert lines == [
        "The GM: The warehouse burns.",
        "Ruth attacks Ghoul 3 times (2 succeed, 1 fails).",
        "Ethan creates an advantage against Ghoul with Notice and succeeds with style (3 shifts).",
        'Consequences: Ghoul takes "Torn Ear".',
        "Taken out: Ghoul.",
        'Aspects made in this scene and still in play: "Off Balance".',
        "It is Cassandra's turn.",
    ]
    assert recap(facts, in_play=["Off Balance"], turn="Cassandra", note="The warehouse burns.") == lines


def test_an_empty_scene_says_so():
    assert recap([], in_play=[], turn=None) == ["Nothing has been rolled in this scene yet."]


# --------------------------------------------------------------------------- /recap by mail


def test_recap_by_mail_tells_the_table_the_scene_so_far_and_nothing_hidden(config, chicago):
    from tests.play.table import MailTable

    table = MailTable(config)
    assert table.post("GM", '/scene start "The Docks"\n/aspect add "Burning Crates"\n'
                            '/aspect add "Secret Tunnel" hidden').status == "applied"
    assert table.post("Ruth", "/overcome Athletics vs Fair", dice="++0-").status == "applied"
    step = table.post("Ethan", "/recap")
    assert step.status == "applied"
    told = step.replies[0].text
    assert "The story so far in The Docks" in told
    assert "Ruth overcomes with Athletics and succeeds" in told
    assert '"Burning Crates"' in told
    assert "Secret Tunnel" not in told and "Afraid of Fire" not in told
    assert all(r.to != ("gm@pbp.localhost",) or "Secret" not in r.text for r in step.replies)

    # the GM's note leads every recap of the scene from then on; a player may not write one
    assert table.post("GM", '/recap "The tide is coming in."').status == "applied"
    again = table.post("Ruth", "/recap").replies[0].text
    assert again.index("The GM: The tide is coming in.") < again.index("Ruth overcomes")
    refused = table.post("Ruth", '/recap "I win"')
    assert refused.status == "rejected"
    assert "for the GM" in refused.replies[0].text and "/recap" in refused.replies[0].text


def test_recap_without_a_scene_says_what_is_expected(config, chicago):
    from tests.play.table import MailTable

    step = MailTable(config).post("Ruth", "/recap")
    assert step.status == "rejected"
    assert "no scene in play" in step.replies[0].text and "/scene start" in step.replies[0].text
