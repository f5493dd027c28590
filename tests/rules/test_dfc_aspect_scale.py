"""Scale on situation aspects, Dresden Files Condensed (000_7ba3f797fc1d45d3.txt, "Scale",
"Aspects and Scale"):

    "Active situation aspects sometimes represent a supernatural effect. In these cases, the
    GM may determine that invoking the aspect grants the additional benefit of its scale."

The GM determines it by giving the aspect a level (``/aspect add ... scale LEVEL``, ``/aspect
set NAME scale=LEVEL``); invoking it puts the invoker's side at the aspect's level for that
roll when that is higher than the character's own, and the benefits of "Scale" follow: "+1 per
level of difference to their action before the roll", "+2 per level of difference to the
result after the roll, if the roll succeeds", "1 additional free invoke per level of
difference to the results of a successful create advantage action". Fixed dice throughout.
"""
from __future__ import annotations

import pytest

from pbp.commands import Advantage, Attack, Invoke, Opposition, Overcome, Payment, ScaleUse
from pbp.errors import RulesError
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice
from pbp.rules.reopen import reresolve, throws_of
from pbp.rules.results import Outcome
from pbp.rules.state import Aspect, Table
from pbp.rules.systems import DRESDEN_FILES_CONDENSED as DFC
from pbp.rules.systems import FATE_CONDENSED
from pbp.sheetfile import parse_sheet

STATE = DFC.character_state


def table_with(mine: str, theirs: str, level: str | None = "Supernatural", kind: str = "situation") -> Table:
    """Nora (Fight and Lore Good, Athletics Fair) and the Thing (Fight Fair, Athletics and Will
    Average), each at a level of scale; the scene's Veiled carries ``level`` and Nora holds
    two free invokes on it."""
    nora = parse_sheet({"name": "Nora", "kind": "npc", "skills": {"Fight": 3, "Lore": 3, "Athletics": 2},
                        "scale": mine, "aspects": {"high_concept": "Warden"}}, DFC).character
    thing = parse_sheet({"name": "Thing", "kind": "npc", "skills": {"Fight": 2, "Athletics": 1, "Will": 1},
                         "scale": theirs, "aspects": {"high_concept": "Lake Thing"}}, DFC).character
    veiled = Aspect("Veiled", kind=kind, free_invokes={"Nora": 2})
    if level:
        STATE.set_aspect(veiled, "scale", level)
    return Table(system=DFC.name, characters={"Nora": nora, "Thing": thing}, aspects=[veiled])


def scale_terms(effort) -> list[tuple[str, int]]:
    return [(m.label, m.value) for m in effort.modifiers if m.source == "scale"]


def attack(source: str = '/attack Thing with Fight +invoke Veiled', **kw) -> Attack:
    return Attack(line=1, source=source, skill="Fight", target="Thing", opposition=Opposition(character="Thing"),
                  invokes=(Invoke("Veiled"),), **kw)


