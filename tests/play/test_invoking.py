"""Invoking through whole posts: ``if needed`` invokes, invokes after the dice and when a
roll closes, free invokes passed to allies, the GM's pool paying for NPCs. Rules 003,
"Invocando Aspectos"; 000, "Your Fate Points"."""
from __future__ import annotations

from datetime import timedelta

import pytest

from pbp.pipeline import process_message
from pbp.store import models as m
from pbp.store import repo
from tests.helpers import FIXED_NOW, eml, make_ctx
from tests.test_pipeline import reply_text

IF_NEEDED = '/overcome Athletics vs Good +invoke "Knife Up My Sleeve" if needed +invoke "Hair-Trigger Temper" if needed\n'


def fp(campaign, name):
    return repo.load_table(campaign).character(name).fate_points


def post(config, body, dice=None, *, sender="ruth", n=[0], reply_to=None, at=None):
    n[0] += 1
    extra = f"In-Reply-To: <{reply_to}>\n" if reply_to else ""
    ctx = make_ctx(config, dice)
    if at is not None:
        ctx.clock = lambda: at
    return process_message(eml(body, sender=f"{sender}@pbp.localhost", message_id=f"inv-{n[0]}@t", extra=extra), ctx)


# -- "if needed", through whole posts -----------------------------------------------------------

@pytest.mark.parametrize("dice, spent, outcome, points", [
    ("-000", 1, "success", 2),     # fail by 1: the first makes a success, the second is not needed
    ("--00", 1, "tie", 2),         # fail by 2: the first makes a tie, which is not failing: the second waits
    ("+000", 0, "success", 3),     # a success already: "if needed" never buys style
    ("++++", 0, "style", 3),       # already with style: neither is spent
], ids=["to success", "to a tie", "success kept", "skipped"])
def test_if_needed_invokes_are_spent_only_to_avoid_failing(chicago, config, dice, spent, outcome, points):
    """"If you fail... If you tie... If you succeed with style" (Fate Condensed, "Outcomes"):
    "if needed" is needed to avoid failing, so it stops at a tie."""
    out = post(config, IF_NEEDED, dice)
    assert out.status == "applied", out.errors
    assert out.results[0]["outcome"] == outcome
    assert fp(chicago, "Ruth") == points
    text = reply_text(out)
    assert text.count("if needed: not needed, not spent") == 2 - spent
    assert text.count("(fate point)") == spent


@pytest.mark.parametrize("dice, spent, outcome, points", [
    ("+000", 1, "style", 2),       # a success: the first makes it stylish, the second is not needed
    ("--00", 2, "success", 1),     # fail by 2: a tie, then a success (style is still one shift off)
], ids=["style", "both"])
def test_if_needed_for_style_aims_at_style(chicago, config, dice, spent, outcome, points):
    out = post(config, IF_NEEDED.replace("if needed", "if needed for style"), dice)
    assert out.status == "applied", out.errors
    assert out.results[0]["outcome"] == outcome
    assert fp(chicago, "Ruth") == points
    assert reply_text(out).count("(fate point)") == spent


def test_an_if_needed_invoke_with_no_point_left_is_refused_before_anything_changes(chicago, config):
    post(config, "/fp take Ruth 3\n", sender="gm")
    out = post(config, IF_NEEDED, "--00")
    assert out.status == "rejected"
    assert "Ruth has 0 fate points" in reply_text(out)


# -- invokes after the dice ----------------------------------------------------------------------

def test_an_invoke_after_the_dice_on_your_last_roll(chicago, config):
    first = post(config, "/overcome Athletics vs Good\n", "-000")
    assert first.results[0]["outcome"] == "fail"
    out = post(config, '/invoke "Knife Up My Sleeve"\n')
    assert out.status == "applied", out.errors
    res = out.results[0]
    assert (res["effort"], res["outcome"]) == (4, "success")
    assert fp(chicago, "Ruth") == 2
    text = reply_text(out)
    assert f"Roll #{first.results[0]['roll_id']} revised" in text
    assert "the outcome goes from failure to success" in text


