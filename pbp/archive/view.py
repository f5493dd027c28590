"""The archive as one reader may read it: the campaign, its scenes and posts, its characters
and its ledger, for the players (exactly what the table's mails held) or for the GM
(everything). Every page the archive writes (:mod:`pbp.archive.site`), the feed and the
export read this, never the rows themselves, so what is left out for the players is left
out in one place.

Left out of the players' view:

- a post the table got no mail for (only the GM's business: a hidden aspect added), and
  every private mail (a compel's approval asked of a player, the GM's copy);
- the GM's command lines (the table's mail showed their results in their place, not the
  commands, which may name what is hidden);
- the GM's copy of what the table's mail left out (``ArchivePost.gm``);
- an NPC's sheet (its skills, stunts and hidden aspects), a hidden aspect on any sheet, and
  members' addresses;
- a secret roll until it is revealed (:func:`hidden_roll`), and the ledger's commands and details.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pbp.archive import recap as recap_
from pbp.ooc import split_ooc
from pbp.store import models as m
from pbp.store.seeds import hidden_rolls


@dataclass(frozen=True)
class Reader:
    gm: bool = False

    @property
    def label(self) -> str:
        return "the GM's archive: everything, hidden things included" if self.gm else "the players' archive"


def secret_roll(row: m.RollRecord) -> bool:
    """A secret or blind roll (committed dice' secret rolls): its ledger row's
    ``detail["secret"]`` is true. The GM's archive shows it, marked."""
    return bool((row.detail or {}).get("secret"))


def hidden_roll(row: m.RollRecord, hidden: set[int]) -> bool:
    """A secret roll the players may not see yet: its scene is still open, or the GM holds it
    past its scene (``hidden``: :func:`pbp.store.seeds.hidden_rolls`). The players' archive
    leaves it out of the ledger and of every post."""
    return secret_roll(row) and (row.detail or {}).get("number") in hidden


@dataclass
class Entry:
    """One post as the reader sees it. ``anchor`` is its permalink's fragment: the row's id,
    which never changes."""

    row: m.ArchivePost
    author: str                 # who wrote it, as the reader may know them
    lines: list[tuple[str, bool]]   # the author's own text in character: (line, is a command)
    shown: str                  # the table's reply (Markdown)
    gm: str                     # the GM's copy (Markdown), "" for the players
    private: list[dict]
    rolls: list[m.RollRecord]
    facts: list[dict]
    ooc: list[str] = field(default_factory=list)    # the author's words out of character (pbp.ooc)

    @property
    def anchor(self) -> str:
        return f"post-{self.row.id}"

    @property
    def at(self) -> datetime:
        return self.row.at


@dataclass
class SceneView:
    key: str                    # its page's name: "scene-3", or "between-17" (posts outside any scene)
    title: str
    number: int | None
    open: bool
    entries: list[Entry] = field(default_factory=list)

    @property
    def page(self) -> str:
        return f"{self.key}.html"


@dataclass
class Archive:
    reader: Reader
    campaign: m.Campaign
    members: list[tuple[str, str]]      # (name as shown, role)
    characters: list[m.Character]
    scenes: list[SceneView]
    ledger: list[m.RollRecord]
    hidden_names: frozenset[str]        # every aspect ever hidden (casefolded), for the players' filters

    def entries(self) -> list[Entry]:
        return [e for s in self.scenes for e in s.entries]

    def character_page(self, name: str) -> str:
        return f"character-{slug(name)}.html"


def slug(name: str) -> str:
    out = "".join(ch if ch.isalnum() else "-" for ch in name.casefold())
    return "-".join(p for p in out.split("-") if p) or "x"


def _who(row: m.ArchivePost, names: dict[str, str], reader: Reader) -> str:
    if row.source == "deadline":
        return "pbp (a deadline)"
    name = names.get(row.author.casefold()) or row.author_name
    if reader.gm:
        return f"{name} <{row.author}>" if name and name != row.author else row.author
    return name or "a member"


def build(campaign: m.Campaign, reader: Reader) -> Archive:
    members = list(m.Member.select().where(m.Member.campaign == campaign).order_by(m.Member.id))
    gms = {mb.email.casefold() for mb in members if mb.role == "gm"}
    chars = list(m.Character.select().where(m.Character.campaign == campaign).order_by(m.Character.id))
    names = {}
    for mb in members:
        played = [c.name for c in chars if c.player and c.player.casefold() == mb.email.casefold()]
        names[mb.email.casefold()] = mb.display_name or (f"{' and '.join(played)}'s player" if played else
                                                         ("the GM" if mb.role == "gm" else mb.email.split("@")[0]))
    shown_members = [((f"{names[mb.email.casefold()]} <{mb.email}>" if reader.gm else names[mb.email.casefold()]),
                      mb.role) for mb in members]
    hidden = frozenset(a.name.casefold() for a in m.Aspect.select(m.Aspect.name)
                       .where((m.Aspect.campaign == campaign) & (m.Aspect.hidden == True)))  # noqa: E712
    ledger = list(m.RollRecord.select().where(m.RollRecord.campaign == campaign).order_by(m.RollRecord.id))
    by_number = {(r.detail or {}).get("number"): r for r in ledger}
    hidden_now = hidden_rolls(campaign)
    if not reader.gm:
        ledger = [r for r in ledger if not hidden_roll(r, hidden_now)]
    rows = m.ArchivePost.select().where(m.ArchivePost.campaign == campaign).order_by(m.ArchivePost.id)
    current = (campaign.play or {}).get("scene")
    scenes: list[SceneView] = []
    numbered: dict[int, SceneView] = {}
    for row in rows:
        if not reader.gm and not row.shown:
            continue            # the table got no mail for it
        rolls = [by_number[n] for n in row.roll_ids if n in by_number]
        if not reader.gm:
            rolls = [r for r in rolls if not hidden_roll(r, hidden_now)]
        by_gm = row.author.casefold() in gms
        story, ooc = split_ooc(row.text)
        lines = [(line, i in row.command_lines) for i, line in story
                 if reader.gm or not (by_gm and i in row.command_lines)]
        entry = Entry(row, _who(row, names, reader), lines, row.shown, row.gm if reader.gm else "",
                      list(row.private) if reader.gm else [], rolls, list(row.facts), ooc)
        if row.scene_number is not None and row.scene_number in numbered:    # scenes played side by side
            numbered[row.scene_number].entries.append(entry)
            continue
        if not scenes or scenes[-1].number != row.scene_number:   # a scene's page, or a run outside any
            if row.scene_number is None:
                scenes.append(SceneView(f"between-{row.id}", "Between scenes", None, False))
            else:
                scenes.append(SceneView(f"scene-{row.scene_number}", f"Scene {row.scene_number}: {row.scene}",
                                        row.scene_number, False))
                numbered[row.scene_number] = scenes[-1]
        scenes[-1].entries.append(entry)
    beside = {p["scene"]["number"] for p in (campaign.play or {}).get("elsewhere") or ()}
    for s in scenes:
        last = s.entries[-1].row
        s.open = bool(s.number is not None and last.scene_open
                      and ((current and current.get("number") == s.number) or s.number in beside))
    if not reader.gm:
        chars = [c for c in chars if c.kind == "pc"]
    return Archive(reader, campaign, shown_members, chars, scenes, ledger, hidden)


def scene_recap(archive: Archive, scene: SceneView) -> list[str]:
    """The recap of one scene, as the archive's reader may know it."""
    rows = m.Aspect.select(m.Aspect.name, m.Aspect.hidden).where(
        (m.Aspect.campaign == archive.campaign) & (m.Aspect.active == True))  # noqa: E712
    in_play = [a.name for a in rows if archive.reader.gm or not a.hidden]
    notes = (archive.campaign.play or {}).get("recap_notes") or {}
    last = scene.entries[-1].row if scene.entries else None
    return recap_.recap([f for e in scene.entries for f in e.facts], in_play=in_play,
                        turn=last.turn if scene.open and last is not None else None,
                        note=notes.get(str(scene.number), "") if scene.number is not None else "")


def scene_facts(campaign: m.Campaign, number: int) -> list[dict]:
    """The results the table's mails held in scene ``number``, in order (for ``/recap``)."""
    rows = (m.ArchivePost.select(m.ArchivePost.facts)
            .where((m.ArchivePost.campaign == campaign) & (m.ArchivePost.scene_number == number)
                   & (m.ArchivePost.shown != "")).order_by(m.ArchivePost.id))
    return [f for row in rows for f in row.facts]