@pytest.mark.parametrize("level, levels", [("Supernatural", 1), ("Otherworldly", 2), ("Godlike", 4)])
def test_invoking_an_aspect_with_scale_grants_it_before_the_roll(level, levels):
    """Mundane Nora invokes Veiled against the Mundane Thing: her side is at the aspect's
    level, and takes the default "+1 per level of difference to their action before the
    roll". Fight +3, dice 0000, the invoke +2, scale +1 per level, against the Thing's Fight
    +2 with 0000."""
    table = table_with("Mundane", "Mundane", level)
    result = resolve(attack(), table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [(f"{level} (Veiled) over Mundane", levels)]
    assert result.effort.total == 3 + 2 + levels and result.shifts == 3 + levels
    assert table.find_aspect("Veiled").free_invokes == {"Nora": 1}


def test_without_the_invoke_the_aspect_grants_nothing():
    """Scale comes with invoking the aspect: the same attack without the invoke has none."""
    table = table_with("Mundane", "Mundane")
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [] and result.effort.total == 3


def test_the_characters_own_higher_level_stands():
    """The aspect's level counts only when it is higher than the character's own: Otherworldly
    Nora invokes the Supernatural Veiled and stays two levels above the Mundane Thing."""
    table = table_with("Otherworldly", "Mundane")
    result = resolve(attack(), table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [("Otherworldly over Mundane", 2)]


def test_an_aspect_evens_the_sides_against_a_higher_opponent():
    """Without the invoke the Supernatural Thing's defence takes +1; invoking the Supernatural
    Veiled puts Nora's side level with it, and neither side takes a benefit."""
    table = table_with("Mundane", "Supernatural")
    plain = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                   opposition=Opposition(character="Thing"))
    before = resolve(plain, table_with("Mundane", "Supernatural"), FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(before.opposition.effort) == [("Supernatural over Mundane", 1)]
    result = resolve(attack(), table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [] and scale_terms(result.opposition.effort) == []
    assert result.shifts == 3 + 2 - 2


def test_a_higher_opponent_takes_less_when_an_aspect_closes_part_of_the_gap():
    """The Legendary Thing against Mundane Nora: +3 on its defence; with the Supernatural
    Veiled invoked, +2 ("Legendary over Supernatural (Veiled)")."""
    table = table_with("Mundane", "Legendary")
    result = resolve(attack(), table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.opposition.effort) == [("Legendary over Supernatural (Veiled)", 2)]
    assert result.opposition.value == 2 + 2


def test_the_aspect_makes_the_invoker_the_higher_side_for_scale_after():
    """"+2 per level of difference to the result after the roll, if the roll succeeds":
    Mundane Nora names +scale after with the Otherworldly Veiled invoked: Lore +3, 0000, +2
    for the invoke, against the Thing's Will +1, 0000: success by 4, then +2 per level (2)."""
    table = table_with("Mundane", "Mundane", "Otherworldly")
    cmd = Overcome(line=1, source="/overcome Lore vs Thing +invoke Veiled +scale after", skill="Lore",
                   opposition=Opposition(character="Thing", skill="Will"), invokes=(Invoke("Veiled"),),
                   scale=ScaleUse("after"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [("Otherworldly (Veiled) over Mundane", 4)]
    assert result.shifts == 4 + 4


def test_the_aspect_adds_free_invokes_to_a_successful_advantage():
    """"1 additional free invoke per level of difference to the results of a successful create
    advantage action": Mundane Nora, with the Supernatural Veiled invoked, creates Warded
    Circle against the Thing's Will: Lore +3 +2, 0000, against +1, 0000: success with style
    by 4, two free invokes ("you create a situation aspect with two free invokes on it") and one more
    for the level."""
    table = table_with("Mundane", "Mundane")
    cmd = Advantage(line=1, source='/advantage Lore "Warded Circle" vs Thing +invoke Veiled +scale invokes',
                    skill="Lore", aspect="Warded Circle", opposition=Opposition(character="Thing", skill="Will"),
                    invokes=(Invoke("Veiled"),), scale=ScaleUse("invokes"))
    result = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert result.outcome is Outcome.STYLE and result.shifts == 4 and scale_terms(result.effort) == []
    assert table.find_aspect("Warded Circle").free_invokes == {"Nora": 2 + 1}


def test_plus_scale_by_a_mundane_character_needs_the_aspect():
    """Naming +scale is for the higher side: Mundane Nora may name it only with the aspect
    invoked (the refusal's example drops +scale)."""
    table = table_with("Mundane", "Mundane")
    cmd = Attack(line=1, source="/attack Thing with Fight +scale", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"), scale=ScaleUse())
    with pytest.raises(RulesError) as caught:
        resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert caught.value.message.startswith("Nora (Mundane) is not above Thing (Mundane) in scale")
    result = resolve(attack("/attack Thing with Fight +invoke Veiled +scale", scale=ScaleUse()), table,
                     FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [("Supernatural (Veiled) over Mundane", 1)]


def test_an_invoke_after_the_dice_grants_the_scale_too():
    """By post an invoke may come after the dice (pbp.rules.reopen): the roll re-run with
    Veiled invoked takes its scale as if it had been invoked with the roll. Fight +3, 00--
    (-2), against Fight +2, 0000: a fail by 1; with Veiled (+2) and Supernatural scale (+1):
    success by 2."""
    before = table_with("Mundane", "Mundane")
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    import copy
    first = resolve(cmd, copy.deepcopy(before), FixedDice("00--,0000"), "Nora", DFC)
    assert first.outcome is Outcome.FAIL and scale_terms(first.effort) == []
    again = reresolve(cmd, before, throws_of(first), "Nora", DFC,
                      extra_invokes=[Invoke("Veiled", payment=Payment.FREE)])
    assert scale_terms(again.effort) == [("Supernatural (Veiled) over Mundane", 1)]
    assert again.shifts == 2 and again.outcome is Outcome.SUCCESS


def test_an_if_needed_invoke_of_an_aspect_with_scale_is_refused():
    """An ``if needed`` invoke is judged after the dice, but the scale it would bring changes
    the roll before any invoke is judged: the reply asks for a plain invoke."""
    table = table_with("Mundane", "Mundane")
    cmd = Attack(line=1, source="/attack Thing with Fight +invoke Veiled if needed", skill="Fight",
                 target="Thing", opposition=Opposition(character="Thing"), invokes=(Invoke("Veiled", if_needed=True),))
    with pytest.raises(RulesError) as caught:
        resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC)
    assert "Veiled carries Supernatural scale" in caught.value.message
    assert caught.value.example == "/attack Thing with Fight +invoke Veiled"
    # one whose level does not raise the side's is judged as usual
    otherworldly = table_with("Otherworldly", "Mundane")
    result = resolve(cmd, otherworldly, FixedDice("0000,0000"), "Nora", DFC)
    assert [u.paid_with for u in result.effort.invokes] == ["skipped"]


def test_against_a_difficulty_an_aspect_brings_no_scale():
    """Scale compares two sides ("When applying scale to two opposing forces or individuals"):
    an overcome against a difficulty takes none from the invoke."""
    table = table_with("Mundane", "Mundane")
    cmd = Overcome(line=1, source="/overcome Lore vs Fair +invoke Veiled", skill="Lore",
                   opposition=Opposition(rating=2), invokes=(Invoke("Veiled"),))
    result = resolve(cmd, table, FixedDice("0000"), "Nora", DFC)
    assert scale_terms(result.effort) == [] and result.effort.total == 5


def test_setting_an_aspects_scale():
    """A level of the text's list, in any case; empty takes it away; a character's own
    aspects (its high concept) take no scale (a character's scale is on its sheet)."""
    veiled = Aspect("Veiled")
    assert STATE.set_aspect(veiled, "scale", "otherworldly") == (None, "Otherworldly")
    assert STATE.aspect_scale(veiled) == (2, "Otherworldly") and STATE.aspect_view(veiled) == {"scale": "Otherworldly"}
    assert STATE.set_aspect(veiled, "scale", "") == ("Otherworldly", None)
    assert STATE.aspect_scale(veiled) is None and veiled.system_state == {}
    with pytest.raises(RulesError) as caught:
        STATE.set_aspect(veiled, "scale", "Mythic")
    assert caught.value.message == '"Mythic" is not a level of scale (Mundane, Supernatural, Otherworldly, ' \
                                   'Legendary, Godlike)'
    assert caught.value.example == '/aspect set "Veiled" scale=Supernatural'
    with pytest.raises(RulesError) as caught:
        STATE.set_aspect(Aspect("Warden", kind="high_concept", owner="Nora"), "scale", "Supernatural")
    assert "scale is for situation aspects" in caught.value.message
    with pytest.raises(RulesError):
        STATE.set_aspect(veiled, "colour", "red")
    assert FATE_CONDENSED.character_state.aspect_scale(Aspect("Veiled", system_state={"scale": "Godlike"})) is None
    zone = Aspect("Warded Stacks", kind="zone", owner="Basement")
    assert STATE.set_aspect(zone, "scale", "Supernatural") == (None, "Supernatural")


def test_an_allys_invoke_after_the_dice_grants_the_rollers_side_its_scale():
    """"the GM may determine that invoking the aspect grants the additional benefit of its
    scale": an ally who invokes it on the roller's open roll (for +2) is on the roller's side,
    so the side takes its level. Mundane Nora's Fight +3, 00-- (-2), against the Mundane
    Thing's Fight +2, 0000: a fail by 1; Marcus invokes the Supernatural Veiled with his free
    invoke: +2 and +1 for the level, success by 2."""
    from pbp.rules.reopen import AfterInvoke

    before = table_with("Mundane", "Mundane")
    marcus = parse_sheet({"name": "Marcus", "kind": "npc", "skills": {"Fight": 1},
                          "aspects": {"high_concept": "Paramedic"}}, DFC).character
    before.characters["Marcus"] = marcus
    before.find_aspect("Veiled").free_invokes["Marcus"] = 1
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    import copy
    first = resolve(cmd, copy.deepcopy(before), FixedDice("00--,0000"), "Nora", DFC)
    again = reresolve(cmd, before, throws_of(first), "Nora", DFC,
                      extra_invokes=[AfterInvoke(Invoke("Veiled", payment=Payment.FREE), invoker="Marcus")])
    assert scale_terms(again.effort) == [("Supernatural (Veiled) over Mundane", 1)]
    assert again.shifts == 2 and before.find_aspect("Veiled").free_for("Marcus") == 0


# -- the opposing side's aspects --------------------------------------------------------------
#
# "Aspects and Scale": "invoking the aspect grants the additional benefit of its scale", and
# "Scale": "compare the sides' levels of scale ... They get one of the following benefits on
# any rolled action against their lesser". An aspect invoked for the side opposing the roller
# raises that side's level just as one invoked for the roller's side raises the roller's.

def _opposed_by_thing(**kw):
    from pbp.commands import InvokeMode
    from pbp.rules.invokes import AfterInvoke
    return AfterInvoke(Invoke("Veiled", mode=InvokeMode.OPPOSE, payment=Payment.FREE), invoker="Thing")


def test_an_opponents_oppose_invoke_raises_the_opposing_sides_level():
    """Supernatural Nora attacks the Mundane Thing: a level above, +1 before the roll. Fight
    +3, 0000, +1: 4 against the Thing's Fight +2, 0000: success by 2. After the dice the Thing
    invokes the Otherworldly Veiled against the roll (``oppose``, its free invoke): its side
    is now Otherworldly, a level above Nora's, so her +1 is gone and the Thing, whose defence
    the engine rolls, takes +1 before its roll (the default) besides the oppose's +2: 3
    against 5, a fail by 2."""
    table = table_with("Supernatural", "Mundane", level="Otherworldly")
    table.find_aspect("Veiled").free_invokes["Thing"] = 1
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    import copy
    plain = resolve(cmd, copy.deepcopy(table), FixedDice("0000,0000"), "Nora", DFC)
    assert scale_terms(plain.effort) == [("Supernatural over Mundane", 1)] and plain.shifts == 2
    opposed = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC, others=[_opposed_by_thing()])
    assert scale_terms(opposed.effort) == []
    assert scale_terms(opposed.opposition.effort) == [("Otherworldly (Veiled) over Supernatural", 1)]
    assert opposed.effort.total == 3 and opposed.opposition.value == 5 and opposed.shifts == -2
    assert opposed.outcome is Outcome.FAIL and table.find_aspect("Veiled").free_for("Thing") == 0


def test_an_oppose_invoke_after_a_named_benefit_takes_it_away_without_a_refusal():
    """Nora wrote ``+scale`` while a level above the Thing; the Thing's oppose invoke of the
    Otherworldly Veiled after the dice leaves her no benefit to take (the roll stands, the
    +scale she named is not refused after the fact)."""
    table = table_with("Supernatural", "Mundane", level="Otherworldly")
    table.find_aspect("Veiled").free_invokes["Thing"] = 1
    cmd = Attack(line=1, source="/attack Thing with Fight +scale", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"), scale=ScaleUse("before"))
    opposed = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC, others=[_opposed_by_thing()])
    assert scale_terms(opposed.effort) == [] and opposed.shifts == -2


def test_an_oppose_invoke_below_the_opponents_own_level_brings_no_scale():
    """The Otherworldly Thing invokes the Supernatural Veiled against Mundane Nora: its side
    stays Otherworldly, +2 for two levels, and the oppose's +2. Fight +3, 0000 against Fight
    +2, 0000, +2, +2: a fail by 3."""
    table = table_with("Mundane", "Otherworldly", level="Supernatural")
    table.find_aspect("Veiled").free_invokes["Thing"] = 1
    cmd = Attack(line=1, source="/attack Thing with Fight", skill="Fight", target="Thing",
                 opposition=Opposition(character="Thing"))
    opposed = resolve(cmd, table, FixedDice("0000,0000"), "Nora", DFC, others=[_opposed_by_thing()])
    assert scale_terms(opposed.opposition.effort) == [("Otherworldly over Mundane", 2)] and opposed.shifts == -3


def test_the_defence_answers_the_attackers_side_with_the_aspect_it_invoked():
    """The Mundane Thing attacks Supernatural Nora, invoking the Otherworldly Veiled (its free
    invoke): its side is a level above hers, +1 before the roll. Fight +2, 0000, +2, +1: an
    effort of 5, and the attack says which aspect set its level. Nora's defence, in a later
    mail, answers that side: no scale of hers (Athletics +2, 0000: 2, a hit of 3). Against the
    Thing's own level she would have been the higher side, +1 (the defence as it was)."""
    from pbp.commands import Defend
    table = table_with("Supernatural", "Mundane", level="Otherworldly")
    table.find_aspect("Veiled").free_invokes["Thing"] = 1
    first = resolve(Attack(line=1, source="/attack Nora with Fight +invoke Veiled", skill="Fight", target="Nora",
                           opposition=Opposition(), invokes=(Invoke("Veiled", payment=Payment.FREE),)),
                    table, FixedDice("0000"), "Thing", DFC)
    assert scale_terms(first.effort) == [("Otherworldly (Veiled) over Supernatural", 1)]
    assert first.effort.total == 5
    [rolled] = [e for e in first.effects if e.kind == "attack_rolled"]
    assert rolled.data["scale_aspect"] == "Veiled"
    answer = Opposition(rating=5, character="Thing", skill="Fight", scale_aspect="Veiled")
    defence = resolve(Defend(line=1, source="/defend Athletics", skill="Athletics", opposition=answer),
                      table, FixedDice("0000"), "Nora", DFC)
    assert scale_terms(defence.effort) == [] and defence.effort.total == 2 and defence.shifts == -3
    own = resolve(Defend(line=1, source="/defend Athletics", skill="Athletics",
                         opposition=Opposition(rating=5, character="Thing", skill="Fight")),
                  table, FixedDice("0000"), "Nora", DFC)
    assert scale_terms(own.effort) == [("Supernatural over Mundane", 1)] and own.effort.total == 3
    with pytest.raises(RulesError) as refused:
        resolve(Defend(line=1, source="/defend Athletics +scale", skill="Athletics", opposition=answer,
                       scale=ScaleUse("before")), table, FixedDice("0000"), "Nora", DFC)
    assert "Nora (Supernatural) is not above Thing (Otherworldly (Veiled)) in scale" in refused.value.message
    assert refused.value.example == "/defend Athletics"


def test_the_defence_against_an_aspect_gone_from_play_is_against_the_attackers_own_level():
    """The Veiled left play between the attack and the defence (the scene ended): the
    attacker's side is at its own level again, and Nora, the higher, takes her +1."""
    from pbp.commands import Defend
    table = table_with("Supernatural", "Mundane", level="Otherworldly")
    table.aspects = []
    answer = Opposition(rating=5, character="Thing", skill="Fight", scale_aspect="Veiled")
    defence = resolve(Defend(line=1, source="/defend Athletics", skill="Athletics", opposition=answer),
                      table, FixedDice("0000"), "Nora", DFC)
    assert scale_terms(defence.effort) == [("Supernatural over Mundane", 1)]
