"""Replies: outcomes and sheets rendered with the Jinja templates in ``templates/``, as
the body of a reply (plain text and HTML; Markdown for a forum). The mail that carries
them is the mail adapter's (:mod:`pbp.mail.compose`); this module knows no headers.

The templates lay the mail out; the small filters here turn dice, ladder values and
changes into the glyphs players read ("[+] [0] [-] [+]", "Great (+4)", "FP 3 -> 2").
Everything worded by a game system takes the system explicitly (avrae/d20's shape: the
stringifier is passed): the functions here take it as an argument, and a template reads
the ``system`` its renderer method was given (:func:`_in_system`).
"""
from __future__ import annotations

import functools
import logging
import re
import unicodedata
from contextvars import ContextVar
from dataclasses import dataclass

import jinja2
from markupsafe import Markup, escape

# the mail's text conventions, which earlier callers import from here
from pbp.mail.compose import flow, mime_alternative, plain_text, reply_subject  # noqa: F401
from pbp.i18n import ENGLISH, Language, Msg, N_, of_settings
from pbp.ooc import split_ooc
from pbp.resources import resource_path
from pbp.rules.ladder import describe, signed
from pbp.rules.results import ActionResult, Change
from pbp.textsafety import BIDI

log = logging.getLogger("pbp.render")

VERBS = {
    "overcome": N_("{actor} overcomes with {skill}"),
    "advantage": N_("{actor} creates an advantage with {skill}"),
    "attack": N_("{actor} attacks {target} with {skill}"),
    "defend": N_("{actor} defends with {skill}"),
}

#: The game's words replies show from the rules' tables: a roll's rows, the tracks, the
#: severities, the aspects' kinds, the actions a stunt names; translated where shown.
TERMS = (N_("dice"), N_("reroll"), N_("invoke"), N_("effort"), N_("vs"), N_("bonus"), N_("penalty"), N_("help"),
         N_("stunt"), N_("scale"), N_("spin"), N_("teamwork"), N_("total"),
         N_("physical"), N_("mental"), N_("mild"), N_("mild2"), N_("moderate"), N_("severe"),
         N_("high concept"), N_("trouble"), N_("character"), N_("situation"), N_("boost"), N_("consequence"),
         N_("overcome"), N_("attack"), N_("defend"), N_("create an advantage"), N_("advantage"),
         N_("free"), N_("fate point"), N_("stress"))


def faces(roll, system) -> str:
    """A throw's faces as the campaign's system shows them ("[+] [0] [-] [+]", "[8] [10]")."""
    return system.explain.faces(roll)


def amount(n: int, effort, system) -> str:
    """An effort's total as its system counts it (the ladder; a pool's hits)."""
    return system.explain.amount(n, effort)


def worth(bonus: int, system) -> str:
    """What a stunt adds, in the words of the system: "+2", "+1 hit"."""
    return system.explain.worth(bonus)


def rated(n: int, system) -> str:
    """A value on the system's ladder: "Fair (+2)"; beyond it, the number."""
    return describe(n, system.ladder)


def track_label(track: str, language: Language = ENGLISH) -> str:
    """"physical stress"; a track named like its boxes (the d10 hack's strain, whose box word
    is "strain") is named once: "strain"."""
    from pbp.rules.systems import vocabulary

    units = {u.casefold() for u in vocabulary().units}
    if track.casefold() in units or not track:
        return language.gettext(track) if track else ""
    return language.say(Msg("{track} stress", track=track))


def slot_text(shifts: int, aspect: str | None, system, language: Language = ENGLISH) -> str:
    """A consequence slot on a sheet in the system's words ("2: (free)"; early Fate's
    "(free), takes the whole hit")."""
    return language.say(system.explain.slot(shifts, aspect))


def _boost(name: str) -> str:
    return name if name.casefold().startswith("boost") else f"boost {name}"


