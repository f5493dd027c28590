"""The builder: one method per grammar rule, run inline by the LALR parser (no tree is built).

Each command rule returns ``(command type, fields)``; :func:`pbp.parser.drive.parse_command`
adds the line and the source. Text the grammar accepts but the rules of reading do not (too
many dice, an empty name, a number out of range) raises :class:`Invalid`, which the driver
turns into a CommandSyntaxError pointing at the token.
"""
from __future__ import annotations

import re
from contextvars import ContextVar
from typing import Any

from lark import Token, Transformer


from pbp.commands import (
    Absorb,
    Accept,
    Advantage,
    Again,
    Recap,
    MemberSet,
    MuteScene,
    GoAway,
    ComeBack,
    PassPost,
    PaceOrder,
    Approve,
    AspectAdd,
    AspectRemove,
    AspectRename,
    AspectSet,
    Attack,
    ChallengeEnd,
    Cost,
    ContestEnd,
    ContestSide,
    ContestStart,
    ContestTwist,
    ChallengeStart,
    Choice,
    Compel,
    Concede,
    ConflictEnd,
    ConflictStart,
    Defend,
    Deny,
    Detail,
    Done,
    Mech,
    FpGive,
    FpShow,
    FpSpend,
    FpTake,
    GiveInvoke,
    Help,
    HelpAsk,
    Invoke,
    InvokeAfter,
    InvokeMode,
    Milestone,
    Advance,
    Move,
    Next,
    NpcCmd,
    NpcDefend,
    NpcJoin,
    Opposition,
    Overcome,
    Payment,
    Place,
    Refuse,
    Roll,
    Say,
    Reveal,
    Hold,
    SceneEnd,
    SceneStart,
    SessionEnd,
    Sheet,
    SheetSet,
    TableView,
    ScaleUse,
    SpinUse,
    Threat,
    Task,
    StuntUse,
    Treat,
    Veto,
    Withdraw,
)
from pbp.rules.ladder import LADDER as _RULES_LADDER
from pbp.rules.systems import Words, or_words, vocabulary
from pbp.textsafety import shorten

WORDS: ContextVar[Words | None] = ContextVar("pbp_command_words", default=None)
"""The campaign's system's words while a line is read (``parse_command(words=...)``); None:
the words of every registered system are accepted."""


def words() -> Words:
    """The words the line being read may use: the campaign's system's, else every system's."""
    return WORDS.get() or vocabulary()


def _system_word(token: Token, have: tuple[str, ...], what: str, example: str) -> str:
    """``token``'s word as ``have`` spells it; a word of another system is refused with this
    system's list and an example in its words."""
    key = token.value.casefold()
    found = next((w for w in have if w.casefold() == key), None)
    if found is None:
        given = WORDS.get()
        where = f" in {given.title}" if given is not None and given.title else ""
        raise Invalid(f'"{token.value}" is not {what}{where}: {or_words(have)}', token, or_words(have), example,
                      instead=have[-1])
    return found

LADDER = {name.lower(): value for value, name in _RULES_LADDER.items()}
"""The ladder adjectives a difficulty may name, read from :mod:`pbp.rules.ladder` (the
grammar's LADDER terminal is made from the same words, see :func:`pbp.parser.grammar.grammar`)."""

MAX_DICE = 100
MIN_SIDES, MAX_SIDES = 2, 1000
MAX_NUMBER = 99
"""Difficulties and plain modifiers go from -99 to +99; amounts and ``xN`` from 1 to 99."""
MAX_REF = 999_999_999
"""Ids (``#142``) go from 1 to 999,999,999."""

_SPACES = re.compile(r"\s+")
_ANSWERS = {"accept": Accept, "refuse": Refuse, "approve": Approve, "deny": Deny, "withdraw": Withdraw}


