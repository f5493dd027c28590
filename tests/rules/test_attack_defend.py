"""Attack and defend ("Atacar", "Defender", and "Quais habilidades podem ser usadas para
atacar e defender?", 003_eba7e658178fc706.txt).

Attack: fail = nothing; tie = a boost; success = a hit equal to the shifts; style = the
hit, or one shift less and a boost. Defend: fail = a hit; tie = as the attacker's tie;
success = no hit; style = no hit and a boost. Fight and Shoot attack physically, Provoke
mentally; Athletics defends any physical attack, Fight melee, Will mental.

Ruth: Fight Great (+4), Athletics and Will Good (+3). The Ghoul: Fight Fair (+2),
Athletics and Notice Average (+1), "Biting People" Good (+3).
"""
import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Choice, Invoke, InvokeMode, Opposition
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Outcome
from pbp.rules.state import Stunt

from .builders import attack, defend, effect, effects


def punch(table, ruth_dice, *choices, ghoul_dice="0000", **kw):
    dice = ",".join(d for d in (ruth_dice, ghoul_dice) if d)
    return resolve(attack("Ghoul", "Fight", choices=choices, **kw), table, FixedDice(dice), "Ruth", system=FATE_CONDENSED)


def test_the_target_defends_with_its_best_melee_defence(table):
    """Against Fight the Ghoul may use Athletics (+1) or Fight (+2): it picks Fight."""
    result = punch(table, "0000")
    assert result.opposition.effort.skill == "Fight" and result.opposition.value == 2


def test_attack_fail_is_a_miss(table):
    result = punch(table, "----")
    assert result.outcome is Outcome.FAIL and effects(result) == ["miss"]


def test_attack_tie_is_a_boost(table):
    result = punch(table, "--00")
    assert result.outcome is Outcome.TIE and effects(result) == ["boost"]
    assert table.find_aspect("Ruth's Boost").free_invokes == {"Ruth": 1}


def test_attack_success_is_a_hit_of_the_shifts(table):
    result = punch(table, "0000")
    assert effect(result, "hit").data == {"target": "Ghoul", "shifts": 2, "attacker": "Ruth"}


def test_attack_style_is_the_full_hit(table):
    result = punch(table, "++00")
    assert result.outcome is Outcome.STYLE and effects(result) == ["hit"]
    assert effect(result, "hit").data["shifts"] == 4


def test_attack_style_may_trade_a_shift_for_a_boost(table):
    """"...pode reduzir as tensões do golpe em um para obter um impulso"."""
    result = punch(table, "++00", Choice("style", "boost"))
    assert effects(result) == ["hit", "boost"]
    assert effect(result, "hit").data["shifts"] == 3
    assert result.shifts == 4


def test_an_attack_needs_a_target(table):
    with pytest.raises(RulesError, match="needs a target"):
        resolve(attack(""), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="cannot oppose"):
        resolve(attack("Ruth", "Fight"), table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)


def test_shoot_is_dodged_with_athletics_only(table):
    """Fight defends only against melee; a shot is dodged with Athletics."""
    result = resolve(attack("Ruth", "Shoot"), table, FixedDice("0000,0000"), "Ethan", system=FATE_CONDENSED)
    assert result.opposition.effort.skill == "Athletics"