def change_parts(ch, language: Language = ENGLISH) -> tuple[str, str]:
    """One change as players read it, as (who or what, what happened to it): ("Ruth",
    "FP 3 -> 2"), ("Ethan's free invokes on On Fire", "0 -> 1"), ("On Fire", "created"),
    ("Shoggoth", "taken out"). Things to which the same happened are listed together
    (:func:`change_lines`), so the second part never names the first."""
    say = language.say
    before = say(Msg("none")) if ch.before is None else ch.before
    what, subject, after = ch.what, ch.subject, ch.after
    gone = say(Msg("gone"))
    if what == "aspect":
        if ch.detail == "renamed":
            return str(ch.before), say(Msg("is now {name}", name=after))
        return subject, {"removed": gone, "created": say(Msg("created"))}.get(after, str(after))
    if what == "free_invokes" and " (held by " in subject:
        aspect, holder = subject[:-1].split(" (held by ", 1)
        said = (Msg("GM's free invokes on {aspect}", aspect=aspect) if holder == "GM" else
                Msg("{holder}'s free invokes on {aspect}", holder=holder, aspect=aspect))
        return (say(said),
                f"{before} -> {gone if after in (None, 0) else after}")
    if what == "boost":
        if isinstance(after, str) and after.startswith("held by "):
            return _boost(subject), say(Msg("passed to {who}", who=after[8:]))
        return _boost(subject), {"removed": gone, None: gone, 0: gone}.get(after, str(after))
    if what == "stress":
        name, _, track = subject.partition(" (")
        track = track.rstrip(")")
        if isinstance(after, str) and "x" not in after:
            return name, say(Msg("{label} cleared", label=track_label(track, language))).strip()
        return name, f"{track_label(track, language)} {before} -> {after}".strip()
    if what == "taken_out":
        return subject, say(Msg("taken out")) if after else say(Msg("back in play"))
    if what == "consequence":
        if ch.before is None:
            if ch.detail:
                return subject, say(Msg('takes the {severity} consequence "{aspect}"', severity=ch.detail, aspect=after))
            return subject, say(Msg('takes the consequence "{aspect}"', aspect=after))
        if after is None:
            return subject, say(Msg('is rid of "{aspect}"', aspect=ch.before))
        return subject, say(Msg('"{before}" is now "{after}"', before=ch.before, after=after))
    if what == "character":
        if ch.detail in (None, "", "character"):
            return subject, say(Msg("joins as a new character"))
        return subject, say(Msg("joins as a new {kind}", kind=ch.detail))
    if what == "gm_pool":
        return say(Msg("GM's pool")), f"{before} -> {after}"
    if what == "escrow":
        return say(subject), (say(Msg("holds {n} FP", n=after)) if after else
                              say(Msg("FP goes {where}", where=ch.detail)).strip())
    if what == "carried_points":
        return subject, f"carries {after} FP into the GM's next pool" if after else "carries no FP"
    if what == "fate_points":
        return subject, say(Msg("FP {before} -> {after}", before=before, after=after))
    if what == "owed":
        return subject, f"owed FP {before} -> {after}"
    if what == "request":
        return subject, str(after)
    if what == "aspect_scale":
        return subject, f"scale {before} -> {'none' if after is None else after}"
    if what == "recovering":
        return subject, "recovering" if after else "no longer recovering"
    return subject, f"{what.replace('_', ' ')} {before} -> {after}"


def change_lines(changes, language: Language = ENGLISH) -> list[str]:
    """The "Changed" list: one entry per thing changed, and things to which the same
    happened in one entry ("physical stress cleared: Cassandra, Ethan, Ruth"), so a scene's
    end fits on a phone screen. A consequence renamed is said once, by its aspect."""
    renamed = {(ch.before, ch.after) for ch in changes if ch.what == "aspect" and ch.detail == "renamed"}
    groups: dict[str, list[str]] = {}
    for ch in changes:
        if ch.what == "consequence" and (ch.before, ch.after) in renamed:
            continue
        who, happened = change_parts(ch, language)
        groups.setdefault(happened, []).append(who)
    return [f"{whos[0]} {happened}" if len(whos) == 1 else f"{_heading(happened, language)}: {', '.join(whos)}"
            for happened, whos in groups.items()]


def _heading(happened: str, language: Language = ENGLISH) -> str:
    """What happened to several things, as the head of their list ("new minor NPCs")."""
    if not language.english:
        return happened
    if happened.startswith("joins as a new "):
        return happened[len("joins as a "):] + "s"
    return happened


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<])")
_MD_LINE_START = re.compile(r"^(\s*)([>#+-])(?=\s)", re.M)
_MD_NUMBERED = re.compile(r"^(\s*\d+)\.(?=\s)", re.M)


#: a forum's Markdown turns ``@name`` into a mention (a notification to that account) and
#: ``https://...`` or ``www.`` into a link: in names players typed, neither may happen
_MD_MENTION = re.compile(r"@(?=[\w.-])")
_MD_BARE_URL = re.compile(r"(?i)(?<=[a-z])(://)|\b(www)(\.)")
#: a zero-width space: shown as nothing, it breaks what a forum would read as a mention or a link
ZWSP = "\u200b"
_CODE_FENCE = re.compile(r"`{3,}|~{3,}")
#: anything any of the patterns above could change (a superset: a match only means "look closer")
_MD_ANY = re.compile(r"[\\`*_\[\]<@]|://|(?i:www)\.|^\s*(?:[>#+-]|\d+\.)(?=\s)", re.M)