class Invalid(Exception):
    """Raised by the builder for text the grammar accepts but the rules of reading do not
    (too many dice, an empty name); turned into a CommandSyntaxError by the driver."""

    def __init__(self, message: str, token: Token | None, expected: str, example: str = "",
                 instead: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.token = token
        self.expected = expected
        self.example = example          # "": the command's own example
        # The word that fixes the line in place of ``token`` ("" leaves it out): the example
        # is then the author's own line so fixed, with the author's own names.
        self.instead = instead


def _number(token: Token, low: int, high: int, what: str, sign: int = 1, digits: str | None = None) -> int:
    """``sign * digits`` (the token's text unless given) if it lies in ``low..high``; long
    digit strings are refused without converting them."""
    digits = token.value if digits is None else digits
    value = sign * (int(digits) if len(digits) <= 10 else 10**10)
    if not low <= value <= high:
        bounds = f"{low:+d} to {high:+d}" if low < 0 else f"{low} to {high}"
        shown = shorten(f"-{digits}" if sign < 0 else digits, 20)
        raise Invalid(f"{what} must be from {bounds}, not {shown}", token, f"{what} from {bounds}")
    return value


def _clean_name(text: str, token: Token, what: str = "a name") -> str:
    name = _SPACES.sub(" ", text).strip().replace("’", "'")
    if not name:
        raise Invalid(f"{what} in quotes cannot be empty", token, f"{what} between the quotes")
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
        raise Invalid(message, token, expected)
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
        raise Invalid(f'a border joins two zones with "-" (Dock-Office), not just "{shorten(word, 40)}"',
                       token, 'two zones joined by "-", e.g. Dock-Office')
    raise Invalid(f'"{shorten(word, 40)}" can be cut into zones in more than one place; '
                   'put a zone whose name has a hyphen in quotes ("Half-Way"-Office)',
                   token, 'two zones joined by "-", with quotes around a name that has a hyphen')


def _action_fields(skill: str, opposition: Opposition | None, modifiers: list) -> dict[str, Any]:
    """Sort the trailing modifiers of an action into the fields of ActionCommand."""
    fields: dict[str, Any] = {"skill": skill}
    if opposition is not None:
        fields["opposition"] = opposition
    if modifiers:
        invokes, stunts, choices, bonuses = [], [], [], []
        for item in modifiers:
            if type(item) is int:
                bonuses.append(item)
            elif type(item) is Invoke:
                invokes.append(item)
            elif type(item) is StuntUse:
                stunts.append(item)
            elif type(item) is ScaleUse:
                if "scale" in fields and fields["scale"] != item:
                    raise Invalid("an action takes one benefit of scale; name it once", None, "one +scale")
                fields["scale"] = item
            elif type(item) is SpinUse:
                if "spin" in fields and fields["spin"] != item:
                    raise Invalid("an action takes one spin; name it once", None, "one +spin")
                fields["spin"] = item
            else:
                choices.append(item)
        fields.update(invokes=tuple(invokes), stunts=tuple(stunts), choices=tuple(choices),
                      modifier=_sum_bonus(bonuses))
    return fields


def _make_invoke(aspect: str, options: list[Token], after_roll: bool = False) -> Invoke:
    """An Invoke from its aspect and option tokens (``reroll``, ``free``, ``x2``, ``if needed``)."""
    mode = payment = times = None
    if_needed = for_style = False
    for option in options:
        kind = option.type
        if kind == "IF":
            if after_roll:
                raise Invalid('"if needed" only makes sense before the dice, on a +invoke written with the '
                               "action; after the roll you can see whether the invoke is needed",
                               option, 'an invoke option (reroll, oppose, free, fp, x2), without "if needed"')
            if_needed = True
        elif kind == "FOR_STYLE":
            if not if_needed or for_style:
                raise Invalid('"for style" goes right after "if needed" ("if needed for style")', option,
                              'if needed for style')
            for_style = True
        elif kind == "TIMES":
            n = _number(option, 1, MAX_NUMBER, "the number of invokes", digits=option.value[1:])
            if times is not None and times != n:
                raise Invalid(f"an invoke has one count, not x{times} and x{n}", option, "one xN per invoke")
            times = n
        elif kind in ("REROLL", "OPPOSE"):
            new = InvokeMode(option.lower())
            if mode is not None and mode != new:
                raise Invalid("an invoke is either reroll or oppose, not both", option,
                               "reroll or oppose, not both")
            mode = new
        else:
            new = Payment(option.lower())
            if payment is not None and payment != new:
                raise Invalid("an invoke is paid either free or fp, not both", option,
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


class Builder(Transformer):
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
        fields = _action_fields(c[0], c[1], c[2:-1])
        if c[-1] is not None:
            fields["secrecy"] = str(c[-1]).lower()
        return Overcome, fields

    def defend(self, c):
        return Defend, _action_fields(c[0], c[1], c[2:])

    def attack(self, c):
        fields = _action_fields(c[1], None, c[2:])
        fields["target"] = c[0]
        return Attack, fields

    def advantage(self, c):
        skill, aspect, target, opposition = c[0], c[1], c[2], c[3]
        fields = _action_fields(skill, opposition, c[4:-1])
        if c[-1] is not None:
            fields["secrecy"] = str(c[-1]).lower()
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

    def scale(self, c):
        take = c[0].value.casefold() if c[0] is not None else "before"
        return ScaleUse(take)

    def spin(self, c):
        return SpinUse(_ref(c[0]) if c[0] is not None else 0)

    def choice(self, c):
        outcome = c[0].lower()
        return Choice(outcome="fail" if outcome == "failure" else outcome, take=c[1].lower())

    # -- dice
    def roll(self, c):
        fields = dict(c[1] or {})
        if c[0] is not None:
            fields["secrecy"] = str(c[0]).lower()
        return Roll, fields

    def dice_roll(self, c):
        fields = _dice(c[0])
        fields["modifier"] = _sum_bonus(c[1:])
        fields["dice_written"] = True
        return fields

    def dice_skill_roll(self, c):
        fields = _dice(c[0])
        fields["dice_written"] = True
        fields["skill"] = c[1]
        fields["modifier"] = _sum_bonus(c[2:])
        return fields

    def skill_roll(self, c):
        return {"skill": c[0], "modifier": _sum_bonus(c[1:])}

    # -- out of the action
    def sheet(self, c):
        return Sheet, {"character": c[0]}

    def sheet_set(self, c):
        return SheetSet, {"character": c[0], "values": _settings(c[1:])}

    def table_view(self, c):
        return TableView, {}

    def fp_show(self, c):
        return FpShow, {"character": c[1]}

    def fp_spend(self, c):
        return FpSpend, {"reason": _text(c[1], "a name")}

    def fp_move(self, c):
        verb, character, amount = c[1], c[2], c[3]
        fields = {"character": character}
        if amount is not None:
            fields["amount"] = _number(amount, 1, MAX_NUMBER, "the number of fate points")
        return (FpGive if verb.type == "GIVE" else FpTake), fields

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
                fields["unit"] = str(keyword).casefold()
        fields["consequences"] = tuple(consequences)
        return Absorb, fields

    def absorb_stress(self, c):
        return [c[0], c[1]]  # a list: consequences are tuples

    def consequence(self, c):
        have = words().harm_words
        what = "a consequence or a condition" if words().conditions else "a consequence"
        return _system_word(c[0], have, what, f'/absorb {have[0]} "Nasty Bite"'), c[1]

    def concede(self, c):
        return Concede, {"terms": _text(c[0], "the terms")}

    def mech(self, c):
        return Mech, {"boarding": c[0].value.casefold() == "in"}

    def treat(self, c):
        patient, consequence, skill, rename = c[:4]
        return Treat, {"patient": patient, "consequence": consequence, "skill": skill,
                       "rename": rename or "", "invokes": tuple(c[4:])}

    def no_consequence(self, c):
        raise Invalid('the consequence is missing: name who you treat, then the consequence, before "with"', c[0],
                       'who you treat (a character name, or me) and the consequence, before "with"')

    def no_aspect(self, c):
        raise Invalid(f'the aspect is missing: name the aspect you compel before "{c[0]}"', c[0],
                       f'the aspect to compel, before "{c[0]}"')

    def no_given_aspect(self, c):
        raise Invalid('the aspect is missing: name the aspect whose free invokes you give before "to"', c[0],
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

    def help(self, c):
        fields: dict[str, Any] = {"ally": c[0]}
        if c[1] is not None:
            fields["roll_id"] = _ref(c[1])
        return Help, fields

    def help_ask(self, c):
        return HelpAsk, {"helpers": tuple(c[0])}

    def answer(self, c):
        verb, ref, reason = c
        fields: dict[str, Any] = {"reason": _text(reason, "a reason")}
        if ref is not None:
            fields["ref"] = _ref(ref)
        return _ANSWERS[verb.lower()], fields

    def again(self, c):
        return Again, {"changed": _text(c[0], "what has changed")}

    def recap(self, c):
        return Recap, {"note": _text(c[0], "the GM's note")}

    def settings(self, c):
        return MemberSet, {"values": _settings(c)}

    def mute(self, c):
        return MuteScene, {"scene": c[0], "on": True}

    def unmute(self, c):
        return MuteScene, {"scene": c[0], "on": False}

    def away(self, c):
        who, date, ally, note = c
        return GoAway, {"who": who, "until": str(date), "ally": ally, "note": _text(note, "a note")}

    def back(self, c):
        return ComeBack, {"who": c[0]}

    def pace_order(self, c):
        return PaceOrder, {"order": tuple(c[0])}

    def pace_round(self, c):
        return PaceOrder, {"order": ()}

    def pass_post(self, c):
        return PassPost, {"reason": _text(c[0], "a reason")}

    def veto(self, c):
        ref, aspect, reason = c
        fields: dict[str, Any] = {"aspect": aspect, "reason": _text(reason, "a reason")}
        if ref is not None:
            fields["ref"] = _ref(ref)
        return Veto, fields

    def cost(self, c):
        ref, level, text = c
        return Cost, {"ref": _ref(ref), "severity": level.value.casefold(), "text": _text(text, "the cost")}

    # -- GM: scenes, aspects, conflicts, NPCs
    def scene_start(self, c):
        name, zones, borders, npcs = c
        zones = zones or []
        pairs = tuple(_split_border(b.token, zones) if type(b) is _Joined else b for b in borders or ())
        return SceneStart, {"name": name, "zones": tuple(zones), "borders": pairs, "npcs": tuple(npcs or ())}

    def scene_end(self, c):
        return SceneEnd, {}

    def reveal(self, c):
        return Reveal, ({"ref": _ref(c[0])} if c and c[0] is not None else {})

    def hold(self, c):
        return Hold, {"ref": _ref(c[0])}

    def session_end(self, c):
        return SessionEnd, {}

    def milestone(self, c):
        return Milestone, {"level": c[0].lower(), "power": c[1] is not None}

    def advance(self, c):
        return Advance, {"values": _settings(c)}

    def border_list(self, c):
        return c

    def border(self, c):
        return c[0], c[1]

    def joined_border(self, c):
        return _Joined(c[0])

    def name_list(self, c):
        return c

    def aspect_add(self, c):
        fields: dict[str, Any] = {"name": c[0]}
        for keyword, value in c[1:]:
            if keyword == "scale":          # scale LEVEL
                level = self.word([value]) if value.type == "WORD" else self.quoted([value])
                _once(fields, "scale", level, value, 'an aspect carries one level of scale: write "scale" once',
                      '"scale" once')
                continue
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
        return AspectAdd, fields

    def aspect_on(self, c):
        return c[0], None

    def aspect_free(self, c):
        return c[0], c[1]

    def aspect_hidden(self, c):
        return c[0], None

    def aspect_scale(self, c):
        return "scale", c[0]

    def aspect_set(self, c):
        return AspectSet, {"name": c[0], "values": _settings(c[1:])}

    def aspect_remove(self, c):
        return AspectRemove, {"name": c[0]}

    def aspect_rename(self, c):
        return AspectRename, {"name": c[0], "new_name": c[1]}

    def conflict_start(self, c):
        fields: dict[str, Any] = {"participants": tuple(c[0])}
        if c[1] is not None:        # /conflict start Ruth vs Cassandra: two sides, named by who is on them
            fields["participants"] = tuple(c[0]) + tuple(c[1])
            fields["against"] = tuple(c[1])
        for keyword, value in c[2:]:
            if keyword.type == "_FIRST":
                _once(fields, "first", value, keyword, '"first" names two characters; only one acts first',
                      '"first" once')
            else:
                tracks = or_words(words().tracks or ("one kind",))
                _once(fields, "kind", value, keyword, f"a conflict is either {tracks}, not both",
                      f"{tracks}, not both")
        return ConflictStart, fields

    def conflict_first(self, c):
        return c[0], c[1]

    def conflict_kind(self, c):
        have = words().tracks
        if not have:    # a system of one track: its conflicts have no kind to name
            given = WORDS.get()
            raise Invalid(f'a conflict in {given.title if given is not None else "this system"} has no kind to name: '
                          f'leave "{c[0].value}" out', c[0], "the end of the line", "/conflict start Ruth, Ghoul first Ruth",
                          instead="")
        return c[0], _system_word(c[0], have, "a kind of conflict", f"/conflict start Ruth, Ghoul first Ruth {have[-1]}")

    def conflict_end(self, c):
        return ConflictEnd, {}

    def challenge_start(self, c):
        fields: dict[str, Any] = {"name": c[0], "tasks": tuple(t for t in c[1:] if isinstance(t, Task))}
        for part in c[1:]:
            if isinstance(part, Task):
                continue
            keyword, value = part
            if keyword == "for":
                fields["who"] = tuple(value)
            else:
                fields["hours"] = _number(value, 1, 24 * 366, "the hours until the deadline")
        return ChallengeStart, fields

    def task_passive(self, c):
        return Task(skill=c[0], rating=c[1])

    def task_active(self, c):
        return Task(skill=c[0], opponent=c[1])

    def challenge_for(self, c):
        return "for", c[0]

    def challenge_hours(self, c):
        return "hours", c[0]

    def challenge_end(self, c):
        return ChallengeEnd, {}

    def contest_start(self, c):
        fields: dict[str, Any] = {"name": c[0], "sides": tuple(p for p in c[1:] if isinstance(p, ContestSide))}
        threats = []
        for part in c[1:]:
            if isinstance(part, ContestSide):
                continue
            if isinstance(part, Threat):
                threats.append(part)
                continue
            keyword, value = part
            if keyword == "victories":
                fields["victories"] = _number(value, 1, 99, "the victories that win the contest")
            elif keyword == "hours":
                fields["hours"] = _number(value, 1, 24 * 366, "the hours until each exchange's deadline")
            else:
                fields["difficulty"] = value
        fields["threats"] = tuple(threats)
        return ContestStart, fields

    def contest_side(self, c):
        return ContestSide(members=tuple(c[0]), intent=_text(c[1], "an intent"))

    def threat_static(self, c):
        return Threat(name=c[0], rating=c[1])

    def threat_attack(self, c):
        return Threat(name=c[0], skill=c[1])

    def contest_victories(self, c):
        return "victories", c[0]

    def contest_difficulty(self, c):
        return "difficulty", c[0]

    def contest_hours(self, c):
        return "hours", c[0]

    def contest_twist(self, c):
        return ContestTwist, {"aspect": c[0]}

    def contest_end(self, c):
        return ContestEnd, {}

    def place(self, c):
        return Place, {"character": c[0], "zone": c[1], "beside": c[2]}

    def npc(self, c):
        name, level = c[0], c[1]
        fields: dict[str, Any] = {"name": name}
        if level is not None:
            keyword, aspects = level
            if keyword.lower() == "major":
                raise Invalid("/npc add makes minor NPCs; a major NPC comes from a sheet file", keyword,
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
        return NpcJoin, {"names": tuple(c[0])}

    def npc_set_defence(self, c):
        return NpcDefend, {"name": c[0], "defend_with": tuple(c[1])}

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
        raise Invalid(f"a roll may use 1 to {MAX_DICE} dice, not {shorten(count_text, 20)}", token,
                       f"1 to {MAX_DICE} dice with F or {MIN_SIDES} to {MAX_SIDES} sides, e.g. 4dF or 3d6")
    if sides_text == "f":
        sides = "F"
    else:
        n = int(sides_text) if len(sides_text) <= 6 else 10**6
        if not MIN_SIDES <= n <= MAX_SIDES:
            raise Invalid(f"dice may have {MIN_SIDES} to {MAX_SIDES} sides (or F), not {shorten(sides_text, 20)}", token,
                           f"1 to {MAX_DICE} dice with F or {MIN_SIDES} to {MAX_SIDES} sides, e.g. 4dF or 3d6")
        sides = str(n)
    return {"count": count, "sides": sides}


def _sum_bonus(bonuses: list[int]) -> int:
    """The plain modifiers added up, refused beyond ±MAX_NUMBER (of an action or a roll)."""
    total = sum(bonuses)
    if not -MAX_NUMBER <= total <= MAX_NUMBER:
        raise Invalid(f"the modifiers add up to {total:+d}; the limit is ±{MAX_NUMBER}", None,
                       f"modifiers adding up to -{MAX_NUMBER} to +{MAX_NUMBER}")
    return total


def _settings(tokens) -> tuple[str, ...]:
    """SETTING tokens as "key=value" (the quotes of a two-word key or a spaced value dropped)."""
    values = []
    for token in tokens:
        text = str(token)
        if text[:1] in '"“' and text[-1:] in '"”':      # the whole setting quoted, as a shell writes it
            text = text[1:-1]
        key, _, value = text.partition("=")
        key = key.replace('"', "")
        if value.startswith('"') and value.endswith('"') and len(value) >= 2:
            value = value[1:-1]
        values.append(f"{key}={value}")
    return tuple(values)
