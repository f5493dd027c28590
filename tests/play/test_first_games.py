"""What a new GM and their players tripped over in their first games (issue 27, item 3),
each checked from the side that met it: the replies they read, the CLI's output and exit."""
from __future__ import annotations

from pbp.store import models as m


# ---------------------------------------------------------------- the GM's plain roll

def test_the_gm_makes_a_plain_roll_for_the_weather(mt, chicago):
    step = mt.post("GM", "The wind turns.\n/roll 4dF\n", dice="+0-+")
    assert step.status == "applied", step.text
    assert "GM rolls 4dF" in step.text
    assert "[+] [0] [-] [+]" in step.text and "+1 Average" in step.text
    assert m.RollRecord.select().count() == 1


def test_the_gms_skill_roll_still_names_a_character_with_an_example_of_this_campaign(mt, chicago):
    step = mt.post("GM", "/roll Fight\n", dice="+0-+")
    assert step.status == "rejected"
    assert "a plain /roll 4dF needs none" in step.text
    npc = min((c.name for c in m.Character.select() if not c.player), key=str.casefold)
    written = f'"{npc}"' if " " in npc else npc
    assert f"example:  /as {written} roll Fight" in step.text