def markdown_text(text) -> str:
    """Text as Markdown shows it, not as Markdown reads it: the characters that would make
    emphasis, links, code or HTML escaped, and a line that would start a quote, heading or
    list escaped at its start; an ``@name`` and a bare URL are kept from becoming a forum's
    mention or link. "FP 3 -> 2" stays as it is."""
    text = str(text)
    if _MD_ANY.search(text) is None:      # most text has nothing to escape: one scan, not five
        return text
    text = _MD_MENTION.sub("@" + ZWSP, text)
    text = _MD_BARE_URL.sub(lambda f: ZWSP + f.group(1) if f.group(1) else f.group(2) + ZWSP + f.group(3), text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = _MD_LINE_START.sub(lambda f: f.group(1) + "\\" + f.group(2), text)
    return _MD_NUMBERED.sub(lambda f: f.group(1) + "\\.", text)


def code_text(text) -> str:
    """Text inside a fenced code block: a run of backticks or tildes that could close the
    fence (a name typed with them) is broken up, so the block ends where pbp ends it."""
    return _CODE_FENCE.sub(lambda f: ZWSP.join(f.group(0)), str(text))


def tidy(text: str) -> str:
    """Plain text as it should travel: no trailing spaces, at most one blank line in a row."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def coalesce(changes: list) -> list:
    """One entry per thing changed, from its first "before" to its last "after" (two
    points spent in one post read "FP 3 -> 1"); things that ended where they began drop out.
    A character's consequences are several things (one /absorb may take a mild and a
    moderate): each is followed from name to name on its own."""
    merged: dict[tuple, Change] = {}
    for ch in changes:
        key = (ch.what, ch.subject)
        if ch.what == "consequence":    # one entry per slot: the chain of one consequence's names
            key = next((k for k, m in merged.items() if k[:2] == key and ch.before is not None
                        and m.after == ch.before), (*key, len(merged)))
        first = merged.get(key)
        merged[key] = ch if first is None else Change(ch.what, ch.subject, first.before, ch.after, ch.detail)
    return [ch for ch in merged.values() if ch.before != ch.after or ch.what == "aspect"]


def status_blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """The status lines at the foot of a reply as (heading, its indented lines): a contest's
    tally is one heading and a line per side, which HTML and Markdown show as a heading and
    plain lines under it (not every line in bold)."""
    blocks: list[tuple[str, list[str]]] = []
    for line in lines:
        if line[:1].isspace() and blocks:
            blocks[-1][1].append(line.strip())
        else:
            blocks.append((line.strip(), []))
    return blocks


def skill_rows(skills: dict) -> list[tuple[int, list[str]]]:
    """A sheet's skills as rows of one rating each, best first (a pyramid reads as one)."""
    rows: dict[int, list[str]] = {}
    for name, value in skills.items():
        rows.setdefault(value, []).append(name)
    return sorted(rows.items(), key=lambda kv: -kv[0])


def brief(sheet: dict, language: Language = ENGLISH) -> str:
    """A changed sheet on one line: "Ruth: FP 2 · physical [x][ ][ ] · mild "Nasty Bite"
    · holds 1 on On Fire"."""
    say = language.say
    parts = [f"{sheet['name']}: " + say(Msg("FP {n}", n=sheet['fate_points']))]
    if sheet.get("carried_points"):
        parts[0] += " " + say(Msg("(carries {n} into the GM's next pool)", n=sheet['carried_points']))
    for track, boxes in sheet["stress"].items():
        if boxes:
            parts.append(f"{language.gettext(track)} " + "".join("[x]" if b else "[ ]" for b in boxes))
    for q in sheet["consequences"]:
        if q["aspect"]:
            parts.append(f'{language.gettext(q["severity"])} "{q["aspect"]}"' +
                         (" " + say(Msg("(recovering)")) if q["recovering"] else ""))
    held = sheet.get("free_invokes_held") or {}
    if held:
        each = [Msg("{n} on {name}", n=n, name=name) for name, n in held.items()]
        parts.append(say(Msg("holds {list}", list=each)))
    if sheet["taken_out"]:
        parts.append(say(Msg("TAKEN OUT")))
    return " · ".join(parts)