def test_the_same_aspect_twice_with_fate_points_is_refused(chicago, config):
    post(config, '/overcome Athletics vs Good +invoke "Knife Up My Sleeve"\n', "--00")
    out = post(config, '/invoke "Knife Up My Sleeve"\n')
    assert out.status == "rejected"
    assert "once per roll" in reply_text(out)
    assert fp(chicago, "Ruth") == 2


def test_done_closes_the_roll(chicago, config):
    first = post(config, "/overcome Athletics vs Good\n", "-000")
    post(config, "/done\n")
    out = post(config, '/invoke "Knife Up My Sleeve"\n')
    assert out.status == "rejected"
    assert "no open roll" in reply_text(out)
    out = post(config, f'/invoke "Knife Up My Sleeve" #{first.results[0]["roll_id"]}\n')
    assert "closed to invokes: its roller said /done" in reply_text(out)


def test_the_invoke_window_closes_the_roll(chicago, config):
    first = post(config, "/overcome Athletics vs Good\n", "-000")
    late = FIXED_NOW + timedelta(hours=config.invoke_window_hours, minutes=1)
    out = post(config, f'/invoke "Knife Up My Sleeve" on #{first.results[0]["roll_id"]}\n', at=late)
    assert out.status == "rejected"
    assert "the invoke window (24 hours after the roll) has passed" in reply_text(out)


@pytest.mark.parametrize("after, open_", [
    (timedelta(hours=24) - timedelta(seconds=1), True),    # the last second of the window
    (timedelta(hours=24), False),                          # exactly the window: it has passed
], ids=["last second", "at the end"])
def test_the_invoke_window_boundary(chicago, config, after, open_):
    """docs/compels.md: a roll closes when "the campaign's invoke window passes
    (``invoke_window_hours``, 24 by default, after the roll)": open while less than the
    window has passed, closed the moment it has (the rules text is silent; pbp's choice)."""
    assert config.invoke_window_hours == 24
    first = post(config, "/overcome Athletics vs Good\n", "-000")
    out = post(config, f'/invoke "Knife Up My Sleeve" on #{first.results[0]["roll_id"]}\n', at=FIXED_NOW + after)
    if open_:
        assert out.status == "applied", out.errors
        assert out.results[0]["outcome"] == "success"
    else:
        assert out.status == "rejected"
        assert "the invoke window (24 hours after the roll) has passed" in reply_text(out)


def test_the_next_action_in_a_conflict_closes_the_roll(chicago, config):
    post(config, '/scene start "Chapel"\n/conflict start Ruth, Ghoul first Ruth\n', sender="gm")
    first = post(config, "/attack Ghoul with Fight\n/next Ghoul\n", "--00,0000")
    post(config, '/as Ghoul overcome Athletics vs Fair\n', "0000", sender="gm")
    out = post(config, f'/invoke "Knife Up My Sleeve" on #{first.results[0]["roll_id"]}\n')
    assert out.status == "rejected"
    assert "the next action has started" in reply_text(out)


def test_an_ally_adds_two_to_your_open_roll(chicago, config):
    first = post(config, "/overcome Athletics vs Good\n", "-000")
    roll = first.results[0]["roll_id"]
    out = post(config, f'/invoke "Everyone Owes Me a Favour" on #{roll}\n', sender="cassandra")
    assert out.status == "applied", out.errors
    assert out.results[0]["outcome"] == "success"
    assert (fp(chicago, "Cassandra"), fp(chicago, "Ruth")) == (2, 3)


def test_a_bare_invoke_in_a_reply_is_tied_to_that_mails_roll(chicago, config):
    first = post(config, "/overcome Athletics vs Good\n", "-000")
    post(config, "/overcome Fight vs Fair\n", "0000", sender="charles")
    table_reply = first.replies[0]["message_id"]
    out = post(config, '/invoke "Everyone Owes Me a Favour"\n', sender="cassandra", reply_to=table_reply)
    assert out.status == "applied", out.errors
    assert out.results[0]["actor"] == "Ruth"


