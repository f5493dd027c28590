"""Every sheet change in the history, aspects included (issue 11, item 5): a post's history
row covers the character's row, its own aspects and the free invokes it holds, in the shape
``pbp character set`` records, so ``pbp character undo`` takes it back."""
from __future__ import annotations

from pbp.sheetdiff import describe_diff
from pbp.sheethistory import history, undo
from pbp.store import models as m
from pbp.store import repo

KNIFE, BLADE = "Knife Up My Sleeve", "Blade in My Boot"
GHOST = "Partner's Ghost Still Talks to Me"


def table(campaign):
    return repo.load_table(m.Campaign.get_by_id(campaign.id))


def own(campaign, name="Ruth"):
    return {a.name: (a.kind, a.free_invokes) for a in table(campaign).aspects if a.owner == name}


def free_on_knife(campaign):
    """Charles holds a free invoke on Ruth's "Knife Up My Sleeve" (no history: set up by hand)."""
    t = repo.load_table(campaign)
    snap = repo.snapshot(t)
    next(a for a in t.aspects if a.name == KNIFE).free_invokes = {"Charles": 1}
    repo.save_table(campaign, snap, t)


def lines(row) -> list[str]:
    return describe_diff(row.before, row.after)


def test_an_approved_rename_is_in_the_history_and_undo_brings_the_old_aspect_back(mt, chicago):
    free_on_knife(chicago)
    assert mt.post("GM", "/milestone minor\n").status == "applied"
    asked = mt.post("Ruth", f'/advance aspects.other="{GHOST}, {BLADE}"\n')
    assert asked.status == "applied", asked.text
    approved = mt.post("GM", "approve\n", reply_to=asked)
    assert approved.status == "applied", approved.text
    assert BLADE in own(chicago) and KNIFE not in own(chicago)
    row = history(chicago, "Ruth")[-1]
    assert (row.how, row.who, row.message_id) == ("play", "gm@pbp.localhost", approved.outcome.message_id)
    assert row.at == mt.now                              # when: the post's time, by the table's clock
    said = lines(row)
    # the renamed aspect keeps its free invoke, as a renamed trouble does (docs/sheets.md)
    assert said == [f'aspects: "{KNIFE}" -> "{BLADE}" (character)']
    assert own(chicago)[BLADE] == ("character", {"Charles": 1})
    assert row.before["aspects"] != row.after["aspects"]
    assert [e[0] for e in row.after["aspects"] if e[1] == "character"] == [GHOST, BLADE]

    assert any(KNIFE in x for x in undo(chicago, "Ruth", who="gm"))
    back = own(chicago)
    assert BLADE not in back and back[KNIFE] == ("character", {"Charles": 1})     # its free invoke too
    assert back[GHOST] == ("character", {})
    last = history(chicago, "Ruth")
    assert last[-2].undone and last[-1].how == "undo"


def test_a_renamed_trouble_keeps_its_free_invokes_through_the_undo(mt, chicago):
    t = repo.load_table(chicago)
    snap = repo.snapshot(t)
    next(a for a in t.aspects if a.owner == "Ruth" and a.kind == "trouble").free_invokes = {"Ghoul": 1}
    repo.save_table(chicago, snap, t)
    step = mt.post("GM", '/sheet set Ruth aspects.trouble="Short Fuse"\n')
    assert step.status == "applied", step.text
    row = history(chicago, "Ruth")[-1]
    assert (row.how, row.message_id) == ("play", step.outcome.message_id)
    assert lines(row) == ['aspects: "Hair-Trigger Temper" -> "Short Fuse" (trouble)']
    # a free invoke gained on the new name after the change stays through the undo
    t = repo.load_table(chicago)
    snap = repo.snapshot(t)
    next(a for a in t.aspects if a.name == "Short Fuse").free_invokes = {"Ghoul": 2}
    repo.save_table(chicago, snap, t)
    undo(chicago, "Ruth", who="gm")
    assert own(chicago)["Hair-Trigger Temper"] == ("trouble", {"Ghoul": 2})
    assert "Short Fuse" not in own(chicago)


def test_sheet_set_of_an_other_aspect_is_undone(mt, chicago):
    step = mt.post("GM", f'/sheet set Ruth aspects.other="{GHOST}, {BLADE}"\n')
    assert step.status == "applied", step.text
    row = history(chicago, "Ruth")[-1]
    assert (row.how, row.message_id) == ("play", step.outcome.message_id)
    assert lines(row) == [f'aspects: "{KNIFE}" -> "{BLADE}" (character)']
    undo(chicago, "Ruth", who="gm")
    assert KNIFE in own(chicago) and BLADE not in own(chicago)