def brief_html(sheet: dict, language: Language = ENGLISH) -> Markup:
    """:func:`brief` for the HTML part: fate points as a counter, stress as boxes (filled
    when marked), consequences and held invokes as words, each piece wrapping as a whole.
    Built with f-strings of escaped values (``Markup.format`` costs a formatter per piece)."""
    e, say = escape, language.say
    parts = [f'<b>{e(sheet["name"])}</b> <span style="{FP_STYLE}">{e(say(Msg("{n} FP", n=sheet["fate_points"])))}</span>']
    for track, boxes in sheet["stress"].items():
        if boxes:
            drawn = "".join(_BOX_MARKED_HTML if b else _BOX_FREE_HTML for b in boxes)
            parts.append(f"{e(language.gettext(track))} {drawn}")
    for q in sheet["consequences"]:
        if q["aspect"]:
            recovering = " " + e(say(Msg("(recovering)"))) if q["recovering"] else ""
            parts.append(f'{e(language.gettext(q["severity"]))} &ldquo;{e(q["aspect"])}&rdquo;{recovering}')
    if sheet.get("carried_points"):
        parts.append(str(e(say(Msg("carries {n} FP into the GM's next pool", n=sheet["carried_points"])))))
    held = sheet.get("free_invokes_held") or {}
    if held:
        each = [Msg("{n} on {name}", n=n, name=name) for name, n in held.items()]
        parts.append(str(e(say(Msg("holds {list}", list=each)))))
    if sheet["taken_out"]:
        parts.append(f"<b>{e(say(Msg('taken out')))}</b>")
    keep = 1 + sum(1 for boxes in sheet["stress"].values() if boxes)   # the counter and the boxes do not break
    return Markup(" · ".join([*(f'<span style="white-space:nowrap">{p}</span>' for p in parts[:keep]), *parts[keep:]]))


FP_STYLE = ("display:inline-block; min-width:1.6em; padding:0 6px; border-radius:9px; background:#e8e0c8; "
            "color:#5a4500; font-size:13px; text-align:center;")
_BOX = "display:inline-block; width:11px; height:11px; margin-right:2px; vertical-align:-1px; border:1.5px solid #555;"
BOX_FREE = _BOX + " background:#fff;"
BOX_MARKED = _BOX + " background:#b33; border-color:#b33;"
_BOX_FREE_HTML = f'<span style="{BOX_FREE}"></span>'
_BOX_MARKED_HTML = f'<span style="{BOX_MARKED}"></span>'
DIE_STYLE = ("display:inline-block; width:1.3em; height:1.3em; line-height:1.3em; margin-right:3px; text-align:center; "
             "border:1px solid #888; border-radius:3px; background:#fff; font-weight:bold;")


#: The mark at the start of every line pbp writes in the plain text of a reply that relays
#: a post (its results, notes, changes, turn and sheets): a player's relayed line never
#: starts with it, nor with anything that looks like it (:func:`relayed_line`), so no
#: prose can pass for pbp's words. The HTML needs none: pbp's results are styled blocks
#: and a post's prose is escaped into plain paragraphs, which no post can style.
MARK = "\u2503"
_PROSE = "\x00"     # tags a relayed line of the rendered text until mark_lines() takes it off
#: Characters that look like the mark: vertical bars and lines of every script and width.
_LOOKALIKES = frozenset("|\u00a6\u01c0\u05c0\u2223\u23d0\u2758\u2759\u275a\ufe31\ufe33\uff5c\uffe4\uffe8\u4e28\u3163"
                        "\u239c\u239f\u23a2\u23a5\u23aa\u23ae\u23b8\u23b9\u2502\u2503")
#: Characters that show as nothing, or as a blank, at the start of a line.
_BLANKS = frozenset("\u2800\u3164\u115f\u1160\uffa0\u00ad")


def _blank(ch: str) -> bool:
    return ch.isspace() or ch in _BLANKS or unicodedata.category(ch) in ("Cf", "Cc", "Mn", "Me", "Zs")


def _looks_like_mark(ch: str) -> bool:
    return ch in _LOOKALIKES or 0x2500 <= ord(ch) <= 0x259F or "VERTICAL" in unicodedata.name(ch, "")