# -- free invokes and boosts passed to allies ------------------------------------------------------

def test_free_invokes_and_boosts_are_given_to_allies(chicago, config):
    post(config, '/advantage Crafts "On Fire" on Shoggoth vs Good\n', "0+++", sender="ethan")
    out = post(config, '/give "On Fire" Ruth\n', sender="ethan")
    assert out.status == "applied", out.errors
    assert repo.load_table(chicago).find_aspect("On Fire").free_invokes == {"Ruth": 1}
    out = post(config, '/give "On Fire" Charles 2\n')
    assert out.status == "rejected" and "holds 1 free invoke on On Fire; cannot give 2" in reply_text(out)

    post(config, "/overcome Athletics vs Fair\n", "++++", sender="charles")   # with style: a boost
    boost = next(a for a in repo.load_table(chicago).aspects if a.kind == "boost")
    out = post(config, f'/give "{boost.name}" Ruth\n', sender="charles")
    assert out.status == "applied", out.errors
    assert "passes the boost" in reply_text(out)
    out = post(config, f'/overcome Athletics vs Great +invoke "{boost.name}"\n', "0000")
    assert out.status == "applied", out.errors
    assert all(a.kind != "boost" for a in repo.load_table(chicago).aspects)   # one use, then gone
    assert fp(chicago, "Ruth") == 3


# -- the GM's pool ---------------------------------------------------------------------------------

def test_npcs_invoke_with_the_gms_pool(chicago, config):
    post(config, '/scene start "Sewers"\n', sender="gm")
    pool = lambda: m.Campaign.get_by_id(chicago.id).play["ledger"]["gm_pool"]   # noqa: E731
    assert pool() == 4                                           # one per PC
    out = post(config, '/as Ghoul overcome Athletics vs Good +invoke "Ghoul of the Chicago Undercity"\n', "0000",
               sender="gm")
    assert out.status == "applied", out.errors
    assert pool() == 3 and fp(chicago, "Ghoul") == 0
    assert "GM's pool 4 -> 3" in reply_text(out)
    post(config, "/fp take Ruth 1\n", sender="gm")
    for aspect in ("Hungry for Flesh",):
        post(config, f'/as Ghoul overcome Stealth vs Good +invoke "{aspect}"\n', "0000", sender="gm")
    assert pool() == 2


def test_spending_below_zero_is_refused_with_a_clear_reply(chicago, config):
    post(config, "/fp take Ruth 3\n", sender="gm")
    out = post(config, '/fp spend "for luck"\n')
    assert out.status == "rejected"
    assert "Ruth has 0 fate points; there are no fate points to spend" in reply_text(out)


def test_an_npc_invokes_after_the_dice_with_the_gms_pool(chicago, config):
    post(config, '/scene start "Sewers"\n', sender="gm")
    first = post(config, "/as Ghoul overcome Athletics vs Good\n", "0000", sender="gm")
    assert first.results[0]["outcome"] == "fail"
    out = post(config, '/as Ghoul invoke "Hungry for Flesh"\n', sender="gm")
    assert out.status == "applied", out.errors
    assert out.results[0]["outcome"] == "success"
    assert m.Campaign.get_by_id(chicago.id).play["ledger"]["gm_pool"] == 3
    assert fp(chicago, "Ghoul") == 0


