"""Aspects in play outside a roll: who may use which, free invokes passed between allies,
boosts at the end of a scene, and the GM's hand on the list (add, remove, rename).

Who may use what, as the rules put it:

* **Invoke**: anyone may invoke any aspect in play they know of (hidden aspects exist only
  for their owner until discovered), paying a fate point; invoking another character's
  aspect is a hostile invoke and its point goes to that character after the scene.
  A free invoke is used only by whoever holds it.
* **Boosts**: "you cannot compel a boost or spend a fate point to invoke it"; its holder
  invokes it once, for free, and it is gone. "If you're in control of a boost, you may
  pass it to an ally": it keeps its single use. "Boosts never persist beyond the end of a
  scene" (``scene_boosts`` lists them for the scene-end code).
* **Compel**: any aspect (character, situation, consequence), but not a boost; whether it
  "affects the character being compelled" is the GM's judgement and the target's answer,
  not something the engine can see.

Every function reports its changes as ``Change`` values, like the action engine.
"""
from __future__ import annotations

from dataclasses import dataclass

from pbp.errors import RulesError
from pbp.rules.bookkeeping import held_by
from pbp.rules.bookkeeping import remove_aspect as _drop
from pbp.rules.names import GM, aspects_in_play, find_aspect, find_character, same_name, unknown, visible_to
from pbp.rules.results import Change, Effect
from pbp.rules.state import Aspect, Table
from pbp.rules.system import System

KINDS = ("high_concept", "trouble", "character", "situation", "zone", "consequence", "boost")


@dataclass(frozen=True)
class InvokeRight:
    """What ``who`` may do with an aspect on a roll."""

    aspect: Aspect
    free: int                 # free invokes ``who`` holds on it
    may_pay: bool             # whether a fate point buys an invoke (never for a boost)
    hostile_owner: str | None  # the other character it is on: their point, after the scene

    @property
    def usable(self) -> bool:
        return self.free > 0 or self.may_pay


def invoke_right(table: Table, aspect_name: str, who: str, *, system: System | None = None) -> InvokeRight:
    """How ``who`` may invoke the aspect called ``aspect_name`` (UnknownNameError if they
    cannot see one by that name)."""
    aspect = find_aspect(table, aspect_name, who, system=system)
    owner = aspect.owner if aspect.owner and not same_name(aspect.owner, who) else None
    return InvokeRight(aspect, aspect.free_for(who), aspect.kind != "boost", owner)


def usable_aspects(table: Table, who: str) -> list[InvokeRight]:
    """Every aspect ``who`` could invoke now, with their free invokes on each."""
    rights = []
    for aspect in table.aspects:
        if not visible_to(aspect, who, table):
            continue
        owner = aspect.owner if aspect.owner and not same_name(aspect.owner, who) else None
        right = InvokeRight(aspect, aspect.free_for(who), aspect.kind != "boost", owner)
        if right.usable:
            rights.append(right)
    return rights


def compellable(table: Table, aspect_name: str, viewer: str, *, system: System | None = None) -> Aspect:
    """The aspect a compel is about; boosts cannot be compelled."""
    aspect = find_aspect(table, aspect_name, viewer, system=system)
    if aspect.kind == "boost":
        raise RulesError(
            f"{aspect.name} is a boost, and a boost cannot be compelled",
            expected="a character, situation or consequence aspect",
            example='/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"',
        )
    return aspect


# -- free invokes and boosts ----------------------------------------------------------------

def give_free_invokes(table: Table, aspect: str | Aspect, from_holder: str, to_holder: str,
                      count: int = 1, *, system: System | None = None) -> list[Change]:
    """Pass free invokes to an ally (``/give "On Fire" Ruth 2``). A boost passes whole,
    still good for its single use. Whether the two are allies, and whether there is a
    reason in the fiction, is the table's call."""
    target = aspect if isinstance(aspect, Aspect) else find_aspect(table, aspect, from_holder, system=system)
    if to_holder != GM:
        to_holder = find_character(table, to_holder).name
    if from_holder != GM:
        from_holder = find_character(table, from_holder).name
    held = target.free_for(from_holder)
    example = f'/give "{target.name}" {to_holder} {max(held, 1)}'
    if same_name(from_holder, to_holder):
        raise RulesError(f"{from_holder} already holds those free invokes", expected="an ally's name",
                         example=f'/give "{target.name}" Charles')
    if count < 1:
        raise RulesError(f"cannot give {count} free invokes", expected="a count of 1 or more", example=example)
    if held < count:
        raise RulesError(
            f"{from_holder} holds {held} free invoke{'s' if held != 1 else ''} on {target.name}; cannot give {count}",
            expected=f"at most {held}" if held else "a free invoke you hold", example=example,
        )
    if target.kind == "boost":
        del target.free_invokes[from_holder]
        target.free_invokes[to_holder] = 1
        return [Change("boost", target.name, f"held by {from_holder}", f"held by {to_holder}", "passed on")]
    return _move_free(target, from_holder, to_holder, count)


