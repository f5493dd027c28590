"""Scenes, sessions and milestones; the GM's aspects and NPCs; treating consequences.

* ``/scene start "Name" [zones ...] [borders ...]`` opens a scene with its zone map;
  ``/aspect add "Deep Shadows" [on ZONE|CHARACTER] [free N] [hidden] [scale LEVEL]`` puts
  situation and zone aspects in it (free invokes held by the GM's side; a level of scale
  where the system has scale); ``/aspect set NAME scale=LEVEL`` changes an aspect's setting.
* ``/scene end`` clears stress, boosts and the scene's situation and zone aspects, brings
  the taken-out back, and advances recovery (mild consequences treated a full scene ago).
* ``/session end`` ends any open scene, refreshes fate points (max(current, refresh)) and
  advances moderate recovery; ``/milestone major`` clears moderates and severes in
  recovery; every milestone gives the PCs what it allows to change (:mod:`pbp.play.advance`).
* ``/npc add NAME minor "Aspect" skills Fight Fair stress 2 [defend Athletics]``: a minor
  NPC on the spot; ``/as NAME`` alone: the prose that follows is theirs.
* ``/treat PATIENT "Consequence" with SKILL [as "New Name"]``: the recovery overcome.

Other modules run code when a scene opens or closes (the GM's fate point pool, the
hostile-invoke points owed): the steps ``scene_start`` and ``scene_end`` of
:data:`pbp.play.core.SEQUENCE`, each ``fn(post) -> list[Change]``.
"""
from __future__ import annotations

import re
from dataclasses import replace

from pbp import commands as c
from pbp.i18n import N_, CommandLine, Joined, Msg, Msgs, Names
from pbp.errors import NotAllowedError, RulesError
from pbp.play import conflict as pc
from pbp.play import parallel
from pbp.play.advance import grant
from pbp.play.bonuses import ask_for_rename
from pbp.play.core import GM, SCENE_END, SCENE_START, NoteResult, Post, handles, quote, resolve_action
from pbp.play.economy import npcs_enter
from pbp.play.secrets import reveal_roll
from pbp.play.state import Scene
from pbp.rules import aspects as ra
from pbp.rules import recovery
from pbp.rules import turns as rt
from pbp.rules.fate_points import start_session
from pbp.rules.sheets import name_problems
from pbp.rules.names import same_name
from pbp.rules.results import Change
from pbp.rules.state import Aspect, Character
from pbp.rules.zones import RANGE_POLICIES, ZoneMap
from pbp.textsafety import unsafe_text

MAX_NPC_ASPECTS = 2
MAX_NPC_SKILLS = 2


# --------------------------------------------------------------------------- scenes


_GM_EXAMPLES = {c.SceneStart: '/scene start "Warehouse"', c.SceneEnd: "/scene end",
                c.SessionEnd: "/session end", c.Milestone: "/milestone major"}


def _gm_only(post: Post, cmd: c.Command) -> None:
    """Refuse a player's /scene, /session or /milestone, naming the word as written."""
    post.require_gm(cmd.source.split()[0] if cmd.source else "/scene", _GM_EXAMPLES[type(cmd)])


