"""Builders for the rules tests: the characters of Fate Condensed's worked examples
(Ruth, Charles, Ethan) and their monsters, on a fresh table per test."""
from __future__ import annotations

from pbp.commands import Advantage, Attack, Defend, Overcome, Roll
from pbp.rules.state import Aspect, Character, Table

PYRAMID = {"Fight": 4, "Athletics": 3, "Will": 3, "Physique": 2, "Notice": 2, "Lore": 2,
           "Investigate": 1, "Stealth": 1, "Empathy": 1, "Provoke": 1}


def make_table() -> Table:
    ruth = Character("Ruth", skills=dict(PYRAMID), fate_points=3)
    charles = Character("Charles", skills={"Investigate": 1, "Academics": 4, "Lore": 3}, fate_points=3)
    ethan = Character("Ethan", skills={"Crafts": 1, "Shoot": 2, "Athletics": 1}, fate_points=2)
    shoggoth = Character("Shoggoth", kind="npc", skills={"Physique": 5, "Fight": 3}, fate_points=0)
    corpse = Character("Corpse", kind="npc", skills={"Athletics": 0, "Grasping Hands": 2}, fate_points=0)
    ghoul = Character("Ghoul", kind="npc", skills={"Fight": 2, "Athletics": 1, "Notice": 1,
                                                    "Biting People": 3}, fate_points=1)
    table = Table(system="fate-condensed", characters={c.name: c for c in (ruth, charles, ethan, shoggoth, corpse, ghoul)})
    table.aspects += [
        Aspect("Monster Hunter", kind="high_concept", owner="Ruth"),
        Aspect("Hair-Trigger Temper", kind="trouble", owner="Ruth"),
        Aspect("Deep Shadows", kind="situation"),
        Aspect("Hungry", kind="character", owner="Ghoul"),
    ]
    return table


def src(text: str) -> dict:
    return {"line": 1, "source": text}


def overcome(skill: str, **kw) -> Overcome:
    return Overcome(**src(kw.pop("source", f"/overcome {skill}")), skill=skill, **kw)


def advantage(skill: str, **kw) -> Advantage:
    return Advantage(**src(kw.pop("source", f"/advantage {skill}")), skill=skill, **kw)


def attack(target: str, skill: str = "", **kw) -> Attack:
    return Attack(**src(kw.pop("source", f"/attack {target} with {skill}")), skill=skill, target=target, **kw)


def defend(skill: str = "", **kw) -> Defend:
    return Defend(**src(kw.pop("source", f"/defend {skill}")), skill=skill, **kw)


def roll(**kw) -> Roll:
    return Roll(**src(kw.pop("source", "/roll")), **kw)


def effects(result) -> list[str]:
    return [e.kind for e in result.effects]


def effect(result, kind: str):
    found = [e for e in result.effects if e.kind == kind]
    assert len(found) == 1, f"expected one {kind} effect in {effects(result)}"
    return found[0]
