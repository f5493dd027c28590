"""Create an advantage ("Criar uma Vantagem", 003_eba7e658178fc706.txt).

New aspect: fail = nothing, or the aspect with the enemy's free invoke (success at a
cost); tie = a boost; success = aspect + 1 free invoke; style = 2.
Existing known aspect: fail = the enemy gets a free invoke; tie = a free invoke; success =
one; style = two. Existing unknown aspect: fail = the enemy may reveal it for a free
invoke; tie = a boost, still hidden; success = revealed + one; style = revealed + two.

Ethan's Crafts is Average (+1); with [0][0][0][0] his effort is +1.
"""
import pytest

from pbp.rules.systems import FATE_CONDENSED
from pbp.commands import Choice, Opposition
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.results import Change, Outcome
from pbp.rules.state import Aspect

from .builders import advantage, effect, effects


def molotov(table, vs, *choices, target="Shoggoth", aspect="On Fire", dice="0000", **kw):
    cmd = advantage("Crafts", aspect=aspect, target=target, opposition=Opposition(rating=vs),
                    choices=choices, **kw)
    return resolve(cmd, table, FixedDice(dice), "Ethan", system=FATE_CONDENSED)


# -- a new aspect ---------------------------------------------------------------------------

def test_new_aspect_fail(table):
    result = molotov(table, 2)
    assert result.outcome is Outcome.FAIL and effects(result) == ["fail"]
    assert table.find_aspect("On Fire") is None and result.changes == []


def test_new_aspect_fail_at_a_cost_gives_the_enemy_the_invoke(table):
    """"...ou o cria, mas o inimigo obtém a invocação gratuita": on the Shoggoth, the
    Shoggoth holds it."""
    result = molotov(table, 2, Choice("fail", "cost"))
    assert effects(result) == ["aspect_created", "enemy_free_invoke"]
    assert table.find_aspect("On Fire").free_invokes == {"Shoggoth": 1}
    assert effect(result, "aspect_created").data["rename"] is True


def test_new_scene_aspect_fail_at_a_cost_against_a_difficulty_goes_to_the_gm(table):
    """No opposing character and a scene aspect: the GM's side holds the invoke, recorded
    as ``/aspect add ... free 1`` records it (held by GM), so the GM can spend or /give it."""
    result = molotov(table, 2, Choice("fail", "cost"), target=None, aspect="Smoke Everywhere")
    assert effect(result, "enemy_free_invoke").data == {"aspect": "Smoke Everywhere", "holder": "GM", "count": 1}
    assert effect(result, "enemy_free_invoke").text == "the GM's side gets a free invoke on Smoke Everywhere"
    assert table.find_aspect("Smoke Everywhere").free_invokes == {"GM": 1}
    assert table.find_aspect("Smoke Everywhere").owner is None


def test_new_aspect_fail_at_a_cost_against_an_active_opponent(table):
    cmd = advantage("Crafts", aspect="Tripwire", opposition=Opposition(character="Ghoul"),
                    choices=(Choice("fail", "cost"),))
    resolve(cmd, table, FixedDice("-000,0000"), "Ethan", system=FATE_CONDENSED)      # 0 vs Ghoul's Notice +1
    assert table.find_aspect("Tripwire").free_invokes == {"Ghoul": 1}


def test_new_aspect_tie_is_a_boost_not_the_aspect(table):
    result = molotov(table, 1)
    assert result.outcome is Outcome.TIE and effects(result) == ["fail", "boost"]
    assert table.find_aspect("On Fire") is None
    assert table.find_aspect("Ethan's Boost").free_invokes == {"Ethan": 1}


def test_new_aspect_success(table):
    result = molotov(table, 0)
    assert effects(result) == ["aspect_created", "free_invoke"]
    assert table.find_aspect("On Fire").free_invokes == {"Ethan": 1}


def test_new_aspect_style_gives_two_free_invokes(table):
    result = molotov(table, -2)
    assert result.outcome is Outcome.STYLE
    assert table.find_aspect("On Fire").free_invokes == {"Ethan": 2}
    assert effect(result, "free_invoke").data["count"] == 2


def test_new_aspect_needs_a_name(table):
    with pytest.raises(RulesError, match="needs the aspect"):
        molotov(table, 0, aspect=None)


# -- an existing known aspect ----------------------------------------------------------------

def test_known_aspect_fail_gives_the_owner_a_free_invoke(table):
    """Ethan tries to use the Ghoul's Hungry against it and fails: the Ghoul gets the
    invoke."""
    result = molotov(table, 2, aspect="hungry", target="Ghoul")
    assert effects(result) == ["enemy_free_invoke"]
    assert table.find_aspect("Hungry").free_invokes == {"Ghoul": 1}


def test_known_scene_aspect_fail_against_a_difficulty_goes_to_the_gm(table):
    result = molotov(table, 2, aspect="Deep Shadows", target=None)
    assert effect(result, "enemy_free_invoke").data["holder"] == "GM"
    assert table.find_aspect("Deep Shadows").free_invokes == {"GM": 1}