@handles(c.SceneStart)
def start_scene(post: Post, cmd: c.SceneStart) -> NoteResult:
    _gm_only(post, cmd)
    play = post.play
    named = [post.find(n) for n in cmd.npcs]
    members = list(dict.fromkeys(ch.name for ch in named if ch.player))
    if play.scene is not None and not members:
        raise RulesError(f'the scene "{play.scene.name}" is still open', source=cmd.source,
                         expected="end it first with /scene end, or name the PCs of a scene beside it",
                         example=f'/scene start {quote(cmd.name)} with {_a_pc(post)}')
    if any(same_name(cmd.name, s.name) for s in [play.scene, *(p.scene for p in play.elsewhere)] if s is not None):
        raise RulesError(f'a scene named "{cmd.name}" is already open', source=cmd.source,
                         expected="another name for the new scene", example=f'/scene start "{cmd.name} 2" with {_a_pc(post)}')
    zones = ZoneMap.build(cmd.zones, cmd.borders) if cmd.zones else None
    if cmd.borders and not cmd.zones:
        raise RulesError("borders need zones", source=cmd.source, expected="zones before borders",
                         example='/scene start "Warehouse" zones "Dock", "Floor" borders "Dock"-"Floor"')
    reach = (getattr(post.campaign, "settings", None) or {}).get("ranged_reach", "adjacent")
    npcs = [ch for ch in named if not ch.player]
    parallel.open_beside(post)          # a split party: the scene in play waits beside the new one
    play.scenes_played += 1
    play.scene = Scene(name=cmd.name, number=play.scenes_played, zones=zones, started_at=post.now,
                       ranged_reach=reach if reach in RANGE_POLICIES else "adjacent",
                       npcs=list(dict.fromkeys(ch.name for ch in npcs)), members=members, root=post.post_id)
    post.scene_of_post = play.scene
    changes = [ch for fn in SCENE_START for ch in fn(post)]
    parts: list = [Msg('Scene {n}: "{name}" begins.', n=play.scene.number, name=cmd.name)]
    committed = post.seeds.start(post, play.scene.number) if post.seeds is not None else None
    if play.scene.members or play.scene.npcs:
        parts.append(Msg(" In it: {names}.", names=", ".join([*play.scene.members, *play.scene.npcs])))
    if play.elsewhere:
        parts.append(Msg("\n  Also open: scene {scenes}. Reply in a scene's thread to play in it.",
                         scenes="; ".join(f'{p.scene.number}, "{p.scene.name}"' for p in play.elsewhere)))
    if zones is not None:
        parts.append(Msg("\n  Zones: {zones}.", zones=", ".join(zones.zones)))
        if zones.border_pairs:
            pairs = sorted(" - ".join(sorted(p, key=zones.zones.index)) for p in zones.border_pairs)
            parts.append(Msg("\n  Borders: {borders}.", borders="; ".join(pairs)))
    if committed:
        parts.append("\n  " + committed)
    return NoteResult(cmd.source, GM, "scene_start", text=Joined(parts), changes=changes)


@handles(c.Reveal)
def reveal(post: Post, cmd: c.Reveal) -> NoteResult:
    """``/reveal``: the open scene's dice seed now, and a new one committed for the rest of it.
    ``/reveal #3``: secret roll #3 alone (:func:`pbp.play.secrets.reveal_roll`)."""
    post.require_gm("/reveal", "/reveal")
    if cmd.ref is not None:
        return reveal_roll(post, cmd)
    scene = post.play.scene
    if scene is None:
        raise RulesError("no scene is open: a scene's dice are revealed when it ends", source=cmd.source,
                         expected="an open scene", example='/scene start "Warehouse"')
    if post.seeds is None:
        return NoteResult(cmd.source, GM, "reveal", text="Dice: this table's dice are fixed (--dice, PBP_DICE): "
                          "there is no seed to reveal.")
    shown = post.seeds.reveal(post, scene.number)
    if shown is None:
        raise RulesError(f'scene {scene.number}, "{scene.name}", has no committed dice to reveal', source=cmd.source,
                         expected="a scene started with committed dice", example="/scene end")
    return NoteResult(cmd.source, GM, "reveal", text=shown + "\n  " + post.seeds.start(post, scene.number))


@handles(c.SceneEnd)
def scene_end(post: Post, cmd: c.SceneEnd) -> NoteResult | None:
    _gm_only(post, cmd)
    return end_scene(post, cmd)


def end_scene(post: Post, cmd: c.Command, *, quiet_if_none: bool = False) -> NoteResult | None:
    play = post.play
    if pc.active(post) is not None:
        raise RulesError("a conflict is still going on", source=cmd.source,
                         expected="end the conflict first with /conflict end (conceders are paid then)",
                         example="/conflict end")
    if play.scene is None:
        if quiet_if_none:
            return None
        raise RulesError("no scene is open", source=cmd.source, expected="an open scene to end",
                         example='/scene start "Warehouse"')
    report = recovery.end_scene(_in_scene(post), clears=post.system.scene_clears)
    changes = report.changes + [ch for fn in SCENE_END.of(post.system) for ch in fn(post)]
    clears = post.system.explain.clears(post.system.harm.noun)
    lines = [Msg('Scene {n}, "{name}", ends: {clears}, boosts and situation aspects go, and anyone taken out is '
                 'back for the next scene.', n=play.scene.number, name=play.scene.name, clears=clears)]
    lines += [e.text for e in report.effects if e.kind != "scene_end"]
    cleared = [ch for ch in report.changes if ch.what == "consequence" and ch.after is None]
    lines += [Msg("{who}'s {what} has healed.", who=ch.subject, what=ch.before) for ch in cleared]
    for p in list(play.pending):
        lines.append(Msg("{what} on {who} is dropped with the scene.", what=pc.what(post, p), who=p.target))
        pc._close_pending(post, p)
    revealed = post.seeds.reveal(post, play.scene.number) if post.seeds is not None else None
    if revealed:
        lines.append(revealed)
    play.scene = None
    play.turn_clock = None
    play.forget_thread_kind("narrate")      # anyone taken out is back: no narration is owed any more
    parallel.after_scene_end(post)
    if play.scene is not None:
        lines.append(Msg('Still open: scene {n}, "{name}".', n=play.scene.number, name=play.scene.name))
    return NoteResult(cmd.source, GM, "scene_end", text=_joined(lines), changes=changes)