def _move_free(aspect: Aspect, from_holder: str, to_holder: str, count: int) -> list[Change]:
    held, theirs = aspect.free_for(from_holder), aspect.free_for(to_holder)
    if held == count:
        del aspect.free_invokes[from_holder]
    else:
        aspect.free_invokes[from_holder] = held - count
    aspect.free_invokes[to_holder] = theirs + count
    return [
        Change("free_invokes", held_by(aspect, from_holder), held, held - count, f"given to {to_holder}"),
        Change("free_invokes", held_by(aspect, to_holder), theirs, theirs + count, f"from {from_holder}"),
    ]


def scene_boosts(table: Table) -> list[Aspect]:
    """The boosts in play: none of them outlives the scene."""
    return [a for a in table.aspects if a.kind == "boost"]


def end_scene_boosts(table: Table) -> list[Change]:
    """Remove every boost (for the scene-end code)."""
    changes = []
    for boost in scene_boosts(table):
        _drop(table, boost)
        changes.append(Change("boost", boost.name, "in play", "gone", "the scene ended"))
    return changes


# -- the GM's hand on the aspects in play --------------------------------------------------

def add_situation_aspect(table: Table, name: str, owner: str | None = None, free: int = 0,
                         holder: str | None = None, hidden: bool = False,
                         kind: str = "situation") -> tuple[Aspect, list[Change]]:
    """Put an aspect in play (``/aspect add "Deep Shadows" free 1``), on the scene or on a
    character. Free invokes go to ``holder``, by default the GM's side (``GM``)."""
    name = name.strip()
    if not name:
        raise RulesError("an aspect needs a name", expected="the aspect in quotes",
                         example='/aspect add "Deep Shadows"')
    if kind not in KINDS:
        raise RulesError(f'"{kind}" is not a kind of aspect', expected=", ".join(KINDS))
    if free < 0:
        raise RulesError(f"an aspect cannot have {free} free invokes", expected="free 0 or more",
                         example=f'/aspect add "{name}" free 1')
    if owner is not None:
        owner = find_character(table, owner).name
    existing = _same_place(table, name, owner)
    if existing is not None:
        where = f"on {owner}" if owner else "on the scene"
        raise RulesError(f"{existing.name} is already in play {where}", expected="a new aspect name",
                         example=f'/aspect rename "{existing.name}" to "{existing.name} (worse)"')
    if free and holder is not None and holder != GM:
        holder = find_character(table, holder).name
    aspect = Aspect(name, kind=kind, owner=owner, hidden=hidden)
    if free:
        aspect.free_invokes[holder or GM] = free
    table.aspects.append(aspect)
    changes = [Change("aspect", name, None, "created", f"on {owner}" if owner else "on the scene")]
    if free:
        changes.append(Change("free_invokes", held_by(aspect, holder or GM), 0, free))
    return aspect, changes


def remove_aspect(table: Table, name: str, owner: str | None = None, viewer: str = GM, *,
                  system: System | None = None) -> list[Change]:
    """Take an aspect out of play; the free invokes on it go with it. Consequences are
    refused: they leave play through recovery, which also clears their slot."""
    aspect = _one(table, name, owner, viewer, system)
    if aspect.kind == "consequence":
        raise RulesError(f"{aspect.name} is a consequence: it leaves play when {aspect.owner} recovers",
                         expected="a situation or character aspect, or a boost",
                         example=f'/aspect rename "{aspect.name}" "Healing Nicely"')
    _drop(table, aspect)
    changes = [Change("aspect", aspect.name, "in play", "removed", f"on {aspect.owner}" if aspect.owner else "on the scene")]
    changes += [Change("free_invokes", held_by(aspect, h), n, 0, "the aspect is gone")
                for h, n in aspect.free_invokes.items() if n]
    return changes