def test_an_npcs_invoke_after_the_dice_with_an_empty_pool_is_refused_in_the_pools_words(chicago, config):
    """000, "Your Fate Points": the GM spends from the pool "exactly as the players do", so an
    empty pool refuses like an empty sheet, in its own words, and changes nothing."""
    post(config, '/scene start "Sewers"\n', sender="gm")
    pool = lambda: m.Campaign.get_by_id(chicago.id).play["ledger"]["gm_pool"]   # noqa: E731
    for _ in range(4):                                           # one point per PC, all spent
        out = post(config, '/as Ghoul overcome Athletics vs Fair +invoke "Hungry for Flesh"\n', "0000", sender="gm")
        assert out.status == "applied", out.errors
    assert pool() == 0
    first = post(config, "/overcome Athletics vs Good\n", "0000")
    assert first.results[0]["outcome"] == "tie"
    out = post(config, f'/as Ghoul invoke "Hungry for Flesh" oppose on #{first.results[0]["roll_id"]}\n', sender="gm")
    assert out.status == "rejected"
    text = reply_text(out)
    assert "the GM's pool has 0 fate points; invoking Hungry for Flesh needs one" in text
    assert "Traceback" not in text and "/fp" in text
    assert pool() == 0 and fp(chicago, "Ghoul") == 0 and fp(chicago, "Ruth") == 3


def test_an_npcs_invoke_after_the_dice_opens_the_pool_it_pays_from(chicago, config):
    """A campaign played without /scene start gets one pool, opened at its first need
    (docs): an NPC's invoke after the dice on Ruth's roll is such a need. Ruth's Athletics
    Good and [0][0][0][0] against Good tie; the Ghoul's oppose makes it a failure."""
    first = post(config, "/overcome Athletics vs Good\n", "0000")
    assert first.results[0]["outcome"] == "tie"
    out = post(config, f'/as Ghoul invoke "Hungry for Flesh" oppose on #{first.results[0]["roll_id"]}\n', sender="gm")
    assert out.status == "applied", out.errors
    assert out.results[0]["outcome"] == "fail"
    assert m.Campaign.get_by_id(chicago.id).play["ledger"]["gm_pool"] == 3     # 4 PCs, one spent
    assert fp(chicago, "Ghoul") == 0 and fp(chicago, "Ruth") == 3


def test_oppose_on_an_attack_still_waiting_for_its_defence_is_refused_with_what_to_do(chicago, config):
    """An attack on a player's character is rolled in two halves (the defence comes by
    mail): before the defence nobody has rolled against the attacker, so "add 2 to the
    difficulty of someone else's roll" has no difficulty yet. Refused, with the defence that
    can carry the invoke; nothing changes."""
    post(config, '/scene start "Sewers"\n/conflict start Ruth, Ghoul first Ghoul\n', sender="gm")
    attack = post(config, "/as Ghoul attack Ruth with Fight\n", "0000", sender="gm")
    assert attack.status == "applied", attack.errors
    out = post(config, f'/invoke "Knife Up My Sleeve" oppose on #{attack.results[0]["roll_id"]}\n')
    assert out.status == "rejected"
    text = reply_text(out)
    assert "nobody has rolled against Ghoul yet" in text and '/defend Athletics +invoke "Knife Up My Sleeve"' in text
    assert fp(chicago, "Ruth") == 3


def test_an_oppose_invoke_on_a_defence_turns_a_tie_into_a_hit_to_absorb(chicago, config):
    """The Ghoul attacks Ruth (Fight Fair, [0][0][0][0]: Fair); Ruth defends with Athletics
    Good and [-][0][0][0], Fair: a tie. The GM invokes the Ghoul's hunger against her defence
    (oppose, from the GM's pool): the defence re-runs against Great and fails by two, so Ruth
    now has a 2-shift hit to absorb."""
    post(config, '/scene start "Sewers"\n/conflict start Ruth, Ghoul first Ghoul\n', sender="gm")
    post(config, "/as Ghoul attack Ruth with Fight\n", "0000", sender="gm")
    defence = post(config, "/defend Athletics\n", "-000")
    assert defence.status == "applied", defence.errors
    assert defence.results[0]["outcome"] == "tie"
    roll = defence.results[0]["roll_id"]
    out = post(config, f'/as Ghoul invoke "Hungry for Flesh" oppose on #{roll}\n', sender="gm")
    assert out.status == "applied", out.errors
    assert out.results[0]["outcome"] == "fail"
    text = reply_text(out)
    assert "Ruth now has a hit to absorb" in text
    pending = m.Campaign.get_by_id(chicago.id).play["pending"]
    assert [(p["kind"], p["target"], p["shifts"]) for p in pending] == [("absorb", "Ruth", 2)]
    assert all(a.kind != "boost" for a in repo.load_table(chicago).aspects)    # the tie's boost is gone


