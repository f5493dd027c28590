"""Aspects in play (004_c619695e1641b466.txt "Boosts" and "Invoking an Aspect";
000_7ba3f797fc1d45d3.txt "Boosts"): "You cannot compel a boost or spend a fate point to
invoke it. You may invoke it once for free, after which it vanishes"; "Boosts never persist
beyond the end of a scene"; "If you're in control of a boost, you may pass it to an ally if
there's rationale for it"; "You can invoke ANY ASPECT that's relevant ... Invoking an
enemy's aspect against them is called a HOSTILE INVOCATION".
"""
import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Invoke, Opposition
from pbp.errors import RulesError, UnknownNameError
from pbp.rules.actions import resolve
from pbp.rules.aspects import (
    GM, add_situation_aspect, compellable, end_scene_boosts, give_free_invokes, invoke_right,
    remove_aspect, rename_aspect, scene_boosts, usable_aspects,
)
from pbp.rules.dice import FixedDice
from pbp.rules.results import Change
from pbp.rules.state import Aspect, Consequence

from .builders import overcome


def boost(table, holder="Ruth", name="Off Balance"):
    aspect, _ = add_situation_aspect(table, name, kind="boost", free=1, holder=holder)
    return aspect


# -- who may use what -----------------------------------------------------------------------

def test_anyone_may_pay_to_invoke_an_aspect_and_another_s_is_hostile(table):
    right = invoke_right(table, "Hungry", "Ruth")
    assert right.may_pay and right.free == 0 and right.hostile_owner == "Ghoul"
    own = invoke_right(table, "Monster Hunter", "Ruth")
    assert own.hostile_owner is None


def test_a_boost_is_only_for_its_holder_and_never_for_a_point(table):
    boost(table)
    assert invoke_right(table, "Off Balance", "Ruth").usable
    theirs = invoke_right(table, "Off Balance", "Charles")
    assert not theirs.may_pay and not theirs.usable


def test_hidden_aspects_exist_only_for_their_owner(table):
    add_situation_aspect(table, "Secretly Afraid", owner="Ghoul", hidden=True)
    with pytest.raises(UnknownNameError):
        invoke_right(table, "Secretly Afraid", "Ruth")
    assert invoke_right(table, "Secretly Afraid", "Ghoul").may_pay
    assert "Secretly Afraid" not in [r.aspect.name for r in usable_aspects(table, "Ruth")]


def test_a_players_character_knows_no_hidden_aspect_not_even_its_own(table):
    """"Unknown to the players until discovered" (docs/sheets.md): the player of the
    character it is on included. The GM sees them all."""
    table.character("Ruth").player = "ruth@example.org"
    add_situation_aspect(table, "Cursed Blood", owner="Ruth", hidden=True)
    with pytest.raises(UnknownNameError) as info:
        invoke_right(table, "Cursed Blood", "Ruth")
    assert info.value.suggestions == []
    with pytest.raises(UnknownNameError) as info:
        rename_aspect(table, "Cursed Blod", "Clean Blood", viewer="Ruth")
    assert "Cursed Blood" not in info.value.suggestions and "did you mean" not in info.value.message
    assert invoke_right(table, "Cursed Blood", GM).may_pay
    assert rename_aspect(table, "Cursed Blood", "Boiling Blood")[0].after == "Boiling Blood"


def test_a_hidden_aspect_steps_aside_for_a_name_a_player_gives(table):
    from pbp.rules.aspects import step_aside

    secret, _ = add_situation_aspect(table, "Trip Wire", hidden=True)
    changes, told = step_aside(table, "trip wire", None, "Ruth")
    assert secret.name == "Trip Wire (secret)" and secret.hidden
    assert changes == [Change("aspect", "Trip Wire (secret)", "Trip Wire", "Trip Wire (secret)", "renamed")]
    assert told[0].data["gm_only"] is True
    assert step_aside(table, "Deep Shadows", None, "Ruth") == ([], [])      # not hidden: nothing to do


def test_usable_aspects_lists_free_invokes(table):
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 2
    rights = {r.aspect.name: r.free for r in usable_aspects(table, "Ruth")}
    assert rights["Deep Shadows"] == 2 and rights["Hungry"] == 0


def test_a_boost_cannot_be_compelled(table):
    boost(table)
    with pytest.raises(RulesError, match="a boost cannot be compelled"):
        compellable(table, "Off Balance", "Ruth")
    assert compellable(table, "Hair-Trigger Temper", "Ruth").owner == "Ruth"


# -- free invokes and boosts ----------------------------------------------------------------

def test_free_invokes_can_be_given_to_an_ally(table):
    shadows = table.find_aspect("Deep Shadows")
    shadows.free_invokes["Ruth"] = 2
    changes = give_free_invokes(table, "Deep Shadows", "Ruth", "Charles", 1)
    assert shadows.free_invokes == {"Ruth": 1, "Charles": 1}
    assert changes == [Change("free_invokes", "Deep Shadows (held by Ruth)", 2, 1, "given to Charles"),
                       Change("free_invokes", "Deep Shadows (held by Charles)", 0, 1, "from Ruth")]
    give_free_invokes(table, shadows, "Ruth", "charles")
    assert shadows.free_invokes == {"Charles": 2}


