"""A whole Dresden Files Condensed conflict by mail (tests/golden/dfc_conflict), on the sample
table of ``pbp demo --system dfc`` (pbp/samples/dresden), created with
``system="dresden-files-condensed"`` and its sheets (and their mantle file) imported under
its rules.

It shows, citing 000_7ba3f797fc1d45d3.txt: scale ("+1 per level of difference to their
action before the roll"), a mantle stunt (Ward Knife, one of the Threshold Warden's
additional stunts), a lasting condition ("you check them both off when you take the
condition"; recovery after an overcome against Great (+4), then "one more full session"), a
sticky condition cleared by its event, and a concession."""
from __future__ import annotations

import pytest

from pbp.demo import create_sample_campaign
from tests.play import golden


@pytest.fixture
def lakeshore(db):
    return create_sample_campaign("dfc")


def test_a_whole_dfc_conflict(lakeshore, config, update):
    table, _ = golden.check("dfc_conflict", config, update)
    steps = table.steps
    assert len(steps) >= 20
    assert [n for n, s in enumerate(steps, start=1) if s.status == "rejected"] == [12, 15, 17]
    text = [s.text for s in steps]
    # Scale: "+1 per level of difference to their action before the roll": the Lake Thing
    # (Otherworldly) attacks Nora (Supernatural), +1; it defends against Marcus (Mundane), +2
    assert "scale  Otherworldly over Supernatural       +1" in text[1]
    assert "scale Otherworldly over Mundane    +2" in text[10]
    # scale's benefits: "+1 additional free invoke" is for create an advantage, not an attack
    # ("+2 per level ... after the roll, if the roll succeeds" on an attack defended in a later
    # mail: tests/play/test_dfc_scale_after.py); and the lower side takes no benefit
    assert "+scale invokes is for create an advantage (a free invoke per level on a success)" in text[11]
    assert "Nora (Supernatural) is not above Lake Thing (Otherworldly) in scale" in text[16]
    # A mantle stunt: Ward Knife, the Threshold Warden's additional stunt Nora chose
    assert "stunt  Ward Knife                           +2" in text[4]
    # A lasting condition: both boxes checked when taken, its shifts absorbed (4, halved to 2)
    assert "Nora takes the lasting condition Door-Burned; Lake Thing gets a free invoke on it" in text[3]
    assert "Nora absorbs 4 shifts with lasting + 2 stress boxes" in text[3]
    assert 'lasting "Door-Burned"' in text[3] and "Lake Thing's free invokes on Door-Burned 0 -> 1" in text[3]
    # a condition for mental hits only is refused for a physical one
    assert "Nora's Shaken is for mental hits only, not physical" in text[14]
    # a sticky condition, then cleared by its event (the GM's /aspect remove)
    assert 'sticky "Drained"' in text[8] and "Drained clears: the GM says so." in text[22]
    # "require someone to overcome an obstacle with a passive opposition of at least Great
    # (+4)": the treatment; "Erase the second one ... after one more full session"
    assert "vs     Great (+4)" in text[20] and "Door-Burned on Nora is recovering" in text[20]
    assert "Door-Burned (Nora) recovery sessions left 2 -> 1" in text[21]
    assert "Nora's Door-Burned has healed." in text[23]
    assert not any(q.get("condition") == "Door-Burned" and q.get("aspect") for q in golden.sheet("Nora").consequences)