def _joined(lines: list) -> Joined:
    """Lines one under the other in a result, each said in the campaign's language."""
    return Joined([part for n, line in enumerate(lines) for part in ((line,) if not n else ("\n  ", line))])


def _in_scene(post: Post):
    """The table as the scene's end sees it: only the characters in the scene, when it
    names its PCs (a split party's other scenes keep their stress)."""
    cast = parallel.cast(post)
    if cast is None:
        return post.table
    return replace(post.table, characters={n: ch for n, ch in post.table.characters.items() if n in cast})


def _a_pc(post: Post) -> str:
    pcs = [ch.name for ch in post.table.characters.values() if ch.kind == "pc"]
    return quote(pcs[0]) if pcs else "Ruth"


@handles(c.SessionEnd)
def end_session(post: Post, cmd: c.SessionEnd) -> NoteResult:
    _gm_only(post, cmd)
    scene = end_scene(post, cmd, quiet_if_none=True)
    changes = list(scene.changes) if scene else []
    lines = [scene.text] if scene else []
    refreshed = []
    for ch in post.table.characters.values():
        if ch.kind == "pc":
            got = start_session(ch)
            refreshed += got
    changes += refreshed
    report = recovery.end_session(post.table)
    changes += report.changes
    post.play.session += 1
    lines.append(Msg("The session ends. Fate points refresh (up to each refresh): {who}.",
                     who=", ".join(f"{ch.subject} {ch.before} -> {ch.after}" for ch in refreshed) or
                     Msg("nobody was below")))
    healed = [ch for ch in report.changes if ch.what == "consequence" and ch.after is None]
    lines += [Msg("{who}'s {what} has healed.", who=ch.subject, what=ch.before) for ch in healed]
    return NoteResult(cmd.source, GM, "session_end", text=_joined(lines), changes=changes)


@handles(c.Milestone)
def milestone(post: Post, cmd: c.Milestone) -> NoteResult:
    _gm_only(post, cmd)
    levels = post.system.milestones
    if cmd.level not in levels:
        raise RulesError(f"{post.system.title or post.system.name} has no {cmd.level} milestone",
                         expected=" or ".join(f'"{k}"' for k in levels), example="/milestone minor")
    if cmd.power and cmd.level != "major":
        raise RulesError('"power" is for a major milestone (the GM offers a point of refresh and a second raise)',
                         expected="/milestone major power", example="/milestone major power")
    allowed = Joined([Msg("\n  Each player may now ask for their changes with {command} (e.g. {example}); the GM "
                          "approves them.\n  ", command=CommandLine("/advance"),
                          example=CommandLine("/advance skills.Fight=Good skills.Athletics=Great")),
                      _joined(grant(post, cmd.level, cmd.power))])
    if cmd.level == "major":
        report = recovery.major_milestone(post.table, post.system)
        cleared = post.system.milestone_clears
        lines = [Msg("A major milestone: {severities} consequences in recovery clear.",
                     severities=Names([Msg("{severity}", severity=c) for c in cleared])) if cleared else
                 Msg("A major milestone: no consequences in recovery clear.")]
        lines += [Msg("{who}'s {what} has healed.", who=ch.subject, what=ch.before) for ch in report.changes
                  if ch.what == "consequence" and ch.after is None]
        lines += [e.text for e in report.effects]
        return NoteResult(cmd.source, GM, "milestone", text=Joined([_joined(lines), allowed]), changes=report.changes)
    return NoteResult(cmd.source, GM, "milestone",
                      text=Joined([Msg("A {kind} milestone: each player may swap two skills, rename an aspect or swap "
                                       "a stunt.", kind=cmd.level), allowed]))