def test_a_consequence_named_in_play_is_in_the_history_and_undone(mt, chicago):
    """A 6-shift hit absorbed with a mild and a moderate consequence (Fate Condensed,
    "Consequences", 001_0095f60d590caa10.txt: "write an aspect in an empty consequence
    slot"; "a minor consequence absorbs two shifts, a moderate one absorbs four"): Ruth's
    row has the slots filled and her aspects the two consequences, with the Ghoul's free
    invoke on each; the Ghoul's row says what it holds. Undo empties the slots and takes
    the aspects (and the free invokes on them) out of play."""
    assert mt.post("GM", '/scene start "Cellar"\n/conflict start Ruth, Ghoul first Ghoul\n'
                         "/as Ghoul attack Ruth with Fight +3\n", dice="0000").status == "applied"
    assert "absorb the 6-shift physical hit" in mt.post("Ruth", "/defend Athletics\n", dice="----").text
    step = mt.post("Ruth", '/absorb mild "Bitten" moderate "Torn Coat"\n')
    assert step.status == "applied", step.text
    row = next(r for r in history(chicago, "Ruth") if r.message_id == step.outcome.message_id)
    said = lines(row)
    assert 'aspects: added "Bitten" (consequence; free invokes Ghoul 1)' in said
    assert 'aspects: added "Torn Coat" (consequence; free invokes Ghoul 1)' in said
    assert any(x.startswith("consequences.") and x.endswith('-> "Bitten"') for x in said), said
    ghoul = next(r for r in history(chicago, "Ghoul") if r.message_id == step.outcome.message_id)
    assert lines(ghoul) == ['holds: free invokes on "Bitten" 0 -> 1', 'holds: free invokes on "Torn Coat" 0 -> 1']

    assert mt.post("GM", "/conflict end\n").status == "applied"
    undo(chicago, "Ruth", who="gm")
    ruth = table(chicago).character("Ruth")
    assert [q.aspect for q in ruth.consequences] == [None, None, None]
    assert not {"Bitten", "Torn Coat"} & {a.name for a in table(chicago).aspects}


def test_a_boost_gained_is_in_the_history_and_undone(mt, chicago):
    """A tie on an overcome taken as a boost (Fate Condensed, "Overcome": "Alternatively, you
    fail but gain a boost"; 000_7ba3f797fc1d45d3.txt): Ruth's Good (+3) Athletics and 0000
    against Good (+3). The boost is on her sheet as a free invoke she holds; undo takes it
    back, and a boost with no invoke left is gone."""
    step = mt.post("Ruth", "/overcome Athletics vs Good on tie boost\n", dice="0000")
    assert step.status == "applied", step.text
    boost = next(a for a in table(chicago).aspects if a.kind == "boost")
    row = history(chicago, "Ruth")[-1]
    assert (row.how, row.message_id) == ("play", step.outcome.message_id)
    assert lines(row) == [f'holds: free invokes on "{boost.name}" 0 -> 1']
    undo(chicago, "Ruth", who="gm")
    assert not [a for a in table(chicago).aspects if a.kind == "boost"]


def test_a_post_that_changes_no_sheet_adds_no_history(mt, chicago):
    """A scene aspect nobody holds an invoke on is no one's sheet."""
    step = mt.post("GM", '/scene start "Cellar"\n/aspect add "Dark"\n')
    assert step.status == "applied", step.text
    assert m.SheetChange.select().count() == 0


def test_a_boost_used_up_since_is_not_given_back_and_the_undo_says_so(mt, chicago):
    mt.post("Ruth", "/overcome Athletics vs Good on tie boost\n", dice="0000")
    boost = next(a for a in table(chicago).aspects if a.kind == "boost")
    used = mt.post("Ruth", f'/overcome Athletics vs Great +invoke "{boost.name}"\n', dice="0000")
    assert used.status == "applied", used.text
    assert not [a for a in table(chicago).aspects if a.kind == "boost"]
    said = undo(chicago, "Ruth", who="gm")        # the use: the boost has left play
    assert any("is no longer in play" in x and boost.name in x for x in said)
    assert table(chicago).character("Ruth").fate_points == 3


def test_an_aspects_scale_on_a_character_is_in_the_history_and_undone(db, config):
    """Dresden Files Condensed, "Aspects and Scale" (000_7ba3f797fc1d45d3.txt): "the GM may
    determine that invoking the aspect grants the additional benefit of its scale". A
    situation aspect put on Nora carries a level; the GM raises it; the history has the
    level before and after, and undo puts the old one back."""
    from pbp.demo import create_sample_campaign
    from tests.play.table import MailTable

    lakeshore = create_sample_campaign("dfc")
    mt = MailTable(config)
    assert mt.post("GM", '/scene start "The Stacks"\n/aspect add "Glamoured" on Nora scale Supernatural\n'
                   ).status == "applied"
    raised = mt.post("GM", '/aspect set "Glamoured" scale=Otherworldly\n')
    assert raised.status == "applied", raised.text
    row = history(lakeshore, "Nora")[-1]
    assert (row.how, row.message_id) == ("play", raised.outcome.message_id)
    assert lines(row) == ['aspects: "Glamoured" scale: "Supernatural" -> "Otherworldly"']
    undo(lakeshore, "Nora", who="gm")
    assert {a.name: a.system_state for a in table(lakeshore).aspects if a.owner == "Nora"}["Glamoured"] == \
        {"scale": "Supernatural"}