def test_hostile_invoke_points_are_paid_when_the_conflict_ends(chicago, config):
    """"At the end of a conflict ... the GM also pays out fate points owed to players for
    hostile invokes that happened during the conflict" (000, "Ending a Conflict"): Ruth
    invokes the Ghoul's trouble; the Ghoul's point is owed until the conflict ends, then
    carried into the GM's next pool."""
    post(config, '/scene start "Cellar"\n/conflict start Ruth, Ghoul first Ruth\n', sender="gm")
    post(config, '/attack Ghoul with Fight +invoke "Hungry for Flesh" fp\n/next Ghoul\n', "0000,0000")
    table = repo.load_table(chicago)
    assert table.character("Ruth").fate_points == 2 and table.character("Ghoul").carried_points == 0
    out = post(config, '/as Ghoul concede "It flees into the sewers"\n', sender="gm")
    assert out.status == "applied", out.errors
    ghoul = repo.load_table(chicago).character("Ghoul")
    assert ghoul.carried_points == 1 + 1   # one for conceding, one for the hostile invoke


# -- a revised defence and the hit it waited to absorb -------------------------------------------

def test_an_invoke_after_the_dice_that_removes_a_hit_not_yet_absorbed_says_only_that(mt, chicago):
    """Fate Condensed (003, "Invocando Aspectos"): invoking after the roll adds +2. Ruth's
    Athletics +3 and [-][0][0][0] fail the Ghoul's +4 by 2: a 2-shift hit waits for her
    /absorb. Her invoke makes it a tie (no hit): the absorption is dropped, and the reply does
    not tell the GM to mend a sheet that was never marked."""
    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n", dice="++00")
    assert attack.status == "applied", attack.text
    defence = mt.post("Ruth", "/defend Athletics\n", dice="-000", reply_to=attack)
    assert defence.status == "applied", defence.text
    assert "absorb the 2-shift physical hit" in defence.text
    step = mt.post("Ruth", '/invoke "Knife Up My Sleeve"\n', reply_to=defence)
    assert step.status == "applied", step.text
    assert "the outcome goes from failure to a tie" in step.text
    assert "Ruth no longer has a hit to absorb." in step.text
    assert "already absorbed" not in step.text
    assert (m.Campaign.get_by_id(chicago.id).play or {})["pending"] == []


def test_an_invoke_after_the_dice_on_a_hit_already_absorbed_asks_the_gm_to_mend_the_sheet(mt, chicago):
    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n", dice="++00")
    defence = mt.post("Ruth", "/defend Athletics\n", dice="-000", reply_to=attack)
    absorbed = mt.post("Ruth", "/absorb stress 2\n", reply_to=defence)
    assert absorbed.status == "applied", absorbed.text
    step = mt.post("Ruth", '/invoke "Knife Up My Sleeve"\n', reply_to=defence)
    assert step.status == "applied", step.text
    assert "Ruth has already absorbed the old hit: the GM adjusts Ruth's sheet by hand." in step.text


def test_an_open_roll_is_named_with_the_full_name_of_its_target(mt, chicago):
    """A short name typed in the command (``Cass``) is the character's full name in the
    roll's one-line summary (``/table``, the list of open rolls)."""
    attack = mt.post("GM", "/as Ghoul attack Cass with Fight\n", dice="++00")
    assert attack.status == "applied", attack.text
    step = mt.post("Ruth", "/table\n")
    assert "Ghoul's attack on Cassandra with Fight, is open for invokes" in step.text