#: the milestones as a sentence names them (a ``kind`` field, translated where said)
MILESTONE_WORDS = (N_("minor"), N_("significant"), N_("major"))


# --------------------------------------------------------------------------- aspects


_ASPECT_EXAMPLE = '/advantage Notice "Deep Shadows" vs Fair'


@handles(c.AspectRemove)
def aspect_remove(post: Post, cmd: c.AspectRemove):
    post.require_gm("/aspect remove", _ASPECT_EXAMPLE)
    if post.system.gm_clears or post.system.gm_clears_kinds:
        cleared = recovery.gm_clear(post.table, cmd.name, None if post.system.gm_clears else post.system.gm_clears_kinds)
        if cleared is not None:
            return NoteResult(cmd.source, GM, "aspect", text=f"{cmd.name} clears: the GM says so.",
                              changes=cleared.changes)
    secret = _hidden(post, cmd.name, None)
    changes = ra.remove_aspect(post.table, cmd.name, None, system=post.system)
    return NoteResult(cmd.source, GM, "aspect", text=f"{cmd.name} is no longer in play.", changes=changes,
                      gm_only=secret)


@handles(c.AspectAdd)
def aspect_add(post: Post, cmd: c.AspectAdd):
    post.require_gm("/aspect add", _ASPECT_EXAMPLE)
    if cmd.scale:
        _check_setting(post, "scale", cmd.source, f'/aspect add "{cmd.name}"')
    zone = _zone(post, cmd.target)
    if zone is not None:
        aspect, changes = _zone_aspect(post, cmd, zone)
        where = Msg("on the zone {zone}", zone=zone)
    else:
        owner = _owner(post, cmd.target) if cmd.target else None
        aspect, changes = ra.add_situation_aspect(post.table, cmd.name, owner, free=cmd.free, holder=GM,
                                                  hidden=cmd.hidden)
        where = Msg("on {owner}", owner=owner) if owner else Msg("on the scene")
    free = Msgs(", with {n} free invoke for the GM's side", ", with {n} free invokes for the GM's side",
                cmd.free) if cmd.free else ""
    hidden = Msg(" (hidden: only the GM knows it)") if cmd.hidden else ""
    scale = ""
    if cmd.scale:
        level = post.system.character_state.setting_example("scale")
        fixed = re.sub(r"\bscale\s+(\"[^\"]*\"|\S+)", f"scale {level}", cmd.source, count=1, flags=re.IGNORECASE)
        _, level = post.system.character_state.set_aspect(aspect, "scale", cmd.scale, source=cmd.source,
                                                          example=fixed)
        changes.append(Change("aspect_scale", aspect.name, None, level, "scale"))
        scale = f", carrying {level} scale (invoking it grants that scale)"
    text = (Msg("{aspect} is in play {where}{free}{hidden}.", aspect=aspect.name, where=where, free=free, hidden=hidden)
            if not scale else f"{aspect.name} is in play {where}{free}{scale}{hidden}.")
    return NoteResult(cmd.source, GM, "aspect", text=text,
                      changes=changes, gm_only=cmd.hidden)


def _check_setting(post: Post, key: str, source: str, example: str) -> None:
    """Refuse a setting the campaign's system does not keep on aspects (``scale`` outside
    Dresden Files Condensed)."""
    settings = post.system.character_state.aspect_settings
    if key not in settings:
        title = post.system.title or post.system.name
        raise RulesError(f"{title} keeps no {key} on aspects" + (f" (settings: {', '.join(settings)})"
                                                                 if settings else ""),
                         source=source, expected=f"the command without {key}", example=example)