@pytest.mark.parametrize("vs, outcome, count", [(1, Outcome.TIE, 1), (0, Outcome.SUCCESS, 1), (-2, Outcome.STYLE, 2)])
def test_known_aspect_tie_success_style(table, vs, outcome, count):
    """"Se o aspecto for conhecido, você obterá uma invocação gratuita nele" (tie); one on
    success; two with style."""
    result = molotov(table, vs, aspect="Deep Shadows", target=None)
    assert result.outcome is outcome and effects(result) == ["free_invoke"]
    assert table.find_aspect("Deep Shadows").free_invokes == {"Ethan": count}
    assert result.changes == [Change("free_invokes", "Deep Shadows (held by Ethan)", 0, count)]


def test_known_aspect_found_on_its_character_without_on(table):
    """``/advantage Crafts "Hungry"`` works on the Ghoul's Hungry without saying "on Ghoul"."""
    molotov(table, 0, aspect="Hungry", target=None)
    assert table.find_aspect("Hungry").free_invokes == {"Ethan": 1}
    assert sum(a.name == "Hungry" for a in table.aspects) == 1


# -- an unknown (hidden) aspect ---------------------------------------------------------------

@pytest.fixture
def secret(table):
    aspect = Aspect("Afraid of Fire", kind="character", owner="Ghoul", hidden=True)
    table.aspects.append(aspect)
    return aspect


def discover(table, vs, target="Ghoul"):
    cmd = advantage("Crafts", discover=True, target=target, opposition=Opposition(rating=vs))
    return resolve(cmd, table, FixedDice("0000"), "Ethan", system=FATE_CONDENSED)


def test_discover_fail_lets_the_gm_reveal_it(table, secret):
    """"Se for desconhecido, ele pode escolher revelá-lo para obter uma invocação
    gratuita": nothing is revealed yet. The table reads what it reads when nothing is
    hidden there; the GM's chance is an effect for the GM alone, which names it."""
    result = discover(table, 2)
    assert effects(result) == ["fail", "may_reveal"]
    assert effect(result, "fail").text == "Ethan finds nothing on Ghoul"
    e = effect(result, "may_reveal")
    assert e.data == {"aspect": "Afraid of Fire", "owner": "Ghoul", "holder": "Ghoul", "gm_only": True}
    assert "Afraid of Fire" in e.text
    assert secret.hidden and secret.free_invokes == {}


def test_discover_tie_is_a_boost_and_it_stays_hidden(table, secret):
    result = discover(table, 1)
    assert effects(result) == ["boost"] and secret.hidden


@pytest.mark.parametrize("vs, count", [(0, 1), (-2, 2)])
def test_discover_success_reveals_with_free_invokes(table, secret, vs, count):
    result = discover(table, vs)
    assert effects(result) == ["revealed", "free_invoke"]
    assert not secret.hidden and secret.free_invokes == {"Ethan": count}
    assert result.changes[0] == Change("aspect", "Afraid of Fire", "hidden", "revealed", "on Ghoul")


def test_discover_with_nothing_hidden(table):
    """Success still stands: there is simply nothing to find."""
    assert effects(discover(table, 0)) == ["nothing_found"]
    assert effects(discover(table, 2)) == ["fail"]


def test_naming_a_hidden_aspect_is_a_guess_that_can_uncover_it(table, secret):
    result = molotov(table, 0, aspect="afraid of fire", target="Ghoul")
    assert effects(result) == ["revealed", "free_invoke"] and not secret.hidden
    assert sum(a.name == "Afraid of Fire" for a in table.aspects) == 1


def texts(result):
    return [(e.kind, e.text) for e in result.effects if not e.data.get("gm_only")]


@pytest.mark.parametrize("vs", [2, 1], ids=["fail", "tie"])
def test_a_wrong_guess_reads_as_a_new_aspect_would(table, secret, vs):
    """What the table reads (the effects not marked gm_only) is word for word what a name
    that matches nothing gets; the aspect stays hidden and nothing is created beside it."""
    guessed = molotov(table, vs, aspect="Afraid of Fire", target="Ghoul")
    assert secret.hidden and secret.free_invokes == {}
    assert sum(a.name == "Afraid of Fire" for a in table.aspects) == 1
    table.aspects.remove(secret)
    table.aspects[:] = [a for a in table.aspects if a.kind != "boost"]
    fresh = molotov(table, vs, aspect="Afraid of Fire", target="Ghoul")
    assert texts(guessed) == texts(fresh) and guessed.changes == fresh.changes


def test_a_wrong_guess_tells_the_gm_what_was_missed(table, secret):
    result = molotov(table, 2, aspect="Afraid of Fire", target="Ghoul")
    assert effects(result) == ["fail", "may_reveal"]
    assert effect(result, "may_reveal").data["gm_only"] is True


def test_a_wrong_guess_at_a_cost_reveals_it_for_the_enemy(table, secret):
    result = molotov(table, 2, Choice("fail", "cost"), aspect="Afraid of Fire", target="Ghoul")
    assert effects(result) == ["aspect_created", "enemy_free_invoke"]
    assert not secret.hidden and secret.free_invokes == {"Ghoul": 1}
    assert sum(a.name == "Afraid of Fire" for a in table.aspects) == 1
    assert result.changes[0] == Change("aspect", "Afraid of Fire", "hidden", "revealed", "on Ghoul")