def relayed_line(line: str) -> str:
    """A line of a player's prose as a relay shows it: without bidi controls (which could
    reorder it on screen), and with a backslash before it when what shows first is the
    mark or looks like it (``\\┃ Ruth overcomes...``); in a right-to-left line, whose last
    character may show first, after it too. Only the first and last characters that show
    are looked at (issue 23: a post's every character was classified before)."""
    line = line.translate(_UNSHOWN)
    first = next((ch for ch in line if not _blank(ch)), None)
    if first is None:
        return line
    last = next(ch for ch in reversed(line) if not _blank(ch))
    if _looks_like_mark(first):
        line = "\\" + line
    if _looks_like_mark(last) and any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in line if not _blank(ch)):
        line += "\\"
    return line


#: What a relayed line loses: bidi controls and the relay's own tag (:func:`str.translate`).
_UNSHOWN = dict.fromkeys(map(ord, BIDI | {_PROSE}))


def relayed(line: str) -> str:
    """The template filter for a relayed prose line: :func:`relayed_line`, tagged for
    :func:`mark_lines` (a blank line stays blank)."""
    return _PROSE + relayed_line(line) if line.strip() else ""


def mark_lines(text: str) -> str:
    """The rendered text of a relay with :data:`MARK` before every line that is pbp's (the
    untagged ones); the player's lines lose their tag. Blank lines stay blank."""
    out = []
    for line in text.split("\n"):
        if line.startswith(_PROSE):
            out.append(line[1:])
        else:
            out.append(f"{MARK} {line}" if line.strip() else line)
    return "\n".join(out)


_STRESS_BOXES = re.compile(r"(?:\[[x ]\])+")


def boxes_html(line: str) -> Markup:
    """A "Changed" line for HTML, its stress boxes ("[x][ ]") drawn as boxes."""
    def draw(found: re.Match) -> str:
        return "".join(f'<span style="{BOX_MARKED if box == "[x]" else BOX_FREE}"></span>'
                       for box in re.findall(r"\[[x ]\]", found.group(0)))
    return Markup(_STRESS_BOXES.sub(draw, str(escape(line))))


def indented(text: str) -> list[tuple[float, str]]:
    """A note's lines for HTML, each with its indentation in ``em``: the plain text nests
    lines by leading spaces (a scene's zones under it, a list's items under its title),
    which ``white-space: pre-line`` would drop. The first line and the lines indented as
    far as the continuation lines of a note ("\n  ") are level 0; each two spaces more,
    one level (1.2 em). A blank line is ``(-1, "")``, a gap."""
    lines = text.split("\n")
    rest = [len(x) - len(x.lstrip(" ")) for x in lines[1:] if x.strip()]
    base = min(rest) if rest else 0
    out = []
    for n, line in enumerate(lines):
        if not line.strip():
            out.append((-1.0, ""))
            continue
        depth = 0 if n == 0 else max(0, len(line) - len(line.lstrip(" ")) - base) // 2
        out.append((1.2 * depth, line.strip()))
    return out


def paragraphs(blocks: list) -> list:
    """The blocks of a reply for HTML: the author's hard-wrapped prose lines joined into
    paragraphs (a blank line ends one), results as they are."""
    out: list = []
    for kind, item, extra in blocks:
        if kind != "prose":
            out.append((kind, item, extra))
        elif not item.strip():
            out.append(("break", "", None))
        elif out and out[-1][0] == "prose":
            out[-1] = ("prose", f"{out[-1][1]} {item.strip()}", None)
        else:
            out.append(("prose", item.strip(), None))
    return [b for b in out if b[0] != "break"]


@dataclass(frozen=True)
class Row:
    """One row of a roll's working. ``text`` is what the plain text shows; a row of dice
    also keeps its faces (``dice``) and what follows them (``rest``), so HTML can draw the
    dice as boxes."""

    label: str
    text: str
    value: str = ""
    dice: tuple = ()
    rest: str = ""


def action_rows(res: ActionResult, system, language: Language = ENGLISH) -> list[Row]:
    """The working of a roll, one row per term: dice, each modifier with its source,
    rerolls, effort, opposition, in ``system``'s words and the campaign's language."""
    rows = _action_rows(res, system)
    if language.english:
        return rows
    return [Row(language.gettext(r.label) if r.label else r.label, language.say(r.text), r.value, r.dice,
                language.say(r.rest)) for r in rows]