@handles(c.AspectSet)
def aspect_set(post: Post, cmd: c.AspectSet):
    """``/aspect set "Veiled" scale=Supernatural``: an aspect in play gets (or, with an empty
    value, loses) a setting the system keeps on aspects; a hidden one is told to the GM alone."""
    post.require_gm("/aspect set", f'/aspect set "{cmd.name}" scale=Supernatural')
    aspect = _gm_aspect(post, cmd.name, cmd.source)
    state = post.system.character_state
    example = (f'/aspect set "{aspect.name}" {state.aspect_settings[0]}={state.setting_example(state.aspect_settings[0])}'
               if state.aspect_settings
               else f'/aspect rename "{aspect.name}" to "{aspect.name} (changed)"')
    changes, said = [], []
    for pair in cmd.values:
        key, _, value = pair.partition("=")
        _check_setting(post, key, cmd.source, example)
        before, after = state.set_aspect(aspect, key, value, source=cmd.source)
        if before != after:
            changes.append(Change("aspect_scale" if key == "scale" else f"aspect_{key}", aspect.name, before, after,
                                  key))
        said.append(f"{aspect.name} carries {after} {key}" if after else f"{aspect.name} carries no {key}")
    return NoteResult(cmd.source, GM, "aspect", text="; ".join(said) + ".", changes=changes, gm_only=aspect.hidden)


def _gm_aspect(post: Post, name: str, source: str) -> Aspect:
    """The aspect in play the GM names (hidden ones too; a short name if it is the only one)."""
    from pbp.rules.names import find_aspect

    return find_aspect(post.table, name, GM, source=source, system=post.system)


def _hidden(post: Post, name: str, owner: str | None) -> bool:
    """Whether the aspect a GM's /aspect remove or rename names is a hidden one (then the
    table is not told: it never knew the aspect)."""
    return any(a.hidden for a in post.table.aspects
               if same_name(a.name, name) and (owner is None or same_name(a.owner, owner)))


def _zone(post: Post, target: str | None) -> str | None:
    scene = post.play.scene
    zones = scene.zones if scene is not None else None
    if not target or zones is None:
        return None
    return next((z for z in zones.zones if same_name(z, target)), None)


def _owner(post: Post, target: str) -> str:
    return post.find(target).name


def _zone_aspect(post: Post, cmd: c.AspectAdd, zone: str) -> tuple[Aspect, list[Change]]:
    name = cmd.name.strip()
    if any(same_name(a.name, name) and same_name(a.owner, zone) for a in post.table.aspects):
        raise RulesError(f"{name} is already in play on {zone}", source=cmd.source, expected="a new aspect name",
                         example=f'/aspect rename "{name}" to "{name} (worse)"')
    aspect = Aspect(name, kind="zone", owner=zone, hidden=cmd.hidden)
    changes = [Change("aspect", name, None, "created", f"on {zone}")]
    if cmd.free:
        aspect.free_invokes[GM] = cmd.free
        changes.append(Change("free_invokes", f"{name} (held by {GM})", 0, cmd.free))
    post.table.aspects.append(aspect)
    return aspect, changes


FREE_RENAMES = ("consequence", "boost")
"""What a player renames at once: a consequence (a placeholder name given at a deadline,
a wound as it heals) or a boost. Any other aspect on their character (high concept,
trouble, the other sheet aspects, a situation aspect someone put on them) is an aspect
change the GM approves (:mod:`pbp.play.bonuses`)."""


@handles(c.AspectRename)
def rename(post: Post, cmd: c.AspectRename) -> NoteResult:
    """The GM renames any aspect; a player renames the consequences and boosts on their own
    character at once, and asks the GM for anything else."""
    owner = None
    matches = [a for a in post.table.aspects if same_name(a.name, cmd.name)]
    viewer, aside, told = GM, [], []
    if not post.author.is_gm:
        viewer = post.speaker()
        matches = [a for a in matches if not a.hidden]     # the players know of no hidden aspect
        mine = [a for a in matches if a.owner and post.controls(a.owner)
                or (a.kind == "boost" and any(post.controls(h) for h in a.free_invokes))]
        if matches and not mine:
            raise NotAllowedError(f"{cmd.name} is not on your character: the GM renames it",
                                  source=cmd.source, expected="an aspect on your own character",
                                  example=f'/detail "{cmd.new_name.strip() or "The guard is my cousin"}"')
        owner = mine[0].owner if mine else None
        if mine and mine[0].kind not in FREE_RENAMES and cmd.new_name.strip():
            return ask_for_rename(post, post.speaker(), mine[0], cmd.new_name.strip(), cmd.source)
        if mine:                    # the new name may be a hidden aspect's in the same place
            aside, told = ra.step_aside(post.table, cmd.new_name, mine[0].owner, viewer)
    secret = post.author.is_gm and _hidden(post, cmd.name, owner)
    changes = ra.rename_aspect(post.table, cmd.name, cmd.new_name, owner, viewer=viewer, system=post.system)
    text = f'"{cmd.name}" is now "{cmd.new_name.strip()}".'
    return NoteResult(cmd.source, post.speaker(), "aspect", text="\n  ".join([text, *(e.text for e in told)]),
                      changes=aside + changes, effects=told, gm_only=secret, public_text=text if told else None)