def rename_aspect(table: Table, name: str, new_name: str, owner: str | None = None,
                  viewer: str = GM, *, system: System | None = None) -> list[Change]:
    """Rename an aspect (a boost named when used, a consequence renamed as it heals); free
    invokes stay on it, and a consequence's entry on its owner's sheet follows. ``viewer``
    is who asks (``GM``: any aspect; a character: only the aspects it knows of)."""
    aspect = _one(table, name, owner, viewer, system)
    new_name = new_name.strip()
    if not new_name:
        raise RulesError("the new name is empty", expected="a new name in quotes",
                         example=f'/aspect rename "{aspect.name}" "Stitched Up"')
    clash = _same_place(table, new_name, aspect.owner)
    if clash is not None and clash is not aspect:
        raise RulesError(f"{clash.name} is already in play there", expected="a name not in use",
                         example=f'/aspect rename "{aspect.name}" "{new_name} 2"')
    old = aspect.name
    aspect.name = new_name
    changes = [Change("aspect", new_name, old, new_name, "renamed")]
    if aspect.kind == "consequence" and aspect.owner:
        who = table.character(aspect.owner)
        for consequence in (who.consequences if who else []):
            if consequence.aspect and same_name(consequence.aspect, old):
                consequence.aspect = new_name
                changes.append(Change("consequence", who.name, old, new_name, consequence.severity))
    return changes


def step_aside(table: Table, name: str, owner: str | None, by: str) -> tuple[list[Change], list[Effect]]:
    """``by``, a player's character, gives an aspect on ``owner`` (a character; None: the
    scene) the name ``name`` (a consequence, a renamed boost), and a hidden aspect there has
    that name already. The player cannot know that, and refusing them would tell them, so
    the hidden aspect steps aside: it is renamed "NAME (secret)", and an effect marked
    ``gm_only`` tells the GM. Nothing happens when no hidden aspect has the name."""
    hidden = next((a for a in table.aspects if a.hidden and same_name(a.name, name.strip())
                   and same_name(a.owner, owner)), None)
    if hidden is None:
        return [], []
    old, new, n = hidden.name, f"{hidden.name} (secret)", 2
    while _same_place(table, new, owner) is not None:
        new, n = f"{old} (secret {n})", n + 1
    hidden.name = new
    where = f"on {owner}" if owner else "on the scene"
    return ([Change("aspect", new, old, new, "renamed")],
            [Effect("hidden_renamed", f"For the GM: {by} named an aspect {old} {where}, as your hidden aspect "
                    f"there was named; the hidden one is now {new}", {"aspect": new, "was": old, "owner": owner,
                                                                        "gm_only": True})])


def _same_place(table: Table, name: str, owner: str | None) -> Aspect | None:
    for aspect in table.aspects:
        if same_name(aspect.name, name) and same_name(aspect.owner, owner):
            return aspect
    return None


def _one(table: Table, name: str, owner: str | None, viewer: str = GM, system: System | None = None) -> Aspect:
    """The aspect called ``name`` (on ``owner`` if given) among those ``viewer`` knows of:
    the GM sees them all, hidden or not; for anyone else a hidden aspect is not there at all
    (not found, not suggested, no "more than once"). Refused if the name is ambiguous."""
    in_play = [a for a in aspects_in_play(table, system=system) if visible_to(a, viewer, table)]
    named = [a for a in in_play if same_name(a.name, name)]
    if owner is not None:
        named = [a for a in named if same_name(a.owner, owner)]
    if len(named) == 1:
        return named[0]
    if not named:
        raise unknown("aspect", name, f'no aspect "{name}" is in play' + (f" on {owner}" if owner else ""),
                      (a.name for a in in_play), expected="an aspect on a character or the scene")
    places = ", ".join(a.owner or "the scene" for a in named)
    raise RulesError(f"{name} is in play more than once (on {places}); say which one",
                     expected="the character the aspect is on",
                     example=f'/aspect remove "{name}" on {next((a.owner for a in named if a.owner), "Ruth")}')