def test_provoke_is_resisted_with_will(table):
    """Will resists Provoke; the ghoul has no Will, so it resists at Mediocre (+0) with no
    skill named: an NPC defends only with skills it has (tests/play/test_rules_fixes.py)."""
    result = resolve(attack("Ghoul", "Provoke"), table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.effort.skill == "(no skill)" and result.opposition.value == 0
    table.character("Ghoul").skills["Will"] = 1
    result = resolve(attack("Ghoul", "Provoke"), table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.effort.skill == "Will" and result.opposition.value == 1


def test_lore_cannot_attack_without_a_stunt(table):
    """"Outras habilidades podem obter permissão ... Algumas façanhas podem conceder uma
    permissão": a stunt for Lore + attack grants it."""
    with pytest.raises(RulesError, match="Lore cannot be used to attack") as info:
        resolve(attack("Ghoul", "Lore"), table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert info.value.example == "/attack Ghoul with Fight"
    table.character("Ruth").stunts.append(Stunt("Words of Power", skill="Lore", action="attack", bonus=0))
    assert resolve(attack("Ghoul", "Lore"), table, FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED).effort.total == 2


def test_an_npcs_free_form_skill_may_attack(table):
    """The GM wrote "Biting People" to bite with; Ruth defends with her best defence."""
    result = resolve(attack("Ruth", "Biting People"), table, FixedDice("0000,0000"), "Ghoul", system=FATE_CONDENSED)
    assert result.effort.total == 3
    assert result.opposition.effort.skill == "Fight" and result.opposition.value == 4


def test_a_named_defence_must_fit_the_attack(table):
    with pytest.raises(RulesError, match="Notice cannot be used to defend"):
        punch(table, "0000", opposition=Opposition(character="Ghoul", skill="Notice"))
    result = punch(table, "0000", opposition=Opposition(character="Ghoul", skill="Athletics"))
    assert result.opposition.value == 1


def test_an_attack_against_a_fixed_defence(table):
    result = punch(table, "0000", opposition=Opposition(rating=3), ghoul_dice="")
    assert result.opposition.effort is None and result.shifts == 1


def test_the_defenders_own_defend_stunts_apply(table):
    table.character("Ghoul").stunts.append(Stunt("Slippery", skill="Athletics", action="defend", bonus=2))
    result = punch(table, "0000")
    assert result.opposition.effort.skill == "Fight"       # the stunt does not choose the skill
    table.character("Ghoul").skills["Athletics"] = 2
    table.character("Ghoul").skills["Fight"] = 1
    result = punch(table, "0000")
    assert result.opposition.value == 4 and result.opposition.effort.modifiers[1].label == "Slippery"


# -- defend -----------------------------------------------------------------------------------

def dodge(table, dice, vs=4, skill="Athletics", **kw):
    return resolve(defend(skill, opposition=Opposition(rating=vs), **kw), table, FixedDice(dice), "Ruth", system=FATE_CONDENSED)


def test_defend_fail_is_a_hit_on_the_defender(table):
    """"Se você falhar contra um ataque, você leva um golpe"."""
    result = dodge(table, "-000")
    assert (result.shifts, result.outcome) == (-2, Outcome.FAIL)
    assert effect(result, "hit").data == {"target": "Ruth", "shifts": 2, "attacker": None}


def test_defend_tie_against_a_fixed_attack_gives_the_gm_a_boost(table):
    result = dodge(table, "+000")
    assert effects(result) == ["gm_boost"]


def test_defend_success_is_no_hit(table):
    assert effects(dodge(table, "++00")) == ["defended"]


def test_defend_style_is_no_hit_and_a_boost(table):
    result = dodge(table, "++++")
    assert result.outcome is Outcome.STYLE and effects(result) == ["defended", "boost"]
    assert table.find_aspect("Ruth's Boost").free_invokes == {"Ruth": 1}


def test_defend_against_the_ghoul_who_attacks_with_fight(table):
    """The Ghoul attacks with its best attack skill Athletics can answer (Fight +2); a tie
    gives the Ghoul the boost, as its attack's tie would."""
    result = resolve(defend("Athletics", opposition=Opposition(character="Ghoul")), table,
                     FixedDice("-000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.effort.skill == "Fight" and result.opposition.value == 2
    assert result.outcome is Outcome.TIE
    assert effect(result, "boost").data["holder"] == "Ghoul"
    assert table.find_aspect("Ghoul's Boost").free_invokes == {"Ghoul": 1}


def test_defend_fail_against_the_ghoul_names_the_attacker(table):
    result = resolve(defend("Athletics", opposition=Opposition(character="Ghoul", skill="Biting People")),
                     table, FixedDice("----,0000"), "Ruth", system=FATE_CONDENSED)
    assert effect(result, "hit").data == {"target": "Ruth", "shifts": 4, "attacker": "Ghoul"}


def test_the_attackers_attack_stunts_apply(table):
    table.character("Ghoul").stunts.append(Stunt("Pounce", skill="Fight", action="attack", bonus=2))
    result = resolve(defend("Athletics", opposition=Opposition(character="Ghoul")), table,
                     FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)
    assert result.opposition.value == 4


def test_defend_with_no_skill_uses_the_best_allowed(table):
    assert dodge(table, "0000", skill="").skill == "Fight"


def test_defend_needs_an_attack_and_an_allowed_skill(table):
    with pytest.raises(RulesError, match="needs the attack"):
        resolve(defend("Athletics"), table, FixedDice("0000"), "Ruth", system=FATE_CONDENSED)
    with pytest.raises(RulesError, match="Physique cannot be used to defend"):
        dodge(table, "0000", skill="Physique")
    with pytest.raises(RulesError, match="Athletics cannot be used to defend"):
        resolve(defend("Athletics", opposition=Opposition(character="Ghoul", skill="Provoke")), table,
                FixedDice("0000,0000"), "Ruth", system=FATE_CONDENSED)


def test_oppose_invoke_raises_the_bar_the_attack_must_clear(table):
    """"...ou você pode adicionar 2 à dificuldade do rolamento de outra pessoa": in a
    defence, the difficulty the attack faces is the defence itself."""
    result = dodge(table, "-000", invokes=(Invoke("Deep Shadows", mode=InvokeMode.OPPOSE),))
    assert result.effort.total == 4 and result.outcome is Outcome.TIE
    assert result.effort.modifiers[-1].label == "Deep Shadows (oppose, fate point)"
    assert result.effort.invokes[0].mode == "oppose"