# --------------------------------------------------------------------------- NPCs


@handles(c.NpcCmd)
def npc_add(post: Post, cmd: c.NpcCmd):
    """A minor NPC made on the spot: 1-2 aspects, 1-2 skills (free-form names allowed),
    0-3 stress boxes, no consequences."""
    post.require_gm("/npc add", "/sheet")
    name = cmd.name.strip()
    unsafe = name_problems(name) or [unsafe_text(name, what="the name")]
    if unsafe[0]:           # the same words as a sheet's name gets (pbp.rules.sheets)
        raise RulesError(unsafe[0], source=cmd.source, expected="another name for the NPC",
                         example='/npc add Cultist minor "Fanatical Devotion" skills Fight Fair stress 1')
    if post.table.exact_character(name) is not None:
        raise RulesError(f'there is already a character called "{name}"', source=cmd.source,
                         expected="a new name (major NPCs come from sheet files: pbp character import)",
                         example='/npc add Cultist minor "Fanatical Devotion" skills Fight Fair stress 1')
    if not 1 <= len(cmd.aspects) <= MAX_NPC_ASPECTS:
        raise RulesError(f"a minor NPC has one or two aspects, not {len(cmd.aspects)}", source=cmd.source,
                         expected="one or two aspects",
                         example='/npc add Cultist minor "Fanatical Devotion" skills Fight Fair stress 1')
    if not 1 <= len(cmd.skills) <= MAX_NPC_SKILLS:
        raise RulesError(f"a minor NPC has one or two skills, not {len(cmd.skills)}", source=cmd.source,
                         example='/npc add Cultist minor "Fanatical Devotion" skills Fight Fair, Athletics Average')
    limit = post.system.minor_npc_max_boxes
    if not 0 <= cmd.stress <= limit:
        raise RulesError(f"a minor NPC has 0 to {limit} stress boxes, not {cmd.stress}", source=cmd.source,
                         expected=f"stress 0 to {limit}",
                         example='/npc add Cultist minor "Fanatical Devotion" skills Fight Fair stress 1')
    skills: dict[str, int] = {}
    for skill, rating in cmd.skills:
        spelled = post.system.skill_named(skill) or skill.strip()
        if spelled.casefold() in {s.casefold() for s in skills}:
            raise RulesError(f'the skill "{spelled}" is listed twice', source=cmd.source,
                             expected="each skill once",
                             example='/npc add Cultist minor "Fanatical Devotion" skills Fight Fair, Athletics Average')
        skills[spelled] = rating
    ch = Character(name=name, kind="minor", player=None, skills=skills, refresh=0, fate_points=0,
                   stress={post.system.tracks[0]: [False] * cmd.stress})
    post.table.characters[name] = ch
    for aspect in cmd.aspects:
        post.table.aspects.append(Aspect(aspect.strip(), kind="character", owner=name))
    if cmd.defend_with:
        post.play.npc_defences[name] = tuple(post.system.skill_named(s) or s for s in cmd.defend_with)
    aspects = ", ".join(f'"{a}"' for a in cmd.aspects)
    # "2 stress boxes", in the system's own boxes where it has them (the d10 hack's strain)
    boxes = (post.system.box_model.describe(cmd.stress) if post.system.box_model is not None
             else Msgs("{n} stress box", "{n} stress boxes", cmd.stress))
    rated = ", ".join(f"{s} {'+' if r >= 0 else ''}{r}" for s, r in skills.items())
    changes = [Change("character", name, None, "created", "minor NPC")]
    if cmd.defend_with:
        text = Msg("New minor NPC {name}: {aspects}; {skills}; {boxes}; defends with {defences}.", name=name,
                   aspects=aspects, skills=rated, boxes=boxes, defences=" or ".join(post.play.npc_defences[name]))
    else:
        text = Msg("New minor NPC {name}: {aspects}; {skills}; {boxes}.", name=name, aspects=aspects, skills=rated,
                   boxes=boxes)
    # the table learns the NPC's skills (and what it defends with) only where the campaign shows them
    public = None if post.flag("show_npc_skills") else Msg("New minor NPC {name}: {aspects}; {boxes}.", name=name,
                                                            aspects=aspects, boxes=boxes)
    return NoteResult(cmd.source, GM, "npc_add", text=text, changes=changes, public_text=public)