def test_cannot_give_more_free_invokes_than_held(table):
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    with pytest.raises(RulesError, match="Ruth holds 1 free invoke on Deep Shadows; cannot give 2") as info:
        give_free_invokes(table, "Deep Shadows", "Ruth", "Charles", 2)
    assert info.value.expected == "at most 1" and info.value.example == '/give "Deep Shadows" Charles 1'
    with pytest.raises(RulesError, match="already holds"):
        give_free_invokes(table, "Deep Shadows", "Ruth", "Ruth", 1)
    with pytest.raises(UnknownNameError):
        give_free_invokes(table, "Deep Shadows", "Ruth", "Nobody", 1)
    assert table.find_aspect("Deep Shadows").free_invokes == {"Ruth": 1}


def test_a_passed_boost_keeps_its_single_use(table):
    off = boost(table)
    assert give_free_invokes(table, "Off Balance", "Ruth", "Charles") == [
        Change("boost", "Off Balance", "held by Ruth", "held by Charles", "passed on")]
    assert off.free_invokes == {"Charles": 1}
    cmd = overcome("Investigate", opposition=Opposition(rating=0), invokes=(Invoke("Off Balance"),))
    result = resolve(cmd, table, FixedDice("0000"), "Charles", system=FATE_CONDENSED)
    assert result.effort.invokes[0].paid_with == "boost" and table.find_aspect("Off Balance") is None


def test_the_gm_passes_their_free_invokes_to_an_npc(table):
    webs, _ = add_situation_aspect(table, "Tangled in Webs", owner="Ruth", free=1)
    assert webs.free_invokes == {GM: 1}
    give_free_invokes(table, webs, GM, "Ghoul")
    assert webs.free_invokes == {"Ghoul": 1}


def test_boosts_never_outlive_the_scene(table):
    boost(table)
    boost(table, "Charles", "Wind at My Back")
    assert [a.name for a in scene_boosts(table)] == ["Off Balance", "Wind at My Back"]
    changes = end_scene_boosts(table)
    assert [c.subject for c in changes] == ["Off Balance", "Wind at My Back"]
    assert scene_boosts(table) == [] and table.find_aspect("Deep Shadows") is not None


# -- the GM's hand on the list --------------------------------------------------------------

def test_add_a_situation_aspect_with_free_invokes(table):
    aspect, changes = add_situation_aspect(table, "On Fire", free=2, holder="Ruth")
    assert aspect.free_invokes == {"Ruth": 2} and aspect.owner is None and table.find_aspect("On Fire") is aspect
    assert changes == [Change("aspect", "On Fire", None, "created", "on the scene"),
                       Change("free_invokes", "On Fire (held by Ruth)", 0, 2)]


def test_add_refuses_a_duplicate_and_bad_input(table):
    with pytest.raises(RulesError, match="Deep Shadows is already in play on the scene"):
        add_situation_aspect(table, "deep shadows")
    add_situation_aspect(table, "Deep Shadows", owner="Ghoul")   # another place, another aspect
    with pytest.raises(RulesError, match="needs a name"):
        add_situation_aspect(table, " ")
    with pytest.raises(RulesError, match="free invokes"):
        add_situation_aspect(table, "Smoke", free=-1)
    with pytest.raises(UnknownNameError):
        add_situation_aspect(table, "Smoke", owner="Nobody")


def test_remove_an_aspect_and_its_free_invokes(table):
    table.find_aspect("Deep Shadows").free_invokes["Ruth"] = 1
    changes = remove_aspect(table, "deep shadows")
    assert table.find_aspect("Deep Shadows") is None
    assert changes == [Change("aspect", "Deep Shadows", "in play", "removed", "on the scene"),
                       Change("free_invokes", "Deep Shadows (held by Ruth)", 1, 0, "the aspect is gone")]
    with pytest.raises(UnknownNameError):
        remove_aspect(table, "Deep Shadows")


def test_an_ambiguous_name_needs_its_owner(table):
    add_situation_aspect(table, "Deep Shadows", owner="Ghoul")
    with pytest.raises(RulesError, match="more than once"):
        remove_aspect(table, "Deep Shadows")
    remove_aspect(table, "Deep Shadows", owner="Ghoul")
    assert table.find_aspect("Deep Shadows").owner is None


def test_rename_keeps_free_invokes(table):
    shadows = table.find_aspect("Deep Shadows")
    shadows.free_invokes["Ruth"] = 1
    assert rename_aspect(table, "Deep Shadows", "Pitch Dark") == [Change("aspect", "Pitch Dark", "Deep Shadows", "Pitch Dark", "renamed")]
    assert table.find_aspect("Pitch Dark").free_for("Ruth") == 1
    table.aspects.append(Aspect("Deep Shadows"))
    with pytest.raises(RulesError, match="Deep Shadows is already in play there"):
        rename_aspect(table, "Pitch Dark", "deep shadows")


def test_renaming_a_consequence_follows_it_onto_the_sheet(table):
    """A consequence renamed as it starts to heal ("Gaping Chest Wound" -> "Stitched Up")."""
    ruth = table.character("Ruth")
    ruth.consequences.append(Consequence("moderate", 4, aspect="Gaping Chest Wound"))
    changes = rename_aspect(table, "Gaping Chest Wound", "Stitched Up", owner="Ruth")
    assert ruth.consequences[0].aspect == "Stitched Up"
    assert changes[-1] == Change("consequence", "Ruth", "Gaping Chest Wound", "Stitched Up", "moderate")
    with pytest.raises(RulesError, match="leaves play when Ruth recovers"):
        remove_aspect(table, "Stitched Up")
