"""Read command lines into the dataclasses of :mod:`pbp.commands`.

The flow, in file order: ``grammar/commands.lark`` (the language) -> :class:`_Builder` (one
method per grammar rule, run inline by the LALR parser, so no tree is built) -> the command
dataclass. Every failure becomes one :class:`~pbp.errors.CommandSyntaxError` at the boundary
(:func:`parse_command`), carrying the line, the 1-based column within the command line,
the offending text, what was expected in words and a working example of that command.

Public API:

* :func:`parse_command` — one command line (starting with ``/``) -> a ``Command``.
* :func:`find_commands` — the command lines of a post, with their line numbers.
* :func:`find_near_commands` — lines that look like commands but are not read as ones.
* :func:`parse_post` — every command of a post; raises the first error.
* :func:`parse_post_all` — every command and every error of a post.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken
from lark.parsers.lalr_analysis import Shift

from pbp.commands import (
    Absorb,
    Advantage,
    Again,
    Answer,
    AspectCmd,
    Attack,
    Choice,
    Command,
    Compel,
    Concede,
    ConflictCmd,
    Defend,
    Detail,
    Done,
    FatePoints,
    GiveInvoke,
    Invoke,
    InvokeAfter,
    InvokeMode,
    Move,
    Next,
    NpcCmd,
    Opposition,
    Overcome,
    Payment,
    Roll,
    Say,
    SceneCmd,
    Sheet,
    StuntUse,
    Treat,
)
from pbp.errors import CommandError, CommandSyntaxError
from pbp.resources import resource_path
from pbp.textsafety import bad_char, describe_char, strip_invisible

__all__ = [
    "COMMAND_NAMES",
    "EXAMPLES",
    "LADDER",
    "example_for",
    "find_commands",
    "find_near_commands",
    "get_parser",
    "parse_command",
    "parse_post",
    "parse_post_all",
]

# ---------------------------------------------------------------------------- the language

LADDER = {
    "legendary": 8, "epic": 7, "fantastic": 6, "superb": 5, "great": 4, "good": 3,
    "fair": 2, "average": 1, "mediocre": 0, "poor": -1, "terrible": -2,
    "catastrophic": -3, "horrifying": -4,
}
"""The ladder adjectives a difficulty may name (the Fate ladder, extended below Terrible)."""

MAX_DICE = 100
MIN_SIDES, MAX_SIDES = 2, 1000
MAX_NUMBER = 99
"""Difficulties and plain modifiers go from -99 to +99; amounts and ``xN`` from 1 to 99."""

EXAMPLES = {
    "roll": "/roll 4dF+2",
    "overcome": "/overcome Investigate vs Fair",
    "advantage": '/advantage Crafts "On Fire" on Shoggoth vs Good',
    "create": '/create Crafts "On Fire" on Shoggoth vs Good',
    "attack": '/attack Ghoul with Fight +invoke "Distracted" free',
    "defend": "/defend Athletics",
    "sheet": "/sheet",
    "fp": "/fp spend",
    "as": "/as Ghoul attack Charles with Fight",
    # play by post
    "next": "/next Ruth",
    "done": "/done",
    "move": '/move "Back Yard"',
    "invoke": '/invoke "Deep Shadows" reroll',
    "absorb": '/absorb stress 2 mild "Nasty Bite"',
    "concede": '/concede "I flee into the sewers"',
    "treat": '/treat Charles "Gaping Chest Wound" with Academics',
    "compel": '/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"',
    "accept": "/accept #12",
    "refuse": "/refuse #12",
    "approve": "/approve #12",
    "deny": '/deny #12 "off the mark"',
    "withdraw": "/withdraw #12",
    "veto": '/veto #142 "Distracted" "a car cannot be distracted"',
    "detail": '/detail "The guard is my cousin"',
    "give": '/give "On Fire" to Ruth',
    "again": '/again "the guards have gone"',
    # the GM's table
    "scene": '/scene start "Warehouse" zones Dock, Office borders Dock-Office',
    "session": "/session end",
    "milestone": "/milestone minor",
    "aspect": '/aspect add "Deep Shadows" on Office free 1',
    "conflict": "/conflict start Ruth, Ghoul first Ruth",
    "place": "/place Ruth in Dock",
    "npc": '/npc add Ghoul aspects "Hungry Ghoul" skills Fight Fair stress 2',
}
"""A working example of each command word, given with every error about that command."""

_GM_EXAMPLES = {
    "roll": "/as Ghoul roll Fight",
    "overcome": "/as Ghoul overcome Athletics vs Fair",
    "advantage": '/as Ghoul advantage Deceive "Feint" on Charles',
    "create": '/as Ghoul create Deceive "Feint" on Charles',
    "attack": "/as Ghoul attack Charles with Fight",
    "defend": "/as Ghoul defend Athletics",
    "next": "/as Ghoul next Ruth",
    "done": "/as Ghoul done",
    "move": "/as Ghoul move Dock",
    "invoke": '/as Ghoul invoke "Hungry" free',
    "absorb": '/as Ghoul absorb stress 1 mild "Singed Fur"',
    "concede": '/as Ghoul concede "It flees into the sewers"',
    "treat": '/as Ghoul treat Ghoul "Singed Fur" with Physique',
    "compel": '/as Ghoul compel Ruth "Hair-Trigger Temper" event "The ghoul taunts you"',
    "detail": '/as Ghoul detail "The sewer grate is loose"',
    "give": '/as Ghoul give "Cornered" to Acolyte',
}
_FP_EXAMPLES = {
    "GIVE": "/fp give Ruth 1",
    "TAKE": "/fp take Ruth 1",
    "_SPEND": '/fp spend "for the story detail"',
}
# Commands with parts after the command word: the example for the part that was written.
_PART_EXAMPLES = {
    "fp": _FP_EXAMPLES,
    "scene": {"_END": "/scene end"},
    "aspect": {"_REMOVE": '/aspect remove "Deep Shadows"',
               "_RENAME": '/aspect rename "Nasty Bite" to "Bandaged Bite"'},
    "conflict": {"_END": "/conflict end"},
    "npc": {"_JOIN": '/npc join Ghoul, "Masked Acolyte"', "_DEFEND": "/npc defend Ghoul with Athletics"},
}

COMMAND_NAMES = tuple(EXAMPLES)
"""Every command word the grammar knows (``create`` is ``advantage``; ``as`` is the GM prefix)."""

_ACTION_NAMES = tuple(_GM_EXAMPLES)
"""The commands ``/as NAME`` may come before."""
_PLAY_ACTOR_NAMES = _ACTION_NAMES[_ACTION_NAMES.index("next"):]
_COMMAND_TERMINALS = {
    "_ROLL", "_OVERCOME", "_ADVANTAGE", "_ATTACK", "_DEFEND", "_SHEET", "FP", "_AS",
    "_NEXT", "_DONE", "_MOVE", "_INVOKE", "_ABSORB", "_CONCEDE", "_TREAT", "_COMPEL", "ANSWER", "_VETO", "_AGAIN",
    "_DETAIL", "GIVE", "_SCENE", "_SESSION", "_MILESTONE", "_ASPECT", "_CONFLICT", "_PLACE", "_NPC",
}
_CANONICAL = {"_ASPECT": "aspect"}  # /aspects is /aspect
MAX_REF = 999_999_999
"""Ids (``#142``) go from 1 to 999,999,999."""

_QUOTES_OPEN = "\"“”„«»‘'"
_SPACES = re.compile(r"\s+")
_RUN = re.compile(r"\S+")

# ---------------------------------------------------------------------------- the builder


class _Invalid(Exception):
    """Raised by the builder for text the grammar accepts but the rules of reading do not
    (too many dice, an empty name); turned into a CommandSyntaxError by parse_command."""

    def __init__(self, message: str, token: Token | None, expected: str) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.expected = expected


def _number(token: Token, low: int, high: int, what: str, sign: int = 1, digits: str | None = None) -> int:
    """``sign * digits`` (the token's text unless given) if it lies in ``low..high``; long
    digit strings are refused without converting them."""
    digits = token.value if digits is None else digits
    value = sign * (int(digits) if len(digits) <= 10 else 10**10)
    if not low <= value <= high:
        bounds = f"{low:+d} to {high:+d}" if low < 0 else f"{low} to {high}"
        shown = _short(f"-{digits}" if sign < 0 else digits, 20)
        raise _Invalid(f"{what} must be from {bounds}, not {shown}", token, f"{what} from {bounds}")
    return value


def _clean_name(text: str, token: Token, what: str = "a name") -> str:
    name = _SPACES.sub(" ", text).strip().replace("’", "'")
    if not name:
        raise _Invalid(f"{what} in quotes cannot be empty", token, f"{what} between the quotes")
    return name


def _text(token: Token | None, what: str) -> str:
    """The cleaned text of a quoted token (terms, a reason, a detail), "" when absent."""
    return "" if token is None else _clean_name(token.value[1:-1], token, what)


def _ref(token: Token) -> int:
    """``#142`` -> 142."""
    return _number(token, 1, MAX_REF, "an id", digits=token.value[1:])


def _once(fields: dict[str, Any], key: str, value: Any, token: Token, message: str, expected: str) -> None:
    """Set ``fields[key]``; a part written twice must say the same thing both times (as
    ``free free`` on an invoke), else the second one is refused."""
    if key in fields and fields[key] != value:
        raise _Invalid(message, token, expected)
    fields[key] = value


def _split_border(token: Token, zones: list[str]) -> tuple[str, str]:
    """``Dock-Office`` (one bare word) -> (``Dock``, ``Office``): at the hyphen that leaves
    two zones named in the same command, else at the only hyphen."""
    word = token.value.replace("’", "'")
    cuts = [i for i, ch in enumerate(word) if ch == "-"]
    known = {zone.lower() for zone in zones}
    fits = [i for i in cuts if word[:i].lower() in known and word[i + 1:].lower() in known]
    if len(fits) == 1:
        return word[:fits[0]], word[fits[0] + 1:]
    if len(cuts) == 1:
        return word[:cuts[0]], word[cuts[0] + 1:]
    if not cuts:
        raise _Invalid(f'a border joins two zones with "-" (Dock-Office), not just "{_short(word, 40)}"',
                       token, 'two zones joined by "-", e.g. Dock-Office')
    raise _Invalid(f'"{_short(word, 40)}" can be cut into zones in more than one place; '
                   'put a zone whose name has a hyphen in quotes ("Half-Way"-Office)',
                   token, 'two zones joined by "-", with quotes around a name that has a hyphen')


def _action_fields(skill: str, opposition: Opposition | None, modifiers: list) -> dict[str, Any]:
    """Sort the trailing modifiers of an action into the fields of ActionCommand."""
    fields: dict[str, Any] = {"skill": skill}
    if opposition is not None:
        fields["opposition"] = opposition
    if modifiers:
        invokes, stunts, choices, bonus = [], [], [], 0
        for item in modifiers:
            if type(item) is int:
                bonus += item
            elif type(item) is Invoke:
                invokes.append(item)
            elif type(item) is StuntUse:
                stunts.append(item)
            else:
                choices.append(item)
        if not -MAX_NUMBER <= bonus <= MAX_NUMBER:
            raise _Invalid(f"the modifiers add up to {bonus:+d}; the limit is ±{MAX_NUMBER}", None,
                           f"modifiers adding up to -{MAX_NUMBER} to +{MAX_NUMBER}")
        fields.update(invokes=tuple(invokes), stunts=tuple(stunts), choices=tuple(choices), modifier=bonus)
    return fields


def _make_invoke(aspect: str, options: list[Token], after_roll: bool = False) -> Invoke:
    """An Invoke from its aspect and option tokens (``reroll``, ``free``, ``x2``, ``if needed``)."""
    mode = payment = times = None
    if_needed = for_style = False
    for option in options:
        kind = option.type
        if kind == "IF":
            if after_roll:
                raise _Invalid('"if needed" only makes sense before the dice, on a +invoke written with the '
                               "action; after the roll you can see whether the invoke is needed",
                               option, 'an invoke option (reroll, oppose, free, fp, x2), without "if needed"')
            if_needed = True
        elif kind == "FOR_STYLE":
            if not if_needed or for_style:
                raise _Invalid('"for style" goes right after "if needed" ("if needed for style")', option,
                               'if needed for style')
            for_style = True
        elif kind == "TIMES":
            n = _number(option, 1, MAX_NUMBER, "the number of invokes", digits=option.value[1:])
            if times is not None and times != n:
                raise _Invalid(f"an invoke has one count, not x{times} and x{n}", option, "one xN per invoke")
            times = n
        elif kind in ("REROLL", "OPPOSE"):
            new = InvokeMode(option.lower())
            if mode is not None and mode != new:
                raise _Invalid("an invoke is either reroll or oppose, not both", option,
                               "reroll or oppose, not both")
            mode = new
        else:
            new = Payment(option.lower())
            if payment is not None and payment != new:
                raise _Invalid("an invoke is paid either free or fp, not both", option,
                               "free or fp, not both")
            payment = new
    return Invoke(
        aspect=aspect,
        mode=mode or InvokeMode.BONUS,
        payment=payment or Payment.AUTO,
        if_needed=if_needed,
        for_style=for_style,
        times=times or 1,
    )


class _Joined:
    """A border written as one bare word (``Dock-Office``), split once the zones are known."""

    __slots__ = ("token",)

    def __init__(self, token: Token) -> None:
        self.token = token


class _Builder(Transformer):
    """One method per grammar rule or alias; each returns a plain value. Command rules return
    ``(dataclass, fields)`` so :func:`parse_command` adds the line and source."""

    # -- names
    def word(self, c):
        return c[0].value.replace("’", "'")

    def quoted(self, c):
        token = c[0]
        return _clean_name(token.value[1:-1], token)

    # -- the whole line
    def start(self, c):
        return c[0]

    def gm(self, c):
        actor, (cls, fields) = c
        fields["actor"] = actor
        return cls, fields

    def say(self, c):
        return Say, {"actor": c[0]}

    # -- actions
    def overcome(self, c):
        return Overcome, _action_fields(c[0], c[1], c[2:])

    def defend(self, c):
        return Defend, _action_fields(c[0], c[1], c[2:])

    def attack(self, c):
        fields = _action_fields(c[1], None, c[2:])
        fields["target"] = c[0]
        return Attack, fields

    def advantage(self, c):
        skill, aspect, target, opposition = c[0], c[1], c[2], c[3]
        fields = _action_fields(skill, opposition, c[4:])
        if aspect is True:
            fields["discover"] = True
        else:
            fields["aspect"] = aspect
        if target is not None:
            fields["target"] = target
        return Advantage, fields

    def aspect(self, c):
        return c[0]

    def discover(self, c):
        return True

    def target(self, c):
        return c[0]

    def passive(self, c):
        return Opposition(rating=c[0])

    def active(self, c):
        return Opposition(character=c[0], skill=c[1])

    def ladder(self, c):
        return LADDER[c[0].lower()]

    def positive(self, c):
        return _number(c[0], -MAX_NUMBER, MAX_NUMBER, "a number")

    def negative(self, c):
        return _number(c[0], -MAX_NUMBER, MAX_NUMBER, "a number", sign=-1)

    # -- modifiers
    def invoke(self, c):
        return _make_invoke(c[0], c[1:])

    def stunt(self, c):
        return StuntUse(c[0])

    def choice(self, c):
        outcome = c[0].lower()
        return Choice(outcome="fail" if outcome == "failure" else outcome, take=c[1].lower())

    # -- dice
    def roll(self, c):
        return Roll, (c[0] or {})

    def dice_roll(self, c):
        fields = _dice(c[0])
        fields["modifier"] = _sum_bonus(c[1:])
        return fields

    def dice_skill_roll(self, c):
        fields = _dice(c[0])
        fields["skill"] = c[1]
        fields["modifier"] = _sum_bonus(c[2:])
        return fields

    def skill_roll(self, c):
        return {"skill": c[0], "modifier": _sum_bonus(c[1:])}

    # -- out of the action
    def sheet(self, c):
        return Sheet, {"character": c[0]}

    def fp_show(self, c):
        return FatePoints, {"op": "show", "character": c[1]}

    def fp_spend(self, c):
        reason = c[1]
        fields = {"op": "spend"}
        if reason is not None:
            fields["reason"] = _clean_name(reason.value[1:-1], reason)
        return FatePoints, fields

    def fp_move(self, c):
        op, character, amount = c[1], c[2], c[3]
        fields = {"op": op.lower(), "character": character}
        if amount is not None:
            fields["amount"] = _number(amount, 1, MAX_NUMBER, "the number of fate points")
        return FatePoints, fields

    # -- play by post
    def next(self, c):
        return Next, {"character": c[0]}

    def done(self, c):
        return Done, {}

    def move(self, c):
        return Move, {"zone": c[0]}

    def invoke_after(self, c):
        ref = c[-1]
        fields: dict[str, Any] = {"invoke": _make_invoke(c[0], c[1:-1], after_roll=True)}
        if ref is not None:
            fields["roll_id"] = _ref(ref)
        return InvokeAfter, fields

    def absorb(self, c):
        fields: dict[str, Any] = {}
        consequences = []
        for part in c:
            if type(part) is tuple:
                consequences.append(part)
            else:
                keyword, amount = part
                _once(fields, "stress", _number(amount, 1, MAX_NUMBER, "the number of stress boxes"), keyword,
                      "the stress is given twice; write it once", "one stress amount")
        fields["consequences"] = tuple(consequences)
        return Absorb, fields

    def absorb_stress(self, c):
        return [c[0], c[1]]  # a list: consequences are tuples

    def consequence(self, c):
        return c[0].lower(), c[1]

    def concede(self, c):
        return Concede, {"terms": _text(c[0], "the terms")}

    def treat(self, c):
        patient, consequence, skill, rename = c[:4]
        return Treat, {"patient": patient, "consequence": consequence, "skill": skill,
                       "rename": rename or "", "invokes": tuple(c[4:])}

    def no_consequence(self, c):
        raise _Invalid('the consequence is missing: name who you treat, then the consequence, before "with"', c[0],
                       'who you treat (a character name, or me) and the consequence, before "with"')

    def no_aspect(self, c):
        raise _Invalid(f'the aspect is missing: name the aspect you compel before "{c[0]}"', c[0],
                       f'the aspect to compel, before "{c[0]}"')

    def no_given_aspect(self, c):
        raise _Invalid('the aspect is missing: name the aspect whose free invokes you give before "to"', c[0],
                       'the aspect whose free invokes you give, before "to"')

    def compel(self, c):
        target, aspect, kind, text = c
        return Compel, {"target": target, "aspect": aspect, "kind": kind.lower() if kind else "event",
                        "text": _text(text, "what happens")}

    def detail(self, c):
        return Detail, {"text": _text(c[0], "a story detail")}

    def give(self, c):
        fields: dict[str, Any] = {"aspect": c[1], "to": c[2]}
        if c[3] is not None:
            fields["count"] = _number(c[3], 1, MAX_NUMBER, "the number of free invokes")
        return GiveInvoke, fields

    def answer(self, c):
        verb, ref, reason = c
        fields: dict[str, Any] = {"verb": verb.lower(), "reason": _text(reason, "a reason")}
        if ref is not None:
            fields["ref"] = _ref(ref)
        return Answer, fields

    def again(self, c):
        return Again, {"changed": _text(c[0], "what has changed")}

    def veto(self, c):
        ref, aspect, reason = c
        fields: dict[str, Any] = {"verb": "veto", "aspect": aspect, "reason": _text(reason, "a reason")}
        if ref is not None:
            fields["ref"] = _ref(ref)
        return Answer, fields

    # -- GM: scenes, aspects, conflicts, NPCs
    def scene_start(self, c):
        name, zones, borders, npcs = c
        zones = zones or []
        pairs = tuple(_split_border(b.token, zones) if type(b) is _Joined else b for b in borders or ())
        return SceneCmd, {"op": "scene_start", "name": name, "zones": tuple(zones), "borders": pairs,
                          "npcs": tuple(npcs or ())}

    def scene_end(self, c):
        return SceneCmd, {"op": "scene_end"}

    def session_end(self, c):
        return SceneCmd, {"op": "session_end"}

    def milestone(self, c):
        return SceneCmd, {"op": "milestone", "level": c[0].lower()}

    def border_list(self, c):
        return c

    def border(self, c):
        return c[0], c[1]

    def joined_border(self, c):
        return _Joined(c[0])

    def name_list(self, c):
        return c

    def aspect_add(self, c):
        fields: dict[str, Any] = {"op": "add", "name": c[0]}
        for keyword, value in c[1:]:
            kind = keyword.type
            if kind in ("WORD", "QUOTED"):  # on PLACE
                place = self.word([keyword]) if kind == "WORD" else self.quoted([keyword])
                _once(fields, "target", place, keyword, 'an aspect goes in one place: write "on" once',
                      '"on" and one zone or character')
            elif kind == "FREE":
                free = 1 if value is None else _number(value, 1, MAX_NUMBER, "the number of free invokes")
                _once(fields, "free", free, keyword, '"free" is given twice with different numbers; write it once',
                      '"free" once')
            else:
                fields["hidden"] = True
        return AspectCmd, fields

    def aspect_on(self, c):
        return c[0], None

    def aspect_free(self, c):
        return c[0], c[1]

    def aspect_hidden(self, c):
        return c[0], None

    def aspect_remove(self, c):
        return AspectCmd, {"op": "remove", "name": c[0]}

    def aspect_rename(self, c):
        return AspectCmd, {"op": "rename", "name": c[0], "new_name": c[1]}

    def conflict_start(self, c):
        fields: dict[str, Any] = {"op": "start", "participants": tuple(c[0])}
        if c[1] is not None:        # /conflict start Ruth vs Cassandra: two sides, named by who is on them
            fields["participants"] = tuple(c[0]) + tuple(c[1])
            fields["against"] = tuple(c[1])
        for keyword, value in c[2:]:
            if keyword.type == "_FIRST":
                _once(fields, "first", value, keyword, '"first" names two characters; only one acts first',
                      '"first" once')
            else:
                _once(fields, "kind", value, keyword, "a conflict is either physical or mental, not both",
                      "physical or mental, not both")
        return ConflictCmd, fields

    def conflict_first(self, c):
        return c[0], c[1]

    def conflict_kind(self, c):
        return c[0], c[0].lower()

    def conflict_end(self, c):
        return ConflictCmd, {"op": "end"}

    def place(self, c):
        return ConflictCmd, {"op": "place", "character": c[0], "zone": c[1]}

    def npc(self, c):
        name, level = c[0], c[1]
        fields: dict[str, Any] = {"name": name}
        if level is not None:
            keyword, aspects = level
            if keyword.lower() == "major":
                raise _Invalid("/npc add makes minor NPCs; a major NPC comes from a sheet file", keyword,
                               '"minor", or leave it out')
            if aspects:
                fields["aspects"] = tuple(aspects)
        for keyword, value in c[2:]:
            kind = keyword.type
            if kind == "_ASPECT":
                _once(fields, "aspects", tuple(value), keyword, "the aspects are given twice; list them once",
                      "one list of aspects")
            elif kind == "_SKILLS":
                _once(fields, "skills", tuple(value), keyword, "the skills are given twice; list them once",
                      "one list of skills")
            elif kind == "_STRESS":
                _once(fields, "stress", _number(value, 0, MAX_NUMBER, "the number of stress boxes"), keyword,
                      "the stress is given twice; write it once", "one stress amount")
            else:
                _once(fields, "defend_with", tuple(value), keyword,
                      '"defend" is given twice; list the defence skills once', '"defend" once')
        return NpcCmd, fields

    def npc_join(self, c):
        return NpcCmd, {"op": "join", "names": tuple(c[0])}

    def npc_set_defence(self, c):
        return NpcCmd, {"op": "defend", "name": c[0], "defend_with": tuple(c[1])}

    def npc_level(self, c):
        return c[0], (c[1] if len(c) > 1 else None)

    def npc_aspects(self, c):
        return c[0], c[1]

    npc_skills = npc_stress = npc_defend = npc_aspects

    def skill_list(self, c):
        return c

    def skill_rating(self, c):
        return c[0], c[1]


def _dice(token: Token) -> dict[str, Any]:
    count_text, _, sides_text = token.lower().partition("d")
    count = int(count_text) if count_text and len(count_text) <= 6 else (1 if not count_text else 10**6)
    if not 1 <= count <= MAX_DICE:
        raise _Invalid(f"a roll may use 1 to {MAX_DICE} dice, not {_short(count_text, 20)}", token,
                       f"1 to {MAX_DICE} dice with F or {MIN_SIDES} to {MAX_SIDES} sides, e.g. 4dF or 3d6")
    if sides_text == "f":
        sides = "F"
    else:
        n = int(sides_text) if len(sides_text) <= 6 else 10**6
        if not MIN_SIDES <= n <= MAX_SIDES:
            raise _Invalid(f"dice may have {MIN_SIDES} to {MAX_SIDES} sides (or F), not {_short(sides_text, 20)}", token,
                           f"1 to {MAX_DICE} dice with F or {MIN_SIDES} to {MAX_SIDES} sides, e.g. 4dF or 3d6")
        sides = str(n)
    return {"count": count, "sides": sides}


def _sum_bonus(bonuses: list[int]) -> int:
    total = sum(bonuses)
    if not -MAX_NUMBER <= total <= MAX_NUMBER:
        raise _Invalid(f"the modifiers add up to {total:+d}; the limit is ±{MAX_NUMBER}", None,
                       f"modifiers adding up to -{MAX_NUMBER} to +{MAX_NUMBER}")
    return total


# ---------------------------------------------------------------------------- the parser

_GRAMMAR_FILE = "commands.lark"
_parser: Lark | None = None
_lexer: Lark | None = None


def _grammar() -> str:
    return resource_path("grammar", _GRAMMAR_FILE).read_text(encoding="utf-8")


def get_parser() -> Lark:
    """The one LALR parser of the process, built on first use with the builder inlined."""
    global _parser
    if _parser is None:
        _parser = Lark(
            _grammar(),
            parser="lalr",
            lexer="contextual",
            transformer=_Builder(),
            maybe_placeholders=True,
            propagate_positions=False,
        )
    return _parser


class _FastLALR:
    """Lark's own LALR table, per-state lexer regexes and builder callbacks, driven by one
    tight loop instead of Lark's per-call objects (lexer thread, parser state, line counter).

    It accepts exactly what the Lark parser accepts, because everything it uses comes from
    that parser; it only reports *that* a line failed (``None``). The caller then re-parses
    the line with Lark, which raises the detailed error. Parsing valid lines this way is
    about twice as fast as ``Lark.parse`` (see "For developers" in docs/commands.md).
    """

    def __init__(self, lark: Lark) -> None:
        frontend = lark.parser
        parser = frontend.parser.parser
        table = parser.parse_table
        self.start_state = table.start_states["start"]
        self.end_state = table.end_states["start"]
        self.ignore = frozenset(str(name) for name in lark.lexer_conf.ignore)
        # Terminals every rule drops (keywords, "+", "-") need no Token, only a placeholder.
        kept = {str(sym.name) for rule in lark.rules for sym in rule.expansion if sym.is_term and not sym.filter_out}
        self.dropped = frozenset(str(t.name) for t in lark.terminals) - kept
        # state -> terminal -> (next state, None) to shift, (size, (callback, rule name)) to reduce
        self.actions: dict[Any, dict[str, tuple]] = {}
        for state, row in table.states.items():
            self.actions[state] = {
                str(terminal): (arg, None) if action is Shift
                else (len(arg.expansion), (parser.callbacks[arg], str(arg.origin.name)))
                for terminal, (action, arg) in row.items()
            }
        self.scanners = {}
        for state, lexer in frontend.lexer.lexers.items():
            scanner = lexer.scanner
            if lexer.callback or len(scanner._mres) != 1:
                raise TypeError("the grammar needs lexer callbacks; use Lark.parse")
            self.scanners[state] = scanner._mres[0].match

    def parse(self, text: str) -> Any:
        """The builder's result for ``text``, or None where Lark would raise."""
        actions, scanners, ignore, dropped = self.actions, self.scanners, self.ignore, self.dropped
        end_state, new_token = self.end_state, Token
        states = [self.start_state]
        values: list = []
        pos, end = 0, len(text)
        while True:
            if pos < end:
                match = scanners[states[-1]](text, pos)
                if match is None:
                    return None
                kind = match.lastgroup
                start, pos = pos, match.end()
                if kind in ignore:
                    continue
                token = kind if kind in dropped else new_token(kind, match.group(), start, 1, start + 1, 1, pos + 1, pos)
            else:
                kind = token = "$END"
            while True:
                step = actions[states[-1]].get(kind)
                if step is None:
                    return None
                arg, reduce = step
                if reduce is None:
                    states.append(arg)
                    values.append(token)
                    break
                callback, origin = reduce
                if arg:
                    children = values[-arg:]
                    del states[-arg:]
                    del values[-arg:]
                else:
                    children = []
                values.append(callback(children))
                states.append(actions[states[-1]][origin][0])
                if kind == "$END" and states[-1] == end_state:
                    return values[-1]


_fast: _FastLALR | None | bool = None


def _fast_parser() -> _FastLALR | None:
    global _fast
    if _fast is None:
        try:
            _fast = _FastLALR(get_parser())
        except (AttributeError, KeyError, TypeError):  # a Lark whose insides moved: use Lark.parse
            _fast = False
    return _fast or None


def _error_lexer() -> Lark:
    """A basic lexer over the same grammar, used only to explain errors (it sees every
    terminal at once, so it can name the token before the one that failed)."""
    global _lexer
    if _lexer is None:
        _lexer = Lark(_grammar(), parser="lalr", lexer="basic", maybe_placeholders=True)
    return _lexer


def _build(text: str) -> tuple[type[Command], dict[str, Any]]:
    fast = _fast_parser()
    result = fast.parse(text) if fast is not None else None
    if result is None:
        result = get_parser().parse(text)  # raises the detailed error
    return result


def parse_command(text: str, line: int = 1) -> Command:
    """Parse one command line (``/overcome Investigate vs Fair``) into its dataclass.

    ``line`` is the line of the command in the post; surrounding whitespace is ignored and
    columns in errors count from the first character of the stripped line.

    :raises CommandSyntaxError: for anything the grammar cannot read.
    """
    source = text.strip()
    readable = source if source.isascii() else unicodedata.normalize("NFC", source)
    if not (readable.isascii() and readable.isprintable()):
        bad = bad_char(readable, allow_tab=True)
        if bad is not None:
            raise _unsafe_error(bad, readable, line)
    try:
        cls, fields = _build(readable)
    except _Invalid as exc:
        raise _invalid_error(exc, readable, source, line) from None
    except LarkError as exc:
        raise _syntax_error(exc, readable, source, line) from None
    return cls(line=line, source=source, **fields)


def find_commands(text: str) -> list[tuple[int, str]]:
    """The command lines of a post as ``(line number, stripped line)``, numbered from 1.

    A command line's first non-blank character is ``/`` followed at once by a letter, and its
    first word has no other ``/``: ``/roll 4dF`` is a command, while ``/ roll``, ``//``,
    ``/2`` and paths such as ``/usr/bin/env`` are prose. The invisible characters mail
    clients slip in (BOM, zero-width space, word joiner, LRM/RLM, soft hyphen) are removed
    first, so ``\u200b/ro\u00adll`` is ``/roll``.
    """
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_invisible(raw).strip()
        if _is_command_line(stripped):
            found.append((number, stripped))
    return found


def _is_command_line(stripped: str) -> bool:
    if len(stripped) > 1 and stripped[0] == "/" and stripped[1].isalpha():
        return "/" not in stripped.split(None, 1)[0][1:]
    return False


#: characters that look like the slash but are not it
_LOOKALIKE_SLASHES = {"\uff0f": "a fullwidth slash (U+FF0F)", "\u2215": "a division slash (U+2215)",
                      "\u2044": "a fraction slash (U+2044)", "\u29f8": "a big solidus (U+29F8)",
                      "\\": "a backslash"}
_SPACED_COMMAND = re.compile(r"/\s+([^\W\d_]+)")


def find_near_commands(text: str) -> list[tuple[int, str, str]]:
    """Lines that look like a command but are not read as one, as ``(line number, stripped
    line, why)``: a look-alike slash (fullwidth ``／roll``, division slash, ``\\roll``)
    before a letter, or ``/ roll`` (a space after the slash) before a command word. A reply
    names them, so a player never wonders why a command did nothing."""
    found = []
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_invisible(raw).strip()
        if len(stripped) < 2 or _is_command_line(stripped):
            continue
        first = stripped[0]
        if first in _LOOKALIKE_SLASHES and stripped[1].isalpha():
            word = stripped[1:].split(None, 1)[0].lower()
            if first != "\\" or word in COMMAND_NAMES:
                found.append((number, stripped, f"it starts with {_LOOKALIKE_SLASHES[first]}, not /"))
            continue
        spaced = _SPACED_COMMAND.match(stripped)
        if spaced and spaced.group(1).lower() in COMMAND_NAMES:
            found.append((number, stripped, "a space follows the /"))
    return found


def parse_post(text: str) -> list[Command]:
    """Every command of a post, in order. Raises the first error (by line)."""
    return [parse_command(source, number) for number, source in find_commands(text)]


def parse_post_all(text: str) -> tuple[list[Command], list[CommandError]]:
    """Every command that parses and every error, so a reply can list all the problems."""
    commands: list[Command] = []
    errors: list[CommandError] = []
    for number, source in find_commands(text):
        try:
            commands.append(parse_command(source, number))
        except CommandError as exc:
            errors.append(exc)
    return commands, errors


# ---------------------------------------------------------------------------- errors

_NAME_ROLES = {
    "_OVERCOME": "a skill name", "_DEFEND": "a skill name", "_ADVANTAGE": "a skill name",
    "_WITH": "a skill name", "_USING": "a skill name", "_ROLL": "a skill name",
    "PLUS": "a skill name", "_ATTACK": "the name of who you attack",
    "_VS": "an opposing character", "_ON": "a character name", "_AS": "a character name",
    "_SHEET": "a character name", "FP": "a character name", "_SHOW": "a character name",
    "GIVE": "a character name", "TAKE": "a character name",
    "_INVOKE": "an aspect name", "_STUNT": "a stunt name",
}

_PHRASE = {
    "_SLASH": '"/" and a command',
    "DICE": "dice (4dF, 3d6)",
    "DISCOVER": '"discover"',
    "_WITH": '"with" and a skill name',
    "_VS": '"vs" and the opposition (vs Fair, vs +2, vs Ghoul)',
    "_USING": '"using" and a skill name',
    "_NEEDED": '"needed" (as in "if needed")',
    "FOR_STYLE": '"for style" (as in "if needed for style")',
    "OUTCOME": '"tie", "fail" or "style"',
    "TAKING": '"boost" or "cost"',
    "QUOTED_REASON": "a reason in quotes",
}


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _quote(text: str) -> str:
    text = _short(text, 40)
    return text if text[:1] in _QUOTES_OPEN else f'"{text}"'


def _finish_words(phrases: list[str], expected, prev) -> str:
    """The end shared by both "expected ..." builders: the end of the line if it was
    allowed, a fallback, and what the problem came after."""
    if "$END" in expected and "the end of the line" not in phrases:
        phrases.append("the end of the line")
    words = _join(phrases or ["something else"])
    if prev is not None:
        words += f" after {_quote(prev.value)}"
    return words


def _join(phrases: list[str]) -> str:
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " or " + phrases[-1]


def _tokens(text: str) -> list[Token]:
    """The tokens a basic lexer reads from ``text``, up to the first unreadable character."""
    tokens: list[Token] = []
    try:
        for token in _error_lexer().lex(text):
            tokens.append(token)
    except LarkError:
        pass
    return tokens


def example_for(line: str) -> str:
    """The documented working example of the command ``line`` is (of the part written, for
    /fp, /scene, /aspect, /conflict; ``/as NAME ...`` for the GM's): what a refusal that
    gave no example of its own shows (:func:`pbp.play.core.complete_error`)."""
    return _example(_tokens(line))


def _command_word(tokens: list[Token]) -> tuple[Token | None, bool]:
    """The token in command position (after ``/`` or ``/as NAME``) and whether it is after as."""
    if len(tokens) > 1 and tokens[1].type == "_AS":
        return (tokens[3] if len(tokens) > 3 else None), True
    return (tokens[1] if len(tokens) > 1 else None), False


def _command_name(word: Token | None) -> str:
    """The command a command-position token names (``aspects`` -> ``aspect``), or ""."""
    if word is None or word.type not in _COMMAND_TERMINALS:
        return ""
    return _CANONICAL.get(word.type) or word.value.lower()


def _example(tokens: list[Token], pos: int | None = None) -> str:
    """A working example of the command in ``tokens`` (of the part written, for /fp, /scene,
    /aspect and /conflict); ``pos``: the failure, before which the command word must end."""
    word, gm = _command_word(tokens)
    name = _command_name(word) if word is not None and (pos is None or word.end_pos <= pos) else ""
    if not name:
        return EXAMPLES["as"] if gm else EXAMPLES["roll"]
    if gm:
        return _GM_EXAMPLES.get(name, EXAMPLES["as"])
    parts = _PART_EXAMPLES.get(name)
    if parts and len(tokens) > 2 and tokens[2].type in parts:  # /fp give, /scene end...
        return parts[tokens[2].type]
    return EXAMPLES.get(name, EXAMPLES["roll"])


def _expected_words(expected: set[str], before: list[Token], command: str) -> str:
    """Say in words what the parser would have accepted, from its terminal names."""
    prev = before[-1] if before else None
    phrases: list[str] = []

    def add(phrase: str) -> None:
        if phrase not in phrases:
            phrases.append(phrase)

    if expected & {"_ROLL", "_OVERCOME"}:  # the command word, after "/" or "/as NAME"
        if expected & {"_SHEET", "FP", "_AS"}:
            add("a command (" + ", ".join(n for n in COMMAND_NAMES if n != "create") + ")")
        else:
            add("an action (overcome, advantage, attack, defend or roll)")
            add("another command for that character (" + _join(list(_PLAY_ACTOR_NAMES)) + ")")
        if "$END" in expected:
            add("the end of the line")
        words = _join(phrases)
        return words + f" after {_quote(prev.value)}" if prev is not None else words
    if command in _PLAY_COMMANDS:
        return _expected_play(expected, before, command)
    if "_SLASH" in expected:
        add(_PHRASE["_SLASH"])
    if "DICE" in expected:
        add(_PHRASE["DICE"])
    difficulty = "LADDER" in expected
    if expected & {"WORD", "QUOTED"}:
        if "DISCOVER" in expected:  # only the aspect of /advantage competes with "discover"
            role = "an aspect name (in quotes if it has spaces)"
        elif prev is not None and prev.type == "_SPEND":
            role = _PHRASE["QUOTED_REASON"]
        else:
            role = _NAME_ROLES.get(prev.type, "a name") if prev is not None else "a name"
        if difficulty:
            add("a difficulty (a ladder word like Fair or a number like +2) or " + role)
        else:
            add(role)
    elif difficulty:
        add("a difficulty (a ladder word like Fair or a number like +2)")
    if "DISCOVER" in expected:
        add(_PHRASE["DISCOVER"])
    if "INT" in expected and not difficulty:
        if expected & {"_INVOKE", "_STUNT"}:
            pass
        elif prev is not None and prev.type in ("PLUS", "MINUS"):
            add("a number")
        else:
            add("a number" if prev is None or prev.type not in ("GIVE", "TAKE", "WORD", "QUOTED")
                else "an amount")
    if expected & {"_INVOKE", "_STUNT"}:
        add('"invoke", "stunt" or a number')
    for terminal in ("_WITH", "_VS", "_USING"):
        if terminal in expected:
            add(_PHRASE[terminal])
    if "_ON" in expected:
        if command in ("advantage", "create") and not any(t.type == "_ON" for t in before) and "_VS" in expected:
            add('"on" and who gets the aspect')
        add("an outcome choice (on tie boost)")
    if "REROLL" in expected:
        add("an invoke option (reroll, oppose, free, fp, if needed, x2)")
    if "PLUS" in expected and not difficulty:
        if command == "roll":
            add("a modifier (+2, -1)")
        else:
            add('a modifier (+invoke "Aspect", +stunt "Name", +1)')
    for terminal in ("_NEEDED", "OUTCOME", "TAKING"):
        if terminal in expected:
            add(_PHRASE[terminal])
    for terminal, keyword in (("_SHOW", '"show"'), ("_SPEND", '"spend"'), ("GIVE", '"give"'), ("TAKE", '"take"')):
        if terminal in expected:
            add(keyword)
    return _finish_words(phrases, expected, prev)


_PLAY_COMMANDS = frozenset(COMMAND_NAMES[COMMAND_NAMES.index("next"):])

# The name a command wants, by (command, the keyword it follows); a tuple is indexed by how
# many names already follow that keyword (/treat WHO WHAT, /compel WHO ASPECT).
_PLAY_ROLES: dict[tuple[str, str], str | tuple[str, ...]] = {
    ("next", "_NEXT"): "who goes next (a character name)",
    ("move", "_MOVE"): "a zone name", ("move", "_TO"): "a zone name",
    ("invoke", "_INVOKE"): "an aspect name",
    ("absorb", "SEVERITY"): "a name for the consequence (in quotes if it has spaces)",
    ("treat", "_TREAT"): ("who you treat (a character name, or me)", "the consequence to treat"),
    ("treat", "_WITH"): "a skill name", ("treat", "_AS"): "a new name for the consequence",
    ("treat", "_INVOKE"): "an aspect name",
    ("compel", "_COMPEL"): ("who you compel (a character name, or me)", "the aspect to compel"),
    ("veto", "_VETO"): "the aspect of the invoke you veto", ("veto", "REF"): "the aspect of the invoke you veto",
    ("give", "GIVE"): ("the aspect whose free invokes you give", "who gets them (a character name)"),
    ("give", "_TO"): "who gets them (a character name)",
    ("scene", "_START"): "the scene's name", ("scene", "_ZONES"): "a zone name",
    ("scene", "_BORDERS"): "a zone name",
    ("aspect", "_ADD"): "the aspect's name", ("aspect", "_REMOVE"): "the aspect's name",
    ("aspect", "_RENAME"): "the aspect's name", ("aspect", "_TO"): "the aspect's new name",
    ("aspect", "_ON"): "a zone or character name",
    ("conflict", "_START"): "a character who takes part", ("conflict", "_FIRST"): "who acts first",
    ("place", "_PLACE"): "who you place (a character name)", ("place", "_IN"): "a zone name",
    ("npc", "_ADD"): "the name of the new character", ("npc", "LEVEL"): "an aspect name",
    ("npc", "_ASPECT"): "an aspect name", ("npc", "_SKILLS"): "a skill name", ("npc", "_DEFEND"): "a skill name", ("npc", "_JOIN"): "an NPC's name",
}
# What a quoted text is, where only a quoted text is allowed.
_PLAY_TEXTS = {
    "concede": "your terms in quotes", "compel": "what happens, in quotes", "detail": "the story detail in quotes",
    "again": "what has changed, in quotes",
}
# What a list item is, by the keyword that opened the list.
_LIST_ITEMS = {
    "_ZONES": "zone", "_BORDERS": "border (Dock-Office)", "_START": "character", "LEVEL": "aspect",
    "_ASPECT": "aspect", "_SKILLS": "skill and its rating", "_DEFEND": "skill",
}
# Tokens that are part of a name, a list or a number rather than a keyword of the command.
_NOT_ANCHORS = frozenset({"WORD", "QUOTED", "_COMMA", "INT", "LADDER", "PLUS", "MINUS", "_DASH"})


def _expected_play(expected: set[str], before: list[Token], command: str) -> str:
    """:func:`_expected_words` for the play-by-post and GM commands."""
    prev = before[-1] if before else None
    anchor = next((t for t in reversed(before) if t.type not in _NOT_ANCHORS), None)
    anchor_type = anchor.type if anchor is not None else ""
    names = 0
    for token in reversed(before):
        if token is anchor:
            break
        names += token.type in ("WORD", "QUOTED")
    phrases: list[str] = []

    def add(phrase: str) -> None:
        if phrase not in phrases:
            phrases.append(phrase)

    naming = "WORD" in expected
    if naming:
        role = _PLAY_ROLES.get((command, anchor_type), "a name")
        add(role[min(names, len(role) - 1)] if isinstance(role, tuple) else role)
    if "LADDER" in expected:
        add("a rating (a ladder word like Fair or a number like +2)")
    elif "INT" in expected:
        if prev is not None and prev.type in ("PLUS", "MINUS"):
            add("a number")
        elif command == "give":
            add("the number of free invokes (1 if you leave it out)")
        elif anchor_type == "FREE":
            add("the number of free invokes (1 if you leave it out)")
        else:
            add("the number of stress boxes")
    if "_COMMA" in expected:
        add('"," and another ' + _LIST_ITEMS.get(anchor_type, "name"))
    if "MINUS" in expected and "_DASH" in expected:
        add('"-" and the zone it borders')
    if "REROLL" in expected:
        add("an invoke option (reroll, oppose, free, fp, x2)" if command == "invoke"
            else "an invoke option (reroll, oppose, free, fp, if needed, x2)")
    if "REF" in expected:
        if command == "invoke":
            add('"on" and the id of another roll (on #142)' if "_ON" in expected else "a roll id like #142")
        else:
            add("an id like #12")
    if "SEVERITY" in expected:
        add("a consequence (mild, mild2, moderate or severe) and its name")
    if "_STRESS" in expected and command == "absorb":
        add('"stress" and the number of boxes')
    if "COMPEL_KIND" in expected and not naming:
        add('"event" or "decision"')
    if "QUOTED" in expected and not naming:
        add(_PLAY_TEXTS.get(command, "a reason in quotes"))
    if "_WITH" in expected and not naming:
        add('"with" and the NPCs in the scene (with Ghoul)' if command == "scene"
            else '"with" and the skill you treat with')
    if "_AS" in expected:
        add('"as" and a new name for the consequence')
    if "PLUS" in expected and "LADDER" not in expected:
        add('an invoke (+invoke "Aspect")')
    if "_INVOKE" in expected:
        add('"invoke" and an aspect name')
    if "_TO" in expected and not naming:
        add('"to" and the new name')
    if "_START" in expected:
        add('"start" or "end"')
    elif "_END" in expected:
        add('"end"')
    if "_ZONES" in expected:
        add('"zones" and the zones (zones Dock, Office)')
    if "_BORDERS" in expected:
        add('"borders" and the borders (borders Dock-Office)')
    if "_ADD" in expected:
        add('"add", "remove" or "rename"' if "_REMOVE" in expected else '"add"')
    if expected & {"FREE", "HIDDEN"} and command == "aspect":
        add('an option ("on" and a zone or character, "free" and a number, "hidden")')
    if "_FIRST" in expected:
        add('"first" and who acts first')
    if "CONFLICT_KIND" in expected:
        add('"physical" or "mental"')
    if "_IN" in expected:
        add('"in" and a zone name')
    if "LEVEL" in expected and command == "milestone":
        add('"minor" or "major"')
    if "_SKILLS" in expected:
        add("another part (aspects, skills, stress or defend)")
    return _finish_words(phrases, expected, prev)


def _syntax_error(exc: LarkError, text: str, source: str, line: int) -> CommandSyntaxError:
    """Turn any Lark error into one CommandSyntaxError that a player can act on."""
    try:
        return _explain(exc, text, source, line)
    except Exception:  # the explanation must never be the thing that fails
        return CommandSyntaxError(
            "this command could not be read", line=line, column=None, source=source,
            expected="a command such as " + EXAMPLES["overcome"], example=EXAMPLES["overcome"], got=source,
        )


def _expected_terminals(exc: LarkError, fallback: set[str]) -> set[str]:
    """What the parser could really take at the failure. Lark's own list is the LALR row,
    which may hold lookaheads that only fail after a reduction (and lacks the end of the
    line when the lexer failed); replaying each terminal on a copy of the parser is exact."""
    try:
        return {str(k) for k in exc.interactive_parser.accepts()}
    except Exception:  # no parser attached, or it cannot be replayed: the lexer's list will do
        return {str(k) for k in fallback}


def _explain(exc: LarkError, text: str, source: str, line: int) -> CommandSyntaxError:
    tokens = _tokens(text)
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        pos, got = exc.token.start_pos, exc.token.value
        if exc.token.type != "QUOTED":
            got = _RUN.match(text, pos).group()
        expected = _expected_terminals(exc, exc.expected)
    elif isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        run = _RUN.match(text, pos)
        got = run.group() if run else text[pos:pos + 1]
        expected = _expected_terminals(exc, exc.allowed or set())
    elif isinstance(exc, (UnexpectedToken, UnexpectedEOF)):
        pos, got, expected = len(text), "", _expected_terminals(exc, exc.expected)
    else:
        pos, got, expected = 0, text, set()
    got, column = _short(got), pos + 1
    before = [t for t in tokens if t.end_pos is not None and t.end_pos <= pos]
    prev = before[-1] if before else None
    here = next((t for t in tokens if t.start_pos == pos), None)

    if not text.startswith("/"):
        return CommandSyntaxError(
            "a command line starts with /", line=line, column=1, source=source, got=got,
            expected='"/" and a command', example=EXAMPLES["roll"],
        )

    word, gm = _command_word(tokens)
    if word is not None and word.type not in _COMMAND_TERMINALS and word.start_pos <= pos \
            and word.value[:1].isalpha():
        return _unknown_command(word, gm, line, source)

    command = _command_name(word) if word is not None and word.end_pos <= pos else ""
    example = _example(tokens, pos)
    words = _expected_words(expected, before, command)
    other = _command_name(word) if gm and word is not None and word.start_pos == pos else ""
    if other and other not in _ACTION_NAMES:  # /as Ghoul scene end
        return CommandSyntaxError(
            f"/{other} cannot come after /as NAME: write it on its own line, without /as",
            line=line, column=column, source=source, got=got, expected=words,
            example=_example(tokens[:1] + tokens[3:]),
        )

    if isinstance(exc, UnexpectedCharacters) and text[pos] in _QUOTES_OPEN and "QUOTED" in expected:
        return CommandSyntaxError(
            "unterminated quote: a quoted name needs its closing quote on the same line",
            line=line, column=column, source=source, got=_short(text[pos:]),
            expected="a closing quote after the name", example=example,
        )
    if got:
        message = f"expected {words}, got {_quote(got)}"
        if here is not None and here.type == "WORD" and prev is not None and prev.type == "WORD":
            message += f'; if "{prev.value} {here.value}" is one name, put it in quotes'
        elif "$END" in expected:
            message += "; write anything else on its own line, not after the command"
    else:
        message = f"expected {words}, but the line ended"
    return CommandSyntaxError(message, line=line, column=column, source=source, got=got,
                              expected=words, example=example)


# Words that only come after a command word: what they belong to.
_PART_OF = {
    "_START": ("/scene start or /conflict start", EXAMPLES["scene"]),
    "_END": ("/scene end, /session end or /conflict end", "/scene end"),
    "_ADD": ("/aspect add or /npc add", EXAMPLES["aspect"]),
    "_REMOVE": ("/aspect remove", _PART_EXAMPLES["aspect"]["_REMOVE"]),
    "_RENAME": ("/aspect rename", _PART_EXAMPLES["aspect"]["_RENAME"]),
}


def _unknown_command(word: Token, gm: bool, line: int, source: str) -> CommandSyntaxError:
    names = _ACTION_NAMES if gm else COMMAND_NAMES
    typed = _short(word.value, 40)
    match = difflib.get_close_matches(typed.lower(), names, n=1, cutoff=0.6)
    message = f'unknown command "{typed}"'
    if gm:
        message = f'unknown action "{typed}" after /as NAME'
    part = None if gm else _PART_OF.get(word.type)
    if part is not None:
        message += f" — did you mean {part[0]}?"
        example = part[1]
    elif match:
        suggestion = match[0]
        message += f" — did you mean {suggestion if gm else '/' + suggestion}?"
        example = (_GM_EXAMPLES if gm else EXAMPLES)[suggestion]
    else:
        example = EXAMPLES["as"] if gm else EXAMPLES["overcome"]
    expected = ("a command for that character: " + ", ".join(_ACTION_NAMES)) if gm else \
        ("a command: " + ", ".join("/" + n for n in COMMAND_NAMES))
    return CommandSyntaxError(message, line=line, column=word.start_pos + 1, source=source, got=typed,
                              expected=expected, example=example)


def _unsafe_error(bad: str, text: str, line: int) -> CommandSyntaxError:
    """A command line holding a character no name may hold (NUL, a control character, a
    bidi override, a zero-width character): refused before the grammar sees it, so the
    error names the invisible character instead of pointing at nothing. The line is echoed
    with every such character shown as ``?``, so the reply cannot be reordered by them."""
    column = text.index(bad) + 1
    shown = "".join("?" if bad_char(ch, allow_tab=True) is not None else ch for ch in text)
    clean = "".join(ch for ch in text if bad_char(ch, allow_tab=True) is None)
    return CommandSyntaxError(
        f"{describe_char(bad)} at character {column} cannot be part of a command",
        line=line, source=shown, column=column, got=describe_char(bad),
        expected="letters, digits, spaces and punctuation (no control, bidi or zero-width characters)",
        example=_example(_tokens(clean)),
    )


def _invalid_error(exc: _Invalid, text: str, source: str, line: int) -> CommandSyntaxError:
    token = exc.token
    tokens = _tokens(text)
    return CommandSyntaxError(
        exc.message, line=line, source=source,
        column=token.start_pos + 1 if token is not None else None,
        got=_short(token.value) if token is not None else "",
        expected=exc.expected, example=_example(tokens),
    )
