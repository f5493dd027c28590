"""The table at a glance: ``/table`` (and ``pbp table``), and the "could invoke" line under
a player's roll.

By post nobody sees the table; they read mails, each about one thing. ``/table`` answers
"where are we": the scene and its zones, who stands where, the situation, zone and
consequence aspects and boosts in play with their free invokes, the rolls still open for
invokes, and (in the reply's footer, which every reply has: :func:`pbp.play.status_lines`)
whose turn it is, who still acts, the reactions and compels waited for, with deadlines.

Who sees what follows :mod:`pbp.views`: a player's ``/table`` is part of the table's mail,
so it shows only what every player may know (``public_text``); the GM's own ``/table`` is
answered to the GM alone, whole: hidden aspects marked "(hidden)", the GM's fate point pool
and the points NPCs carry for a later scene. ``pbp table`` on the server is the GM's view.

The overview is built once as plain data (:func:`overview`, the ``pbp table --json``
shape) and written out as lines (:func:`overview_lines`), so the mail and the command line
cannot disagree. An open challenge's board and an open contest's tally are data too
(:func:`pbp.play.challenges.board`, :func:`pbp.play.contests.tally`, from which the footer's
lines are written); ``/table`` adds what the footer leaves out (roll ids, the threats, and
for the GM or with ``show_npc_skills`` the NPCs' ratings).
"""
from __future__ import annotations

from datetime import timedelta
from typing import Mapping

from pbp import commands as c
from pbp.play.away import away_lines
from pbp.i18n import Joined, Msg, Msgs
from pbp.play.challenges import board
from pbp.play.conflict import active, when
from pbp.play.contests import tally
from pbp.play.core import GM, NoteResult, Post, handles, status_lines
from pbp.play.sequence import after_action, after_post
from pbp.play.economy import gm_pool_text, pool_is_open
from pbp.play.invoking import kept_open, open_rolls
from pbp.play.parallel import others
from pbp.rules.ladder import describe
from pbp.rules.names import and_names
from pbp.rules.results import Effect

SHOWN_KINDS = ("situation", "zone", "boost", "consequence")
"""The aspects an overview lists: those of the scene and its fights. High concepts,
troubles and other character aspects are on the sheets (``/sheet NAME``), unless someone
holds free invokes on one."""

INVOCABLE_WIDTH = 76
"""The "could invoke" line names aspects while it fits this width (a reply's lines stay
within 78 characters with its indent), then says "and N more (/table)"; it always names one."""


# --------------------------------------------------------------------------- the data


def _zones(post: Post):
    conflict = active(post)
    if conflict is not None and conflict.zones is not None:
        return conflict.zones
    scene = post.play.scene
    return scene.zones if scene is not None else None


def _holder(name: str) -> str:
    return Msg("the GM's side") if name == GM else name


def overview(post: Post, *, gm: bool) -> dict:
    """What the table may know now (``gm``: and what only the GM knows), as plain data."""
    play, table = post.play, post.table
    scene = play.scene
    zones = _zones(post)
    conflict = active(post)
    view: dict = {"scene": None, "conflict": None, "aspects": [], "open_rolls": []}
    if scene is not None:
        view["scene"] = {"number": scene.number, "name": scene.name, "zones": [], "borders": []}
        if scene.members:
            view["scene"]["members"] = list(scene.members)
    if play.elsewhere:      # a split party: the other scenes open (pbp.play.parallel)
        view["elsewhere"] = others(play)
    if zones is not None and view["scene"] is not None:
        view["scene"]["zones"] = [{"name": z, "here": sorted(n for n, at in zones.positions.items() if at == z)}
                                  for z in zones.zones]
        view["scene"]["borders"] = sorted(sorted(p, key=zones.zones.index) for p in zones.border_pairs)
        if conflict is not None:
            view["scene"]["not_placed"] = [n for n in conflict.turns.active if zones.zone_of(n) is None]
    if conflict is not None:
        order = conflict.turns
        view["conflict"] = {"kind": conflict.kind, "exchange": order.exchange, "turn": order.current,
                            "acted": list(order.acted), "out": list(conflict.out())}
    for a in table.aspects:
        if a.hidden and not gm:
            continue
        free = {h: n for h, n in a.free_invokes.items() if n}
        if a.kind not in SHOWN_KINDS and not free:
            continue
        view["aspects"].append({"name": a.name, "kind": a.kind, "on": a.owner, "free_invokes": free,
                                "hidden": a.hidden, **post.system.character_state.aspect_view(a)})
    hours = post.hours("invoke_window_hours")
    for roll in open_rolls(post):
        if not roll.ids:
            continue
        until = roll.rolled_at + timedelta(hours=hours) if hours and hours > 0 else None
        view["open_rolls"].append({"id": roll.ids[-1], "actor": roll.actor, "what": roll.summary,
                                   "until": until.isoformat() if until else None, "_until": until})
    view["challenge"] = board(post, play.challenge, gm=gm) if play.challenge is not None else None
    view["contest"] = tally(post, play.contest, gm=gm) if play.contest is not None else None
    view["waiting"] = status_lines(post)
    if gm:
        view["gm_pool"] = {"points": play.ledger.gm_pool if pool_is_open(post) else None,
                           "carried": {ch.name: ch.carried_points for ch in table.characters.values()
                                       if ch.carried_points},
                           "owed": [{"to": o.to, "points": o.points, "aspect": o.aspect} for o in play.ledger.owed]}
        view["gm_pool_text"] = gm_pool_text(post)
    return view


