"""Applying one post's commands to a campaign: the :class:`Post` every handler receives,
and the registries that map command types to handlers and collect deadline jobs.

Handlers live in the modules of this package by subject (``basic``, ``conflict``,
``economy``); each registers itself with :func:`handles`. A handler may change the table
(rules state) and the play state, and returns a result for the reply: an
``ActionResult`` from the rules engine or a :class:`NoteResult`. Everything a handler
needs to say beyond its result goes through :meth:`Post.ask` (a reaction wanted from
someone, with a deadline) and :meth:`Post.tell` (a private mail).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Callable

from pbp import commands as c
from pbp.play.sequence import (
    AFTER_ACTION, AFTER_POST, BEFORE_ACTION, BONUS_HELD, DEADLINE_JOBS, OUT_OF_TURN, PREPARE_ACTION, STATUS,
    TURN_HOLDER, step_name
)
from pbp.errors import CommandError, NotAllowedError, UnknownNameError
from pbp.i18n import CommandLine, Msg
from pbp.play.people import quiet_end
from pbp.play.state import PlayState
from pbp.rules.names import GM, ambiguous, example_with, quote
from pbp.rules.state import Character, Table
from pbp.rules.system import System


@dataclass(frozen=True)
class Author:
    """The sender of a post as a member of its campaign."""

    email: str
    role: str  # "player" | "gm"

    @property
    def is_gm(self) -> bool:
        return self.role == "gm"


@dataclass
class NoteResult:
    """A command that rolls nothing: a sheet shown, a point spent, a turn handed on...

    ``text`` and ``sheet`` are the whole truth (the GM's view, and the JSON). Where the
    table may know less, ``public_text`` and ``public_sheet`` are what the table's mail
    shows instead, and a ``gm_only`` result is not in the table's mail at all: the GM is
    told alone (see :mod:`pbp.views`)."""

    command: str
    actor: str
    action: str
    text: str = ""
    sheet: dict | None = None
    changes: list = field(default_factory=list)
    effects: list = field(default_factory=list)
    public_text: str | None = None
    public_sheet: dict | None = None
    gm_only: bool = False

    def to_dict(self) -> dict:
        effects = [{"kind": e.kind, "text": e.text, **({"data": e.data} if e.data else {})} for e in self.effects]
        if self.text and not effects:
            effects = [{"kind": self.action, "text": self.text}]
        return {
            "command": self.command, "actor": self.actor, "action": self.action, "skill": None, "dice": None,
            "effort": None, "opposition": None, "shifts": None, "outcome": None, "effects": effects,
            "changes": [{"what": ch.what, "subject": ch.subject, "before": ch.before, "after": ch.after}
                        for ch in self.changes],
            **({"sheet": self.sheet} if self.sheet is not None else {}),
            **({"gm_only": True} if self.gm_only else {}),
        }


@dataclass(frozen=True)
class Ask:
    """A reaction wanted from ``who`` (a character, or GM) by ``deadline``: shown in the
    reply, and the reply's Message-ID is remembered for ``ref`` so a bare answer in reply to
    it ("/accept", "/defend Athletics") is tied to the right thing."""

    ref: str                  # "pending:3", "compel:12", "detail:4", "roll:142"
    who: str
    text: str
    deadline: datetime | None = None
    subject: str = ""         # e.g. "Charles, defend by Tue 18:00 UTC"


@dataclass(frozen=True)
class Tell:
    """A mail of its own, to some members only (the GM's approval requests...)."""

    to: tuple[str, ...]       # character names, or GM
    subject: str
    text: str
    refs: tuple[str, ...] = ()


@dataclass
class Post:
    """One post (or one deadline round) being applied to one campaign."""

    campaign: object
    table: Table
    play: PlayState
    author: Author
    now: datetime
    dice: object
    system: System
    settings: object                         # pbp.config.Config
    replied_to: str | None = None            # Message-ID the post answers (threading)
    post_id: str | None = None               # the post's own id (a scene it opens is found by it)
    scene_of_post: object = None             # the scene the post acted in last (pbp.play.parallel.readers)
    turn_before: tuple = ()                  # whose turn it was before the post (pbp.play.mailing)
    gms: tuple = ()                          # the GMs' addresses (a deadline round: whose quiet hours are the GM's)
    asks: list[Ask] = field(default_factory=list)
    tells: list[Tell] = field(default_factory=list)
    closed_refs: list[str] = field(default_factory=list)
    snapshot: object = None                  # the table as loaded (pbp.store.repo.Snapshot)
    names_at_start: tuple = ()               # (name, hidden, owner) of each aspect as loaded
    ledger: dict = field(default_factory=dict)          # id(result) -> (roll id, short hash), for the reply
    command: c.Command | None = None                    # the command being applied (for error examples)
    follow: list = field(default_factory=list)          # results a command set off (a contest threat's roll)
    seeds: object = None            # the scene's committed dice (pbp.store.seeds.SceneDice); None: fixed dice
    secret_rolls: dict = field(default_factory=dict)    # roll id -> what the table reads instead (pbp.play.secrets)
    shown_results: list = field(default_factory=list)   # the results as the table's mail showed them (pbp.views), as dicts

    # -- quiet hours
    def quiet(self, who: str) -> bool:
        """Whether a reminder to ``who`` (a character, whose player reads it, or GM: every GM;
        an NPC's is the GM's) must wait for their quiet hours to end (:func:`pbp.play.people.quiet_until`);
        if so, the deadline job is due again when they end (``PlayState.reminders_wait``)."""
        ch = self.table.character(who) if who != GM else None
        members = [ch.player.lower()] if ch is not None and ch.player else list(self.gms)
        end = quiet_end([self.play.people.get(m) for m in members], self.now)
        if end is None:
            return False
        play = self.play
        play.reminders_held = self.now
        play.reminders_wait = end if play.reminders_wait is None else min(play.reminders_wait, end)
        return True

    # -- who is acting
    def character(self, name: str | None, cmd: c.Command, *, for_reading: bool = False) -> Character:
        """The character a command acts as: the one named (``/as``, ``/sheet NAME``) if the
        author may use it, else the author's own PC."""
        if name and name.lower() != "me":
            ch = self.find(name)
            if for_reading or self.author.is_gm or (ch.player or "").lower() == self.author.email \
                    or self.stands_in(ch):
                return ch
            raise NotAllowedError(
                f"{ch.name} is not your character", expected="a command for your own character",
                example=_without_as(cmd.source) or "/sheet")
        own = self.own_characters()
        if len(own) == 1:
            return own[0]
        if self.author.is_gm and not own:
            raise NotAllowedError("the GM acts through a character: say which one with /as "
                                  "(a plain /roll of dice needs none)",
                                  expected="/as NAME before the command",
                                  example=f"/as {self.npc_example()} {_as_tail(cmd.source)}")
        if not own:
            raise NotAllowedError("you have no character in this campaign yet",
                                  expected="a character sheet imported by the GM (pbp character import)",
                                  example="ask the GM to run: pbp character import ruth.toml --campaign SLUG")
        raise NotAllowedError("you play several characters: say which one with /as",
                              expected="/as NAME before the command",
                              example=f"/as {quote(own[0].name)} overcome Athletics vs Fair")

    def own_characters(self) -> list[Character]:
        """The characters the author plays."""
        return [x for x in self.table.characters.values() if (x.player or "").lower() == self.author.email]

    def find(self, name: str, source: str | None = None) -> Character:
        """The character a typed name means (full name, alias or unique short name; "me":
        the author's own). The error's example is the command that failed (``source``, by
        default the command being applied) with a name that works in place of the wrong one."""
        if name.strip().lower() == "me" and self.table.exact_character(name) is None:
            return self.character(None, self.command or c.Command(line=0, source="/sheet"))
        source = self.command.source if source is None and self.command is not None else (source or "")
        ch = self.table.character(name)
        if ch is None:
            several = self.table.characters_named(name)
            if len(several) > 1:
                raise ambiguous("character", name, [x.name for x in several], source=source)
            names = sorted(x.name for x in self.table.characters.values())
            close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
            fallback = f"/sheet {quote(names[0])}" if names else "/sheet"
            raise UnknownNameError(
                f'no character called "{name}" in this campaign', kind="character", name=name,
                suggestions=close, source=source,
                expected="a character of this campaign: " + ", ".join(names),
                example=example_with(source, name, close or self._stand_in(source), fallback))
        return ch

    def _stand_in(self, source: str) -> list[str]:
        """A character to name in an example in place of one that does not exist: one the
        line does not name yet and the author does not play (so it is not the author on both
        sides), of the other side first (an NPC for a player, a PC for the GM), hidden
        nothing (every character's name is the table's)."""
        written = source.casefold()
        mine = {x.name for x in self.table.characters.values()
                if x.player and x.player.lower() == self.author.email}
        others = [x for x in self.table.characters.values()
                  if x.name not in mine and x.name.casefold() not in written]
        rank = sorted(others, key=lambda x: (bool(x.player) != self.author.is_gm, x.kind == "minor", x.name))
        return [x.name for x in rank[:1]] or sorted(x.name for x in self.table.characters.values())[:1]

    def npc_example(self) -> str:
        """A name for the GM's ``/as`` examples: an NPC of the table (its first major one),
        else any character, else the sample's."""
        npcs = sorted((x for x in self.table.characters.values() if not x.player),
                      key=lambda x: (x.kind == "minor", x.name))
        chosen = npcs or sorted(self.table.characters.values(), key=lambda x: x.name)
        return quote(chosen[0].name) if chosen else "Ghoul"

    def full_name(self, typed: str) -> str:
        """A typed character name in full when it means one character (``/next Mira``);
        as typed when it means none, for the caller's own refusal; ambiguous: refused."""
        ch = self.table.character(typed)
        if ch is not None:
            return ch.name
        several = self.table.characters_named(typed)
        if len(several) > 1:
            raise ambiguous("character", typed, [x.name for x in several],
                            source=self.command.source if self.command is not None else "")
        return typed

    def speaker(self) -> str:
        """The name this author answers as: GM, or their one character."""
        if self.author.is_gm:
            return GM
        own = [x.name for x in self.table.characters.values() if (x.player or "").lower() == self.author.email]
        return own[0] if own else self.author.email

    def require_gm(self, what: str, example: str) -> None:
        if not self.author.is_gm:
            said = CommandLine(what) if what.startswith("/") else Msg(what)
            raise NotAllowedError(Msg("{what} is for the GM", what=said), expected=Msg("a GM address"),
                                  example=example)

    def controls(self, name: str) -> bool:
        ch = self.table.character(name)
        if ch is None:
            return name == GM and self.author.is_gm
        return self.author.is_gm if not ch.player else (ch.player.lower() == self.author.email or self.stands_in(ch))

    def stands_in(self, ch: Character) -> bool:
        """Whether the author may answer for ``ch`` because its player is away and named the
        author's character their ally, in a campaign whose ``away_policy`` is ``ally``
        (:mod:`pbp.play.away`)."""
        if not self.play.away or (getattr(self.campaign, "settings", None) or {}).get("away_policy") != "ally":
            return False
        mine = {x.name for x in self.own_characters()}
        player = (ch.player or "").lower()
        return any(a.member == player and a.ally in mine and a.since <= self.now < a.until for a in self.play.away)

    # -- settings and time
    def flag(self, name: str) -> bool:
        """A yes/no setting (``show_npc_skills``): the campaign's own, else the config's."""
        return campaign_flag(self.campaign, self.settings, name)

    def hours(self, name: str) -> float:
        """A timing setting (``reaction_deadline_hours``, ``invoke_window_hours``,
        ``reminder_hours``): the campaign's own (``pbp campaign set``), else the config's."""
        return campaign_hours(self.campaign, self.settings, name)

    def deadline(self) -> datetime:
        return self.now + timedelta(hours=self.hours("reaction_deadline_hours"))

    # -- talking
    def ask(self, ask: Ask) -> None:
        self.asks.append(ask)

    def tell(self, tell: Tell) -> None:
        self.tells.append(tell)

    def thread_refs(self) -> list[str]:
        """What the mail this post replies to was about ("compel:12", ...), newest last."""
        return list(self.play.threads.get(self.replied_to or "", []))

    def close_ref(self, ref: str) -> None:
        self.closed_refs.append(ref)
        self.play.forget_thread_refs(ref)


TIMING = ("reaction_deadline_hours", "invoke_window_hours", "reminder_hours", "post_deadline_hours", "stall_hours")


def campaign_hours(campaign, config, name: str) -> float:
    own = (getattr(campaign, "settings", None) or {}).get(name)
    return float(own) if own is not None else float(getattr(config, name))


def campaign_flag(campaign, config, name: str) -> bool:
    """A yes/no setting (``show_npc_skills``, ``free_bonuses``): the campaign's own, else the config's."""
    own = (getattr(campaign, "settings", None) or {}).get(name)
    return bool(own) if own is not None else bool(getattr(config, name, False))


def _without_as(source: str) -> str:
    """``/as NAME overcome ...`` as the author's own command: ``/overcome ...``."""
    match = re.match(r'/as\s+("[^"]*"|\S+)\s+(\S.*)', source.strip(), flags=re.IGNORECASE)
    return "/" + match.group(2) if match else ""


def _as_tail(source: str) -> str:
    """The command after ``/as NAME``: the line as written without its "/" (``attack Ruth
    with Fight``), or a plain roll when there is none."""
    tail = source.strip().lstrip("/").strip()
    return tail if tail else "roll"


Handler = Callable[[Post, c.Command], object]
HANDLERS: dict[type, Handler] = {}


def status_lines(post: Post) -> list[str]:
    return [line for fn in STATUS for line in fn(post)]


def finish_post(post: Post) -> None:
    """The ``after_post`` steps: the post (or deadline round) has applied and its rolls are
    recorded; what depends on the whole post happens now (the pipeline calls this)."""
    for step in AFTER_POST:
        step(post)


def number_roll(post: Post, result):
    """A roll takes its id when it is made: the next number of the campaign's one counter
    (:meth:`pbp.play.state.PlayState.new_id`), carried on the result, so everything that
    keeps the roll (an open roll, a challenge's task, a held spin, a pending defence) reads
    it there, and the ledger records the roll under it. The action step below numbers every
    action; a re-run (:func:`pbp.play.invoking.revise`) and a roll made outside an action
    (a contest threat's attack) call it too. A roll discarded with its command (a held
    action dropped, a post refused) gives its number back with the play state."""
    result.roll_id = post.play.new_id()
    claim = getattr(post.dice, "claim", None)    # committed dice (pbp.rules.dice.CommittedDice) mark their throws
    if claim is not None:
        claim(result.roll_id)
    return result


def resolve_action(post: Post, cmd, actor: str):
    """Resolve an action or roll through the rules engine, with the steps of
    :data:`SEQUENCE` around it. Every handler that rolls for an action goes through here:
    ``prepare_action`` completes the command from the play state (the helpers waiting for
    the actor, a challenge's task), ``before_action`` runs just before the dice (the rolls
    this action ends close), then the rules engine (:func:`pbp.rules.actions.resolve`),
    whose roll takes its id at once (:func:`number_roll`), then ``after_action`` (the roll
    stays open for invokes after the dice...), which reads that id on the result.

    A plain ``+N`` on an action is bounded for everyone; a player's (unless the campaign has
    ``free_bonuses``) is held back: the action rolls without it, stays open like any roll,
    and the GM's approval re-runs it with the bonus (:mod:`pbp.play.bonuses`)."""
    from pbp.rules.actions import check_plain_bonus, resolve
    from pbp.rules.fate_points import GMPool

    if isinstance(cmd, c.ActionCommand):      # a plain /roll decides nothing: its +N is just arithmetic
        check_plain_bonus(cmd.modifier, cmd.source)
    held = held_bonus(post, cmd)
    if held:
        cmd = replace(cmd, modifier=cmd.modifier - held)
    for prepare in PREPARE_ACTION.of(post.system):
        cmd = prepare(post, cmd, actor)
    for hook in BEFORE_ACTION.of(post.system):
        hook(post, cmd, actor)
    result = number_roll(post, resolve(cmd, post.table, post.dice, actor, post.system,
                                       payer=GMPool(post.play.ledger)))
    for hook in AFTER_ACTION.of(post.system):
        hook(post, cmd, actor, result)
    if held:
        for step in BONUS_HELD:
            step(post, cmd, actor, result, held)
    return result


def held_bonus(post: Post, cmd) -> int:
    """The part of ``cmd``'s plain bonus that waits for the GM: a player's positive ``+N``
    on an action, unless the campaign allows free bonuses. Penalties a player takes on
    their own roll apply at once."""
    if post.author.is_gm or not isinstance(cmd, c.ActionCommand) or cmd.modifier <= 0:
        return 0
    return 0 if post.flag("free_bonuses") else cmd.modifier


def run_deadline_jobs(post: Post) -> list:
    """Every deadline job; then an action held for whoever the turn passed to runs."""
    post.play.reminders_held = post.play.reminders_wait = None
    results = [result for job in DEADLINE_JOBS for result in job(post)]
    return results + _turn_holder(post) + _followed(post)


def _turn_holder(post: Post) -> list:
    """The ``turn_holder`` steps: what waits for whoever holds the turn now."""
    return [result for step in TURN_HOLDER for result in step(post, apply_command)]


def _out_of_turn(post: Post, cmd: c.Command, exc: CommandError):
    """The first ``out_of_turn`` step's result for an action refused out of turn, or None."""
    for step in OUT_OF_TURN:
        result = step(post, cmd, exc)
        if result is not None:
            return result
    return None


def _followed(post: Post) -> list:
    """The results commands set off (``Post.follow``), once."""
    out, post.follow = post.follow, []
    return out


def handles(*types: type) -> Callable[[Handler], Handler]:
    """Register the handler of command types; one type has one handler (a second is an error)."""
    def register(fn: Handler) -> Handler:
        for t in types:
            if t in HANDLERS:
                raise ValueError(f"{t.__name__} already has a handler: {step_name(HANDLERS[t])}")
            HANDLERS[t] = fn
        return fn
    return register


@dataclass(frozen=True)
class Situation:
    """What the few post-dependent refusals rest on (``CommandError.depends_on``)."""

    conflict: bool
    turn: tuple | None           # (exchange, current, phase) while a conflict runs
    out: frozenset               # casefolded names out of the fight (taken out, conceded)


def situation(post: Post) -> Situation:
    conflict = post.play.conflict
    live = conflict is not None and not conflict.ended
    out = {ch.name.casefold() for ch in post.table.characters.values() if ch.taken_out}
    if live:
        out |= {n.casefold() for n in conflict.out()}
    turn = (conflict.turns.exchange, conflict.turns.current, conflict.turns.phase) if live else None
    return Situation(live, turn, frozenset(out))


def no_longer_applies(exc: CommandError, start: Situation, now: Situation) -> str | None:
    """Why a refused command no longer applies, when an earlier command of the same post
    brought about the situation it is refused for; None for a real error. The set is small
    on purpose: the conflict ended, the turn moved on, someone left the fight. Anything
    else (a typo, a rule broken, a situation that held before the post) refuses the post."""
    why = exc.depends_on
    if why == "conflict" and start.conflict and not now.conflict:
        return "the conflict ended earlier in this post"
    if why == "turn" and start.turn is not None and now.turn != start.turn:
        return "the turn moved on earlier in this post"
    if why.startswith("out:"):
        name = why[4:]
        if name.casefold() in now.out and name.casefold() not in start.out:
            return f"{name} left the fight earlier in this post"
    return None


def apply_post(post: Post, commands: list[c.Command]) -> list:
    """Apply a post's commands in order. A command that an earlier one made moot (the
    attack that ended the conflict, then ``/next``) is skipped with a note in the reply;
    an action out of turn is held for its turn where the campaign allows it
    (:mod:`pbp.play.held`); any other refusal refuses the whole post (the caller rolls it
    back). Only refusals raised before a handler changes anything carry ``depends_on``, so
    a skip changes nothing. After each command, an action held for whoever holds the turn
    now runs."""
    start = situation(post)
    results, extra = [], []     # one result per command, in order; then what held actions did
    for cmd in commands:
        try:
            results.append(apply_command(post, cmd))
        except CommandError as exc:
            why = no_longer_applies(exc, start, situation(post)) if exc.depends_on else None
            if why is not None:
                results.append(NoteResult(cmd.source, post.speaker(), "skipped",
                                          text=f"Skipped (line {cmd.line}): {why}, so {exc.message}."))
            elif (kept := _out_of_turn(post, cmd, exc)) is not None:
                results.append(kept)
            else:
                raise exc.at(cmd.line, cmd.source)
        extra += _turn_holder(post)
    return results + extra + _followed(post)


def apply_command(post: Post, cmd: c.Command):
    """Resolve one command with the handler registered for its type. A refusal always
    leaves here with what was expected and an example (:func:`complete_error`)."""
    handler = HANDLERS.get(type(cmd))
    post.command = cmd
    if handler is None:
        raise NotAllowedError(f"/{type(cmd).__name__.lower()} cannot be used here yet",
                              expected="a command listed in docs/commands.md", example="/sheet")
    try:
        return handler(post, cmd)
    except CommandError as exc:
        raise for_author(post, complete_error(exc, cmd, post.system.language))


def for_author(post: Post, exc: CommandError) -> CommandError:
    """A refusal's example as its author can send it: a player is never shown a GM's
    command (``/conflict start``, ``/place``...), which would be refused in turn, but
    ``/table``, which shows what the table waits for; the GM is never shown a character's
    action without the ``/as NAME`` that says whose it is."""
    from pbp.parser import parse_command
    from pbp.parser.spec import GM_ONLY

    lines = [ln.strip() for ln in (exc.example or "").splitlines() if ln.strip().startswith("/")]
    if not lines:
        return exc
    word = lines[0].split()[0].lstrip("/").lower()
    if not post.author.is_gm and word in GM_ONLY:
        exc.example = "/table"
    elif post.author.is_gm and word in ("overcome", "advantage", "create", "attack", "defend", "move", "invoke",
                                        "absorb", "concede", "treat", "help"):
        try:
            parse_command(f"/as {post.npc_example()} {lines[0].lstrip('/')}")
            exc.example = f"/as {post.npc_example()} {lines[0].lstrip('/')}"
        except CommandError:
            pass
    return exc


_EXPECTED = {
    "RulesError": "a command the rules allow at this point of the game",
    "NotAllowedError": "a command you may give now",
    "UnknownNameError": "a name known in this campaign",
}


def complete_error(exc: CommandError, cmd: c.Command, language: str = "en") -> CommandError:
    """Fill in what a refusal left out: ``expected`` in general words for its kind, and as
    the example the documented one for the command word (``/as NAME ...`` for the GM's
    actions), which parses. The raise site's own words, where it gave them, always win."""
    from pbp.parser import example_for

    if exc.source != cmd.source:     # a re-run's refusal names the roll's line: show the post's
        exc.source, exc.column = cmd.source, None
    if not exc.expected:
        exc.expected = _EXPECTED.get(type(exc).__name__, "a command that can be applied now")
    if not exc.example or not example_parses(exc.example):
        exc.example = example_for(cmd.source, language)
    return exc


def example_parses(example: str) -> bool:
    """Whether every command line of an example reads (prose advice such as "ask the GM to
    run: pbp character import ..." has none, and passes)."""
    from pbp.parser import parse_command

    for line in example.splitlines():
        if line.strip().startswith("/"):
            try:
                parse_command(line.strip())
            except CommandError:
                return False
    return True