@handles(c.NpcDefend)
def npc_defence(post: Post, cmd: c.NpcDefend) -> NoteResult:
    """``/npc defend Ghoul with Athletics``: the skills an NPC defends with, for a major NPC
    from a sheet as for a minor one made with ``/npc add ... defend`` (the rules still
    decide which of them may defend against a given attack)."""
    post.require_gm("/npc defend", "/sheet")
    ch = post.find(cmd.name)
    if ch.player:
        raise RulesError(f"{ch.name} is a player's character: the player chooses how to defend",
                         source=cmd.source, example=f"/npc defend Ghoul with {cmd.defend_with[0]}")
    skills = []
    for skill in cmd.defend_with:
        spelled = post.system.skill_named(skill) or next((s for s in ch.skills if same_name(s, skill)), None)
        if spelled is None:
            raise RulesError(f'"{skill}" is neither a skill of this game nor one of {ch.name}\'s',
                             source=cmd.source, expected="a skill name",
                             example=f"/npc defend {quote(ch.name)} with Athletics")
        skills.append(spelled)
    post.play.npc_defences[ch.name] = tuple(skills)
    text = f"{ch.name} defends with " + " or ".join(skills) + " where the rules allow."
    # what an NPC defends with is its stats: the table learns it only where the campaign shows them
    return NoteResult(cmd.source, GM, "npc_defend", text=text, gm_only=not post.flag("show_npc_skills"))


@handles(c.NpcJoin)
def npc_join(post: Post, cmd: c.NpcJoin) -> NoteResult:
    """``/npc join Ghoul, Acolyte``: NPCs enter the current scene; the points they carry
    (a concession in an earlier scene, hostile invokes on their aspects) join the GM's pool."""
    post.require_gm("/npc join", "/sheet")
    if post.play.scene is None:
        raise RulesError("no scene is open", source=cmd.source, example='/scene start "Cellar" with Ghoul')
    names, changes = npcs_enter(post, list(cmd.names))
    return NoteResult(cmd.source, GM, "npc_join", text=", ".join(names) + f' {"is" if len(names) == 1 else "are"} '
                      f'in the scene "{post.play.scene.name}".', changes=changes)


@handles(c.Say)
def say(post: Post, cmd: c.Say):
    """``/as NAME`` alone: the GM speaks for an NPC; the prose after it is theirs."""
    ch = post.character(cmd.actor, cmd)
    return NoteResult(cmd.source, ch.name, "say", text=f"{ch.name}:")


# --------------------------------------------------------------------------- recovery


@handles(c.Treat)
def treat(post: Post, cmd: c.Treat):
    """The recovery overcome (Academics for physical harm, Empathy for mental; Fair, Great,
    Fantastic by severity, +2 on yourself), rolled through the actions engine; success
    renames the consequence and starts its clock. In a conflict it is the healer's action."""
    healer = post.character(cmd.actor, cmd)
    patient = post.find(cmd.patient) if cmd.patient else healer
    slot, usual, difficulty = recovery.check_treatment(post.table, healer.name, patient.name, cmd.consequence,
                                                      post.system)
    conflict = pc.active(post)
    if conflict is not None and pc.member(conflict, healer.name) is not None:
        from dataclasses import replace

        post.play.conflict = replace(conflict, turns=rt.take_action(conflict.turns, healer.name, "action"))
        pc.touch(post)
    overcome = c.Overcome(line=cmd.line, source=cmd.source, skill=cmd.skill or usual,
                          opposition=c.Opposition(rating=difficulty), invokes=cmd.invokes, actor=healer.name)
    result = resolve_action(post, overcome, healer.name)
    if cmd.rename and result.outcome in recovery.TREATED and not post.author.is_gm:
        aside, told = ra.step_aside(post.table, cmd.rename, patient.name, healer.name)
        result.changes.extend(aside)
        result.effects.extend(told)
    report = recovery.treat(post.table, healer.name, patient.name, slot.aspect, result, rename=cmd.rename,
                            system=post.system, scene_in_progress=post.play.scene is not None,
                            session_in_progress=True)
    result.effects.extend(report.effects)
    result.changes.extend(report.changes)
    return result
