"""A new GM's first session by mail (tests/golden/harbour_lights): a campaign of its own,
written from the docs (three PCs, a minor and a major NPC, sheets in ``sheets/``), played
post by post the way the issue "At the table" (14) tried it: two scenes with zones,
overcomes and advantages, a player's ``/table``, a compel a player offers and the GM
approves from a phone (one word, top-posted above the quoted mail), a conflict with attack,
defend and absorb, an invoke after the dice, a concession, and the attack that takes out
the last NPC followed by ``/next`` in the same post. Every reply's plain text is checked as
sent (``format=flowed``, lines within 78 characters) by the mail table that reads it back;
tests/play/test_html_screens.py lays its HTML out at 400 px."""
from __future__ import annotations

import re

from tests.play import golden

CASE = "harbour_lights"


def test_a_new_gms_first_session(harbour, config, update):
    table, transcript = golden.check(CASE, config, update)
    steps = table.steps
    assert len(steps) >= 28
    text = [s.text for s in steps]
    assert [n for n, s in enumerate(steps, start=1) if s.status != "applied"] == [12]
    # short names: "/place Mira in Stalls", "/place Dock in Yard", "/attack Bravo ..."
    assert "Mira Quell is in Stalls." in text[0] and "Dock Bravo is in Yard." in text[10]
    # the typo is refused alone, with the skill meant and an example that fits the command
    assert 'Tob Ash has no skill "Figth" (did you mean "Fight"?)' in text[11]
    assert "example:  /attack Bravo with Fight" in text[11] and steps[11].replies[0].to == ["tob@pbp.localhost"]
    # "if needed" is spent to avoid failing: Lore +4 and -2 against Good (+3) fails without it
    assert "invoke Guild Seal on the Crates (free, held by Wren Solace) +2" in text[4]
    assert "=> success, 1 shift" in text[4]
    # the compel: Mira pays, the GM's one-word phone reply approves it, Tob accepts
    assert "Changed: Mira Quell FP 3 -> 2" in text[6]
    assert "The GM approves Mira Quell's compel on Tob Ash's Can't Walk Away From a Brawl" in text[7]
    assert steps[7].replies[1].to == ["tob@pbp.localhost"]
    assert "Tob Ash FP 3 -> 4" in text[8]
    # the GM's /fp goes to the GM alone
    assert [r.to for r in steps[9].replies][1] == ["gm@pbp.localhost"]
    assert "The GM's pool: 3 fate points." in steps[9].replies[1].text
    # a defence lost by 2, then the invoke after the dice makes it a tie: no hit to absorb
    assert "Wren Solace no longer has a hit to absorb." in text[19] and "already absorbed" not in transcript
    # the concession, paid when the conflict ends; the last NPC taken out, /next skipped
    assert "Captain Varro concedes" in text[23]
    assert "The conflict is over: Mira Quell, Tob Ash and Wren Solace win" in text[25]
    assert "Skipped (line 3): the conflict ended earlier in this post" in text[25]
    assert "Turn:" not in text[25]
    assert "Captain Varro carries 1 FP into the GM's next pool" in text[25]
    # one numbering: no id names two things
    kinds: dict[int, set[str]] = {}
    for kind, n in re.findall(r"(roll|compel|defence|absorb|\() ?#(\d+)", transcript, flags=re.I):
        kinds.setdefault(int(n), set()).add("roll" if kind.lower() == "roll" else
                                             "reaction" if kind in ("(", "defence", "absorb") else "compel")
    assert kinds and all(len(k) == 1 for k in kinds.values()), kinds
    # the table's subject stays the thread's: nothing private or dated in it
    for step in steps:
        for r in step.replies:
            if len(r.to) > 1:
                assert r.subject in ("Re: [Harbour Lights] The fish market", "Re: [Harbour Lights] The customs house"), \
                    r.subject