def _public(value):
    """``value`` without the keys starting with "_" (kept only for writing it out), at any depth."""
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def to_json(view: dict) -> dict:
    """The overview without the values kept only for writing it out."""
    out = _public(view)
    out.pop("gm_pool_text", None)
    return out


# --------------------------------------------------------------------------- the words


def _free_words(free: dict) -> list:
    return [Msgs("{who}: {n} free invoke", "{who}: {n} free invokes", n, who=_holder(h)) for h, n in free.items()]


def _aspect_line(a: dict) -> str:
    if a["kind"] == "boost":
        holders = [_holder(h) for h in a["free_invokes"]]
        line = (Msg('"{name}" (a boost, held by {who})', name=a["name"], who=holders) if holders else
                Msg('"{name}" (a boost)', name=a["name"]))
    else:
        if a["kind"] == "consequence":
            where = Msg("a consequence on {who}", who=a["on"])
        else:
            where = Msg("on {where}", where=a["on"]) if a["on"] else Msg("on the scene")
        parts = [Msg('"{name}" {where}', name=a["name"], where=where)]
        if a.get("scale"):
            parts.append(Msg(", {level} scale", level=a["scale"]))
        free = _free_words(a["free_invokes"])
        if free:
            parts.append(Msg(" ({free})", free=free))
        line = Joined(parts)
    return Joined([line, Msg(" (hidden)")]) if a.get("hidden") else line


def _challenge_lines(ch: dict, ladder: Mapping[int, str]) -> list[str]:
    """What the board in the footer does not say: who may take the tasks, the rolls' ids,
    and (for the GM, or with ``show_npc_skills``) what an opponent opposes with."""
    lines = [f'Challenge "{ch["name"]}": tasks for {and_names(ch["who"]) if ch["who"] else "nobody yet"}.']
    rolls = [f"task {t['n']} #{t['roll']}" for t in ch["tasks"] if t["roll"] is not None]
    if rolls:
        lines.append("  Rolls: " + ", ".join(rolls) + ".")
    for t in ch["tasks"]:
        against = t.get("opposed_with")
        if against is not None and t["state"] == "open":
            skill = f"{against['skill']}, " if against["skill"] else ""
            lines.append(f"  Task {t['n']} is opposed by {t['opponent']}: {skill}{describe(against['rating'], ladder)}.")
    return lines


def _contest_lines(co: dict, ladder: Mapping[int, str]) -> list[str]:
    """What the tally in the footer does not say: the threats, this exchange's rolls' ids."""
    lines = [f'Contest "{co["name"]}": each side rolls against {describe(co["difficulty"], ladder)}.']
    for t in co["threats"]:
        if t["skill"] is None:
            lines.append(f"  Threat: {t['name']}, {describe(t['rating'], ladder)}.")
        else:
            rating = f", {describe(t['skill_rating'], ladder)}" if "skill_rating" in t else ""
            lines.append(f"  Threat: {t['name']}, attacking with {t['skill']}{rating}.")
    rolls = [f"#{s['rolled']['roll']} ({and_names(s['members'])})" for s in co["sides"]
             if s["rolled"] is not None and s["rolled"]["roll"] is not None]
    if rolls:
        lines.append("  Rolls this exchange: " + ", ".join(rolls) + ".")
    return lines