def _action_rows(res: ActionResult, system) -> list[Row]:
    x = system.explain
    effort = res.effort
    first = effort.rolls[0]
    rows = [Row("dice", x.faces(first), x.dice_value(first), dice=x.glyphs(first))]
    for use in effort.invokes:
        if use.reroll is not None:
            rest = Msg("(invoke {aspect}, {paid})", aspect=use.aspect, paid=_paid(use))
            rows.append(Row("reroll", f"{x.faces(use.reroll)} {rest}", x.dice_value(use.reroll),
                            x.glyphs(use.reroll), rest))
    for mod in effort.modifiers:
        if mod.source == "skill":
            continue
        rows.append(_modifier_row(mod))
    for use in effort.invokes:
        if use.paid_with == "skipped":
            rows.append(Row("invoke", Msg("{aspect} (if needed: not needed, not spent)", aspect=use.aspect), ""))
    rows.append(Row("effort", "", x.amount(effort.total, effort)))
    opp = res.opposition
    if opp is not None:
        if opp.effort is None:
            passive = x.passive(opp.value) if not effort.rating_counts else describe(opp.value, system.ladder)
            rows.append(Row("vs", passive if not opp.label or opp.label == describe(opp.value, system.ladder)
                            else opp.label, ""))
        else:  # a rolled opposition shows its working too: which number is its dice, which its total
            o = opp.effort
            skill_txt = _skill_words(o.modifiers, o, system) or (o.skill or Msg("no skill"))
            rows.append(Row("vs", Msg("{who}: {skill}", who=opp.character, skill=skill_txt), ""))
            rows.append(Row("", Msg("  dice {faces}", faces=x.faces(o.dice)), x.dice_value(o.dice), x.glyphs(o.dice)))
            for m in o.modifiers:
                if m.source != "skill":
                    row = _modifier_row(m)
                    rows.append(Row("", f"  {row.label} {row.text}".rstrip(), row.value))
            rows.append(Row("", Msg("  total"), x.amount(opp.value, o)))
    return rows


def _modifier_row(mod) -> Row:
    """An effort's term other than the skill: "invoke Distracted (free)", "stunt Screaming
    Charge", a bonus or penalty written in the command."""
    if mod.source == "modifier":
        return Row("bonus" if mod.value > 0 else "penalty", "", signed(mod.value))
    if mod.source == "teamwork":
        return Row("help", mod.label, signed(mod.value))
    return Row(mod.source, mod.label, signed(mod.value))


def _paid(use) -> str:
    return {"free": N_("free"), "boost": N_("boost"), "fp": N_("fate point")}.get(use.paid_with, use.paid_with)


def headline(res: ActionResult, system, language: Language = ENGLISH) -> str:
    terms = [m for m in res.effort.modifiers if m.source == "skill"]
    if res.action == "roll":
        written = res.command.split(None, 1)[1] if ' ' in res.command else Msg('the dice')
        return language.say(Msg("{actor} rolls {what}", actor=res.actor,
                                what=system.explain.rolled(written, terms, res.effort)))
    skill = system.explain.headline_skill(res.skill or Msg("no skill"), terms, res.effort)
    target = next((e.data.get("target") for e in res.effects if e.data.get("target")), None)
    if target is None and res.opposition is not None:
        target = res.opposition.character
    return language.say(Msg(VERBS.get(res.action, N_("{actor} rolls {skill}")), actor=res.actor, skill=skill,
                            target=target or ""))


def _skill_words(modifiers, effort, system) -> str:
    """"Fight Good (+3)"; for a pool, its terms and size: "Fight + Boldly, 6 dice"."""
    return system.explain.skill_words([m for m in modifiers if m.source == "skill"], effort)


def verdict(res: ActionResult, system, language: Language = ENGLISH) -> str:
    """The outcome line, in the system's words ("success, 2 shifts")."""
    return language.say(system.explain.verdict(res))


def _in_system(fn):
    """``fn`` as a template calls it, without the system: the system is the template's
    ``system``, the one its renderer method was given."""
    @jinja2.pass_context
    def call(context, *args):
        return fn(*args, context["system"])
    return call


#: More changed sheets than this (a scene's end clears everyone's stress) are named, not
#: drawn, so the reply still fits on a phone screen.
MAX_SHEETS = 4


#: While a reply's parts are rendered (:meth:`Renderer.result`): what :func:`_once` worked out
#: for each result, so the text, the HTML and the Markdown ask the system's explainer once.
_ONCE: ContextVar[dict | None] = ContextVar("pbp_render_once", default=None)


def _once(fn):
    """``fn(result)`` worked out once per result while :data:`_ONCE` is set (a reply's
    render, whose results are all told in one system); as it is otherwise. The templates
    only read what it returns."""
    def once(res, *rest):
        memo = _ONCE.get()
        if memo is None:
            return fn(res, *rest)
        key = (fn, id(res))
        found = memo.get(key)
        if found is None:
            found = memo[key] = (fn(res, *rest), res)     # the result kept with it: its id stays its own
        return found[0]
    once.__name__ = getattr(fn, "__name__", None) or fn.func.__name__
    return once


