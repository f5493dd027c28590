"""The scene so far in a few lines, from what happened and nothing else: who did what
against what and how it went (one line per character, in the order they first acted),
the consequences taken and who was taken out or conceded, the aspects the scene made that
are still in play, and whose turn it is. A GM's note, when there is one, leads it.

It reads the results as the table read them (``ArchivePost.facts``), so the players'
recap names nothing hidden; the same input always gives the same lines.
"""
from __future__ import annotations

from pbp.i18n import Msg

OUTCOMES = {"fail": "fails", "tie": "ties", "success": "succeeds", "style": "succeeds with style"}
DID = {"attack": "attacks", "defend": "defends", "overcome": "overcomes", "advantage": "creates an advantage",
       "roll": "rolls"}


def _target(fact: dict) -> str | None:
    for e in fact.get("effects") or ():
        target = (e.get("data") or {}).get("target")
        if target:
            return target
    opp = fact.get("opposition") or {}
    return opp.get("character")


def _did(fact: dict) -> str:
    what = DID.get(fact["action"], fact["action"])
    target = _target(fact)
    if target and fact["action"] in ("attack", "overcome", "advantage"):
        what += f" against {target}" if fact["action"] != "attack" else f" {target}"
    if fact.get("skill"):
        what += f" with {fact['skill']}"
    outcome = OUTCOMES.get(fact.get("outcome") or "", "")
    if outcome:
        shifts = fact.get("shifts")
        what += f" and {outcome}" + (f" ({shifts} shift{'s' if abs(shifts) != 1 else ''})" if shifts else "")
    return what


def _summary(acts: list[dict]) -> str:
    """One character's actions in the scene, in the order first done: each kind of action
    against each target with how many times and how it went ("attacks Ghoul 3 times (2
    succeed, 1 fails)"); a single action whole ("attacks Ghoul with Fight and succeeds")."""
    if len(acts) <= 2:
        return "; then ".join(_did(a) for a in acts)
    groups: dict[tuple, list[str]] = {}
    for a in acts:
        target = _target(a) if a["action"] in ("attack", "overcome", "advantage") else None
        groups.setdefault((a["action"], target), []).append(a.get("outcome") or "")
    parts = []
    for (action, target), outcomes in groups.items():
        what = DID.get(action, action)
        if target:
            what += f" against {target}" if action != "attack" else f" {target}"
        if len(outcomes) == 1:
            parts.append(f"{what} and {OUTCOMES[outcomes[0]]}" if outcomes[0] in OUTCOMES else what)
            continue
        counts = {o: outcomes.count(o) for o in dict.fromkeys(outcomes) if o}
        how = ", ".join(f"{n} {OUTCOMES[o] if n == 1 else PLURAL[o]}" for o, n in counts.items())
        parts.append(f"{what} {len(outcomes)} times" + (f" ({how})" if how else ""))
    return "; ".join(parts)


PLURAL = {"fail": "fail", "tie": "tie", "success": "succeed", "style": "succeed with style"}


def recap(facts: list[dict], *, in_play: list[str], turn: str | None, note: str = "") -> list[str]:
    """``facts``: the scene's results in order; ``in_play``: the aspects in play now (the
    reader may know them); ``turn``: whose turn it is, None outside a conflict."""
    lines = [Msg("The GM: {note}", note=note.strip())] if note.strip() else []
    by_actor: dict[str, list[dict]] = {}
    harm: list[str] = []
    out: list[str] = []
    made: list[str] = []
    for fact in facts:
        if fact.get("outcome") is not None or fact.get("dice"):
            by_actor.setdefault(fact["actor"], []).append(fact)
        for ch in fact.get("changes") or ():
            if ch["what"] == "consequence" and ch["before"] is None and ch["after"]:
                harm.append(Msg('{who} takes "{what}"', who=ch["subject"], what=ch["after"]))
            elif ch["what"] == "taken_out" and ch["after"]:
                out.append(ch["subject"])
            elif ch["what"] == "aspect" and ch["after"] == "created" and ch["subject"] not in made:
                made.append(ch["subject"])
    for actor, acts in by_actor.items():
        lines.append(f"{actor} {_summary(acts)}.")
    if harm:
        lines.append(Msg("Consequences: {list}.", list=harm))
    if out:
        lines.append(Msg("Taken out: {who}.", who=", ".join(dict.fromkeys(out))))
    live = {a.casefold() for a in in_play}
    still = [a for a in made if a.casefold() in live]
    if still:
        lines.append(Msg("Aspects made in this scene and still in play: {aspects}.",
                         aspects=", ".join(f'"{a}"' for a in still)))
    if turn:
        lines.append(Msg("It is {who}'s turn.", who=turn))
    if not lines:
        lines.append(Msg("Nothing has been rolled in this scene yet."))
    return lines