def overview_lines(view: dict, ladder: Mapping[int, str], *, waiting: bool = True) -> list[str]:
    """The overview as lines (nested ones indented by two spaces), values named with the
    campaign's system's ``ladder``. ``waiting``: with the turn and what pbp waits for (a
    mail's footer says those already)."""
    lines = []
    scene, conflict = view["scene"], view["conflict"]
    if scene is None:
        lines.append(Msg("No scene is open."))
    else:
        if conflict:
            lines.append(Msg('Scene {n}: "{name}" ({kind} conflict, exchange {exchange}).', n=scene["number"],
                             name=scene["name"], kind=conflict["kind"], exchange=conflict["exchange"]))
        else:
            lines.append(Msg('Scene {n}: "{name}".', n=scene["number"], name=scene["name"]))
        if scene["zones"]:
            lines.append(Msg("  Zones: {zones}.", zones=" · ".join(
                z["name"] + (f" ({', '.join(z['here'])})" if z["here"] else "") for z in scene["zones"])))
        if scene.get("not_placed"):
            lines.append(Msg("  Not on the map yet: {who}.", who=", ".join(scene["not_placed"])))
        if scene["borders"]:
            lines.append(Msg("  Borders: {borders}.", borders="; ".join(" - ".join(p) for p in scene["borders"])))
    for other in view.get("elsewhere", ()):
        cast = f" ({', '.join(other['members'])})" if other["members"] else ""
        if other["conflict"]:
            lines.append(Msg('Also open: scene {n}, "{name}"{cast}, a conflict going on.', n=other["number"],
                             name=other["name"], cast=cast))
        else:
            lines.append(Msg('Also open: scene {n}, "{name}"{cast}.', n=other["number"], name=other["name"],
                             cast=cast))
    if conflict is None and scene is not None:
        lines.append(Msg("No conflict is going on."))
    if view["aspects"]:
        lines.append(Msg("Aspects in play:"))
        lines += [Joined(["  ", _aspect_line(a)]) for a in view["aspects"]]
    else:
        lines.append(Msg("No situation aspects or boosts are in play."))
    for r in view["open_rolls"]:
        if r.get("_until"):
            lines.append(Msg("Roll #{id}, {what}, is open for invokes until {until}.", id=r["id"], what=r["what"],
                             until=when(r["_until"])))
        else:
            lines.append(Msg("Roll #{id}, {what}, is open for invokes.", id=r["id"], what=r["what"]))
    if view.get("challenge"):       # the boards themselves are in the footer (``waiting``)
        lines += _challenge_lines(view["challenge"], ladder)
    if view.get("contest"):
        lines += _contest_lines(view["contest"], ladder)
    if waiting:
        lines += view["waiting"]
    if view.get("gm_pool_text"):
        lines.append(view["gm_pool_text"])
    return lines


def _joined(lines: list) -> Joined:
    """The lines of ``/table`` one under the other, each said in the campaign's language."""
    return Joined([part for n, line in enumerate(lines) for part in ((line,) if not n else ("\n  ", line))])


@handles(c.TableView)
def table_view(post: Post, cmd: c.TableView):
    """A player's ``/table`` is in the table's mail (what everyone may know); the GM's is
    answered to the GM alone, whole, as the GM's ``/sheet`` is."""
    away = away_lines(post)         # who is away until when (pbp.play.away)
    if post.author.is_gm:           # the GM's mail has no footer: the turn and what is waited for go in it
        whole = _joined(overview_lines(overview(post, gm=True), post.system.ladder) + away)
        return NoteResult(cmd.source, GM, "table", text=whole, gm_only=True)
    whole = _joined(overview_lines(overview(post, gm=True), post.system.ladder, waiting=False) + away)
    public = _joined(overview_lines(overview(post, gm=False), post.system.ladder, waiting=False) + away)
    return NoteResult(cmd.source, post.speaker(), "table", text=whole, public_text=public)


# --------------------------------------------------------------------------- under a player's roll


def invocable(post: Post, actor: str) -> list[str]:
    """The aspects ``actor`` could invoke on their roll that the table knows of, free ones
    first: boosts and free invokes they hold, then the scene's aspects (on a zone map,
    those of their own zone), then consequences. Their own character aspects are on their
    sheet and are not listed."""
    zones = _zones(post)
    here = zones.zone_of(actor) if zones is not None else None
    free, other = [], []
    for a in post.table.aspects:
        if a.hidden or a.kind in ("high_concept", "trouble", "character") and not a.free_for(actor):
            continue
        if a.kind == "zone" and here is not None and a.owner != here and not a.free_for(actor):
            continue
        if a.kind == "boost" and not a.free_for(actor):
            continue
        n = a.free_for(actor)
        if n:
            free.append(Msg('"{name}" ({n} free)', name=a.name, n=n))
        elif a.kind in SHOWN_KINDS:
            other.append(f'"{a.name}"')
    return free + other


def could_invoke_line(actor: str, names: list[str]) -> str:
    """``Ruth could invoke: "Deep Shadows" (1 free), "Dark" and 3 more (/table).``, as many
    names as fit :data:`INVOCABLE_WIDTH`."""
    for n in range(len(names), 0, -1):
        rest = len(names) - n
        text = (Msg("{actor} could invoke: {names} and {rest} more (/table).", actor=actor, names=names[:n], rest=rest)
                if rest else Msg("{actor} could invoke: {names}.", actor=actor, names=names[:n]))
        if len(text) <= INVOCABLE_WIDTH or n == 1:
            return text
    return Msg("{actor} could invoke.", actor=actor)


@after_action
def _could_invoke(post: Post, cmd, actor: str, result) -> None:
    """Under a player's own roll, one line with what they could still invoke on it (as the
    table stands after the roll)."""
    if post.author.is_gm or not kept_open(post, result) or not post.controls(actor):
        return
    names = invocable(post, actor)
    if not names:
        return
    line = Effect("could_invoke", could_invoke_line(actor, names), {"aspects": names})
    post.__dict__.setdefault("_could_invoke", []).append((result, line))


@after_post
def could_invoke_lines(post: Post) -> None:
    """The could-invoke lines go under their rolls once the rolls are in the ledger: a hint
    for the reader, not part of what was rolled (and last among the roll's effects)."""
    for result, line in post.__dict__.pop("_could_invoke", ()):
        result.effects.append(line)