@functools.lru_cache(maxsize=None)
def _spoken_once(language: Language) -> dict:
    """The result's rows, headline and verdict in ``language``, each worked out once per reply
    (:func:`_once`) whichever of the reply's parts asks first."""
    return {fn.__name__: _once(functools.partial(fn, language=language)) for fn in (action_rows, headline, verdict)}


class _FlatTemplate(jinja2.Template):
    """A template whose globals are one plain dict. Jinja keeps them as a ``ChainMap`` (the
    template's own over the environment's) and copies that into every render's context,
    key by key in Python: about a twentieth of a post's CPU (issue 23). The environments'
    globals are set once, when they are made (:meth:`Renderer._make`), so a flat copy taken
    at the first render holds the same."""

    def new_context(self, vars=None, shared=False, locals=None):
        if type(self.globals) is not dict:
            self.globals = dict(self.globals)
        return super().new_context(vars, shared, locals)


class Renderer:
    """The Jinja environments (built once per language a reply is written in) and one method
    per kind of reply, each returning (plain text, HTML). A reply is written in its
    campaign's language (``language`` among its settings, :func:`pbp.i18n.of_settings`):
    the templates take their words from its catalog (Jinja's ``{% trans %}``)."""

    def __init__(self) -> None:
        self._envs: dict[str, tuple[jinja2.Environment, jinja2.Environment]] = {}
        self.text_env, self.html_env = self.environments(ENGLISH)

    def environments(self, language: Language) -> tuple[jinja2.Environment, jinja2.Environment]:
        """(plain text, HTML) environments speaking ``language``, made on first use."""
        envs = self._envs.get(language.code)
        if envs is None:
            envs = self._envs[language.code] = (self._make(language, autoescape=False),
                                                self._make(language, autoescape=True))
        return envs

    @staticmethod
    def _make(language: Language, *, autoescape: bool) -> jinja2.Environment:
        loader = jinja2.FileSystemLoader(str(resource_path("templates", "")))
        env = jinja2.Environment(loader=loader, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                                 undefined=jinja2.StrictUndefined, autoescape=autoescape,
                                 extensions=["jinja2.ext.i18n"], auto_reload=False)   # the package's own files
        env.template_class = _FlatTemplate
        env.install_gettext_translations(language.translations, newstyle=True)
        spoken = functools.partial      # the functions the templates call, in the environment's language
        once = _spoken_once(language)     # one per language: the text, HTML and Markdown share what they work out
        env.filters.update(faces=_in_system(faces), describe=_in_system(rated), signed=signed,
                           brief=spoken(brief, language=language), changes=spoken(change_lines, language=language),
                           say=language.say, command=language.command, md=markdown_text, code=code_text, worth=_in_system(worth),
                           relayed=relayed)
        env.globals.update(action_rows=_in_system(once["action_rows"]), headline=_in_system(once["headline"]),
                           verdict=_in_system(once["verdict"]), paragraphs=paragraphs,
                           indented=indented, die_style=DIE_STYLE, brief_html=spoken(brief_html, language=language),
                           boxes_html=boxes_html, is_action=lambda r: isinstance(r, ActionResult),
                           track_label=spoken(track_label, language=language),
                           slot_text=_in_system(spoken(slot_text, language=language)), skill_rows=skill_rows,
                           status_blocks=status_blocks, fp_style=FP_STYLE, box_free=BOX_FREE, box_marked=BOX_MARKED,
                           when=language.when, stamp=language.stamp, label_width=6 if language.english else 7)
        return env

    def _markdown(self, name: str, **data) -> str:
        text_env, _ = self.environments(_language(data.get("campaign")))
        return tidy(text_env.get_template(f"{name}.md.j2").render(**data))

    def _both(self, name: str, *, marked: bool = False, **data) -> tuple[str, str]:
        """(plain text, HTML) of template ``name`` in the campaign's language; ``marked``: the
        text's own lines carry :data:`MARK` (a relay, whose relayed lines the template tags
        with ``relayed``)."""
        text_env, html_env = self.environments(_language(data.get("campaign")))
        text = tidy(text_env.get_template(f"{name}.txt.j2").render(**data))
        return (mark_lines(text) if marked else text, html_env.get_template(f"{name}.html.j2").render(**data))

    def result(self, *, mail, campaign, system, results, ledger, commands, sheets, relay: bool, asks=(),
               status=(), template: str = "result", notes=(), markdown: bool = False, proof=()) -> tuple[str, str]:
        """The post with each command replaced by its result (relay), or the results alone
        (list mode, deadline rounds: ``commands`` None), then the changes, what pbp waits
        for, whose turn it is, the reader's notes (lines that looked like commands but were
        not read as ones) and the sheets that changed. ``template`` "gm_copy": the same, as
        the GM's own copy of what the table's mail left out (:mod:`pbp.views`). In a relay
        every line of the text that is pbp's starts with :data:`MARK` (:func:`mark_lines`)
        and the relayed prose is escaped (:func:`relayed_line`). With
        ``markdown``, (plain text, HTML, Markdown for a forum: ``result.md.j2``). ``proof``:
        the ``pbp-dice/1`` footer lines of committed dice (:mod:`pbp.verify_dice`), last.
        ``system``: the campaign's, whose words explain the results and the sheets.
        A relay shows the post's out-of-character lines (:mod:`pbp.ooc`) apart, after the
        story and its results, without their marks."""
        blocks = []  # ("prose", text, None) | ("result", res, (roll id, ledger hash) or None)
        ooc: list[str] = []     # the out-of-character words of a relayed post, shown apart (pbp.ooc)
        if commands is None:
            blocks = [("result", res, ledger.get(id(res))) for res in results]
        else:
            by_line = {cmd.line: res for cmd, res in zip(commands, results)}
            story, apart = split_ooc(mail.new_text)
            ooc = apart if relay else []
            for number, line in story:
                if number in by_line:
                    res = by_line[number]
                    blocks.append(("result", res, ledger.get(id(res))))
                elif relay:
                    blocks.append(("prose", line, None))
            # results beyond one per command: actions held until their turn, run by this post
            blocks += [("result", res, ledger.get(id(res))) for res in results[len(commands):]]
        while blocks and blocks[0][0] == "prose" and not blocks[0][1].strip():
            blocks.pop(0)
        while blocks and blocks[-1][0] == "prose" and not blocks[-1][1].strip():
            blocks.pop()
        changes = coalesce([ch for res in results for ch in res.changes])
        say = _language(campaign).say
        data = dict(campaign=campaign, system=system, blocks=blocks, changes=changes, ledger=ledger, sheets=sheets, relay=relay,
                    asks=list(asks), status=[say(line) for line in status], notes=[say(n) for n in notes],
                    max_sheets=MAX_SHEETS,
                    proof=list(proof), ooc=ooc)
        token = _ONCE.set({})       # the text, HTML and Markdown share each result's rows
        try:
            both = self._both(template, marked=relay and commands is not None, **data)
            return (*both, self._markdown(template, **data)) if markdown else both
        finally:
            _ONCE.reset(token)

    def tell(self, *, campaign, tell) -> tuple[str, str]:
        return self._both("tell", campaign=campaign, tell=tell)

    def error(self, *, mail, campaign, errors, status=()) -> tuple[str, str]:
        shown = [e.shown() if hasattr(e, "shown") else e for e in errors]
        say = _language(campaign).say
        return self._both("error", mail=mail, campaign=campaign, errors=shown, status=[say(line) for line in status])

    def stranger(self, *, mail, campaign) -> tuple[str, str]:
        return self._both("stranger", mail=mail, campaign=campaign)

    def duplicate(self, *, mail, campaign, seen, original, kind: str = "resent") -> tuple[str, str]:
        """The note for a mail that repeats an earlier one (``kind``: ``resent``, ``copy``,
        ``forward``, ``retyped``; ``forward_of_other`` shows nothing of the original)."""
        body = ""
        if original is not None:
            import email as _email
            from email import policy

            msg = _email.message_from_string(original.raw, policy=policy.default)
            body = plain_text(msg) if msg.get_body(("plain",)) is not None else ""
        return self._both("duplicate", mail=mail, campaign=campaign, seen=seen, original_text=body, kind=kind)

    def sheet(self, sheet: dict, system, language: Language = ENGLISH) -> str:
        """A sheet as text, in ``system``'s words (its ladder, its consequence slots)."""
        return self.environments(language)[0].get_template("sheet.txt.j2").render(sheet=sheet, system=system)


def _language(campaign) -> Language:
    """The language a reply for ``campaign`` is written in (none yet: English)."""
    return of_settings(getattr(campaign, "settings", None))
