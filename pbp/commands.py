"""Typed command objects: what the grammar produces and the pipeline resolves.

A post is cut into command lines (lines starting with ``/``); each line becomes exactly one
of the dataclasses below. They are plain values with no behaviour, so the parser, the
rules engine and the renderer can each be tested alone. ``line`` is the 1-based line of
the command in the author's new text and ``source`` the line as written.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class InvokeMode(str, Enum):
    BONUS = "bonus"        # +2 to your own effort (the default)
    REROLL = "reroll"      # reroll all four dice
    OPPOSE = "oppose"      # +2 to the difficulty someone else faces


class Payment(str, Enum):
    AUTO = "auto"          # a free invoke (or boost) if the invoker holds one, else a fate point
    FREE = "free"          # must be a free invoke or a boost
    FATE_POINT = "fp"      # pay a fate point even when holding free invokes


@dataclass(frozen=True)
class Invoke:
    """``+invoke "Aspect" [reroll|oppose] [free|fp] [if needed [for style]] [xN]``.

    ``if_needed``: spent only if it is needed to avoid failing (a fail becomes a tie or a
    success); with ``for_style`` also to reach success with style."""

    aspect: str
    mode: InvokeMode = InvokeMode.BONUS
    payment: Payment = Payment.AUTO
    if_needed: bool = False
    for_style: bool = False
    times: int = 1         # only free invokes may be repeated on one roll


@dataclass(frozen=True)
class StuntUse:
    """``+stunt "Name"``: names a stunt whose circumstance the engine cannot see."""

    name: str


@dataclass(frozen=True)
class SpinUse:
    """``+spin`` (the actor's own held spin) or ``+spin #12`` (the spin roll #12 earned,
    anyone's): early Fate's +1 for an action that follows from the spinning one."""

    roll: int = 0                 # 0: the actor's own


@dataclass(frozen=True)
class ScaleUse:
    """``+scale [before|after|invokes]``: which benefit of scale the roller takes when higher
    than the side opposing them (Dresden Files Condensed, "Scale")."""

    take: str = "before"          # "before" | "after" | "invokes"


@dataclass(frozen=True)
class Opposition:
    """``vs Fair`` / ``vs +3`` (passive) or ``vs Ghoul [using Athletics]`` (active).

    Exactly one of ``rating`` and ``character`` is set.
    """

    rating: int | None = None
    character: str | None = None
    skill: str | None = None
    #: A defence answering an attack rolled in an earlier mail (``rating`` and ``character``
    #: both set): the aspect with scale the attacker invoked on the attack, whose level their
    #: side has (Dresden Files Condensed, "Aspects and Scale"). The parser never sets it.
    scale_aspect: str | None = None
    #: The same defence: the attacker's ``+scale after``, the bonus (+2 per level) the attack
    #: takes if it beats the defence, and the levels' label ("Otherworldly over Supernatural").
    #: The parser never sets them.
    scale_after: int = 0
    scale_label: str | None = None


@dataclass(frozen=True)
class Choice:
    """``on tie boost`` / ``on fail cost`` / ``on style boost``: how to take a branch of the
    outcome table that the rules leave to the player."""

    outcome: str           # "fail" | "tie" | "style"
    take: str              # "boost" | "cost"


@dataclass(frozen=True)
class Command:
    line: int
    source: str

    @property
    def name(self) -> str:
        return type(self).__name__.lower()


@dataclass(frozen=True)
class ActionCommand(Command):
    """Shared parts of the four actions. ``actor`` is set by ``/as NAME ...`` (GM) and
    otherwise filled in by the pipeline from the author's character."""

    skill: str = ""
    opposition: Opposition | None = None
    invokes: tuple[Invoke, ...] = ()
    stunts: tuple[StuntUse, ...] = ()
    modifier: int = 0      # a plain +N/-N the GM allows ("/overcome Athletics vs Fair +1")
    choices: tuple[Choice, ...] = ()
    actor: str | None = None
    spin: SpinUse | None = None   # +spin [#ID]: a held spin (early Fate, pbp.play.spin)
    scale: ScaleUse | None = None  # +scale [after|invokes]: scale's benefit (Dresden Files Condensed)
    # Teamwork: the allies who help this roll with the same skill, in the order they
    # offered. Never written on the line: the play layer fills it in from /help.
    helpers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Overcome(ActionCommand):
    secrecy: str = ""      # "secret" | "blind": only the GM sees the dice until the scene ends; "open" (docs/verify.md)


@dataclass(frozen=True)
class Advantage(ActionCommand):
    """Create an advantage.

    ``aspect`` names a new aspect or an existing known one; ``target`` is the character it is
    placed on (None = the scene). ``discover`` is set for ``/advantage Notice discover on
    Ghoul``: look for an unknown aspect of the target.
    """

    aspect: str | None = None
    target: str | None = None
    discover: bool = False
    # A contest's other side (``pbp.play.contests``): who may get the free invoke a failure
    # gives "the other side". The first holds it, unless the aspect is on another of them
    # (then its owner); ``GM`` names the GM's side. Never written on the line: the play
    # layer fills it in. Empty (outside a contest): the aspect's owner if it is not the
    # actor's, else the GM's side.
    other_side: tuple[str, ...] = ()
    secrecy: str = ""      # "secret" | "blind" | "open", as an overcome's (docs/verify.md)


@dataclass(frozen=True)
class Attack(ActionCommand):
    target: str = ""


@dataclass(frozen=True)
class Defend(ActionCommand):
    pass


@dataclass(frozen=True)
class Roll(Command):
    """``/roll 4dF+2``, ``/roll Fight``, ``/roll 3d6``, ``/roll 2d10+1``, ``/roll 4dF+Fight+1``."""

    count: int = 4
    sides: str = "F"       # "F" or a number as a string ("6", "10")
    skill: str | None = None
    modifier: int = 0
    actor: str | None = None
    # The dice were written (``/roll 4dF``, ``/roll 6d10``), not left to the system: a system
    # whose dice differ refuses written dice it does not use and rolls its own for a skill
    # (the d10 hack's pool). Not compared: under Fate ``/roll Fight`` is ``/roll 4dF+Fight``.
    dice_written: bool = field(default=False, compare=False)
    secrecy: str = ""      # "secret" | "blind": only the GM sees the dice until the scene ends; "open" (docs/verify.md)


@dataclass(frozen=True)
class Sheet(Command):
    character: str | None = None


@dataclass(frozen=True)
class SheetSet(Command):
    """``/sheet set Ruth fate_points=4 skills.Burglary=Average`` (GM): small fixes to a sheet,
    the play state kept (:mod:`pbp.sheetedit`)."""

    character: str = ""
    values: tuple[str, ...] = ()      # "key=value", as written


@dataclass(frozen=True)
class TableView(Command):
    """``/table``: what the table may know now (the scene, its zones and who is where,
    aspects and free invokes, turns, what pbp waits for); the GM also gets what only the GM
    knows (hidden aspects, the GM's pool)."""


@dataclass(frozen=True)
class FpCommand(Command):
    """The ``/fp`` forms, one type each: :class:`FpShow`, :class:`FpSpend`, and the GM's
    :class:`FpGive` and :class:`FpTake`."""

    character: str | None = None


@dataclass(frozen=True)
class FpShow(FpCommand):
    """``/fp [show] [NAME]``: how many fate points (yours, or NAME's)."""


@dataclass(frozen=True)
class FpSpend(FpCommand):
    """``/fp spend ["reason"]``: spend one of your own."""

    reason: str = ""


@dataclass(frozen=True)
class FpGive(FpCommand):
    """``/fp give NAME [N]`` (GM): N fate points more for NAME."""

    amount: int = 1


@dataclass(frozen=True)
class FpTake(FpCommand):
    """``/fp take NAME [N]`` (GM): N fate points fewer for NAME."""

    amount: int = 1


# --------------------------------------------------------------------------- play by post:
# turns, reactions, aspects, compels, scenes (issues 4 and 5). Names are as written; the
# pipeline resolves them against the campaign.


@dataclass(frozen=True)
class Next(Command):
    """``/next Ruth``: popcorn handoff to someone who has not acted this exchange (or, at
    the end of an exchange, whoever opens the next one, the actor included)."""

    character: str = ""
    actor: str | None = None          # /as Ghoul next Ruth (the GM hands off for an NPC)


@dataclass(frozen=True)
class Done(Command):
    """``/done``: close your open roll to further invokes (and, in a conflict, end your turn
    without a handoff when the exchange is over)."""

    actor: str | None = None


@dataclass(frozen=True)
class Move(Command):
    """``/move "Back Yard"``: the free move to a bordering zone that comes with a turn."""

    zone: str = ""
    actor: str | None = None


@dataclass(frozen=True)
class InvokeAfter(Command):
    """``/invoke "Deep Shadows" [reroll|oppose] [free|fp] [on #142]``: invoke after the dice,
    on your own open roll (or, with ``on #ID``, on another open roll: +2 to it for an ally,
    or ``oppose`` against an enemy's). A bare ``/invoke`` in a reply is tied to the roll
    that mail was about."""

    invoke: Invoke = Invoke(aspect="")
    roll_id: int | None = None
    actor: str | None = None


@dataclass(frozen=True)
class Absorb(Command):
    """``/absorb stress 2 mild "Nasty Bite"`` / ``/absorb stress 1 moderate "Gaping Chest
    Wound"`` / ``/absorb mild "Sprained Wrist" severe "Crushed Leg"``: answers a pending hit.
    ``stress`` is the number of stress boxes to mark; ``consequences`` pairs severity and the
    aspect the player names. ``unit`` is the word written before the stress number
    ("stress", or "box" for ``/absorb box 2``): the campaign's system checks it."""

    stress: int = 0
    consequences: tuple[tuple[str, str], ...] = ()
    unit: str = field(default="", compare=False)
    actor: str | None = None


@dataclass(frozen=True)
class Concede(Command):
    """``/concede "I flee into the sewers"``: before the dice are rolled against you."""

    terms: str = ""
    actor: str | None = None


@dataclass(frozen=True)
class Mech(Command):
    """``/mech in`` / ``/mech out``: the pilot climbs into their mech's cockpit or out of it
    (a system's own character state: the d10 hack's mech layer)."""

    boarding: bool = True
    actor: str | None = None


@dataclass(frozen=True)
class Treat(Command):
    """``/treat Charles "Gaping Chest Wound" with Academics [+invoke ...]``: the recovery
    overcome that starts a consequence's clock; success renames it (``as "Stitched Up"``)."""

    patient: str = ""
    consequence: str = ""
    skill: str = ""
    rename: str = ""
    invokes: tuple[Invoke, ...] = ()
    actor: str | None = None


@dataclass(frozen=True)
class Compel(Command):
    """``/compel Ruth "Hair-Trigger Temper" event "The bouncer's jibe sets you off"``.

    From the GM: an offer to the character's player. From a player: an offer they pay for
    (on another character), which the GM approves first. ``/compel me "Trouble" decision
    "..."`` by a player is a retroactive self-compel (the GM approves, no payment)."""

    target: str = ""
    aspect: str = ""
    kind: str = "event"               # "event" | "decision"
    text: str = ""
    actor: str | None = None


@dataclass(frozen=True)
class Answer(Command):
    """An answer to an offer: :class:`Accept`, :class:`Refuse`, :class:`Approve`,
    :class:`Deny`, :class:`Withdraw`, with an optional ``#id``; without one, tied to the
    compel (or story detail) the replied-to mail was about."""

    ref: int | None = None
    reason: str = ""

    @property
    def verb(self) -> str:
        """The command word (``accept``): the type's name, for the replies' wording."""
        return self.name


@dataclass(frozen=True)
class Accept(Answer):
    """``/accept [#id]``: take a compel offered to you (and its fate point)."""


@dataclass(frozen=True)
class Refuse(Answer):
    """``/refuse [#id] ["reason"]``: buy a compel off with a fate point."""


@dataclass(frozen=True)
class Approve(Answer):
    """``/approve [#id]`` (GM): a player's compel, story detail or bonus goes ahead."""


@dataclass(frozen=True)
class Deny(Answer):
    """``/deny [#id] ["reason"]`` (GM): it does not."""


@dataclass(frozen=True)
class Withdraw(Answer):
    """``/withdraw [#id]``: take back your own offer before it is answered."""


@dataclass(frozen=True)
class Veto(Command):
    """``/veto [#142] "Distracted" ["reason"]`` (GM): the bogus-rule veto of an invoke on an
    open roll; the invoke is taken back and its cost refunded."""

    ref: int | None = None
    aspect: str = ""
    reason: str = ""


@dataclass(frozen=True)
class Cost(Command):
    """``/cost #142 minor|severe ["what happens"]`` (GM): a cost on a failure or a tie, in a
    system whose costs the GM names by reply (the d10 hack); with the text it is named at
    once, without it it waits for ``/approve #ID "..."`` as a cost the roll owes does."""

    ref: int = 0
    severity: str = "minor"
    text: str = ""


@dataclass(frozen=True)
class Detail(Command):
    """``/detail "The guard is my cousin"``: declare a story detail for a fate point; the GM
    approves (the point is spent then) or denies."""

    text: str = ""
    actor: str | None = None


@dataclass(frozen=True)
class GiveInvoke(Command):
    """``/give "On Fire" Ruth [N]``: pass free invokes (or a boost) you hold to an ally."""

    aspect: str = ""
    to: str = ""
    count: int = 1
    actor: str | None = None


@dataclass(frozen=True)
class Help(Command):
    """``/help Charles [on #142]``: teamwork. Help an ally's next roll with the same skill
    (your action; in a conflict, your turn), or an open roll of theirs (``on #ID``, or in
    reply to its mail; in a conflict, giving up your turn this exchange)."""

    ally: str = ""
    roll_id: int | None = None
    actor: str | None = None


@dataclass(frozen=True)
class HelpAsk(Command):
    """``/help from Cassandra, Ruth``: ask allies to help your next roll; each confirms
    with ``/help YOURNAME``."""

    helpers: tuple[str, ...] = ()
    actor: str | None = None


@dataclass(frozen=True)
class SceneStart(Command):
    """``/scene start "Warehouse" [zones "Dock", "Floor", "Office"] [borders "Dock"-"Floor",
    "Floor"-"Office"] [with Ghoul, "Masked Acolyte"]`` (GM)."""

    name: str = ""
    zones: tuple[str, ...] = ()
    borders: tuple[tuple[str, str], ...] = ()
    npcs: tuple[str, ...] = ()        # the NPCs in the scene (their carried points join the GM's pool)


@dataclass(frozen=True)
class Reveal(Command):
    """``/reveal`` (GM): the open scene's dice seed made public now; the rest of the scene
    rolls under a new one. ``/reveal #3``: secret roll #3 alone, its dice, result and key
    (one the GM held past its scene, or one of the open scene now; docs/verify.md)."""

    ref: int | None = None


@dataclass(frozen=True)
class Hold(Command):
    """``/hold #3`` (GM): secret roll #3 stays secret past its scene's end (docs/verify.md)."""

    ref: int = 0


@dataclass(frozen=True)
class SceneEnd(Command):
    """``/scene end`` (GM): boosts, situation aspects and stress go."""


@dataclass(frozen=True)
class SessionEnd(Command):
    """``/session end`` (GM): fate points back up to refresh."""


@dataclass(frozen=True)
class Milestone(Command):
    """``/milestone minor|major`` (GM)."""

    level: str = ""                   # "minor" | "significant" | "major" (as the system has them)
    power: bool = False               # "/milestone major power": the GM's extra refresh and raise


@dataclass(frozen=True)
class Advance(Command):
    """``/advance skills.Lore=Fair skills.Empathy=Average``: a player's changes at a milestone,
    as ``/sheet set`` writes them; the GM approves (:mod:`pbp.play.advance`)."""

    values: tuple[str, ...] = ()      # "key=value", as written
    actor: str | None = None


@dataclass(frozen=True)
class AspectAdd(Command):
    """``/aspect add "Deep Shadows" [on "Office"|on Ghoul] [free N] [hidden] [scale LEVEL]`` (GM)."""

    name: str = ""
    target: str | None = None         # a zone or a character; None = the scene
    free: int = 0
    hidden: bool = False
    scale: str = ""                   # a level of scale the aspect carries (Dresden Files Condensed)


@dataclass(frozen=True)
class AspectSet(Command):
    """``/aspect set "Veiled" scale=Supernatural`` (GM): a setting of an aspect in play, as
    ``/sheet set`` writes a sheet's keys (the system's ``aspect_settings``)."""

    name: str = ""
    values: tuple[str, ...] = ()      # "key=value", as written


@dataclass(frozen=True)
class AspectRemove(Command):
    """``/aspect remove "Deep Shadows"`` (GM)."""

    name: str = ""


@dataclass(frozen=True)
class AspectRename(Command):
    """``/aspect rename "Old" to "New"``: the GM's, or a player's own consequence (which
    the GM approves)."""

    name: str = ""
    new_name: str = ""


@dataclass(frozen=True)
class ConflictStart(Command):
    """``/conflict start Ruth, Cassandra, Ghoul, "Masked Acolyte" first Cassandra [mental]``
    (GM; sides by kind) or ``/conflict start Ruth vs Cassandra first Ruth`` (sides as given:
    PCs may fight each other)."""

    participants: tuple[str, ...] = ()
    against: tuple[str, ...] = ()     # "A, B vs C, D": the second side (else sides go by kind)
    first: str = ""
    kind: str = ""                    # one of the system's tracks ("": its first, physical)


@dataclass(frozen=True)
class ConflictEnd(Command):
    """``/conflict end`` (GM)."""


@dataclass(frozen=True)
class Task:
    """One task of a challenge: an overcome with ``skill`` against ``rating`` (a difficulty)
    or against ``opponent`` (a character who opposes it actively)."""

    skill: str
    rating: int | None = None
    opponent: str | None = None


@dataclass(frozen=True)
class ChallengeStart(Command):
    """``/challenge start "Escape the Yacht" tasks Burglary vs Good, Athletics vs Fair,
    Stealth vs Guard [for Ethan, Ruth] [hours 24]`` (GM)."""

    name: str = ""
    tasks: tuple[Task, ...] = ()
    who: tuple[str, ...] = ()         # who may take the tasks (empty: every PC)
    hours: int | None = None          # the deadline, hours from now (None: the reaction deadline)


@dataclass(frozen=True)
class ChallengeEnd(Command):
    """``/challenge end`` (GM): the challenge ends now; the GM gets the summary."""


@dataclass(frozen=True)
class ContestSide:
    """One side of a contest: who is on it and what they want (their declared intent)."""

    members: tuple[str, ...]
    intent: str = ""


@dataclass(frozen=True)
class Threat:
    """An external threat in a contest: a static ``rating``, or ``character``'s attack with
    ``skill`` rolled each exchange. It hits everyone on a side whose roll is lower."""

    name: str
    rating: int | None = None
    skill: str | None = None


@dataclass(frozen=True)
class ContestStart(Command):
    """``/contest start Chase Ruth, Charles "get out alive" vs Ghoul "a meal" [threat
    "Flooding Tunnel" Fair] [threat Ghoul with Fight] [victories 3] [difficulty Fair]
    [hours 24]`` (GM)."""

    name: str = ""
    sides: tuple[ContestSide, ...] = ()
    threats: tuple[Threat, ...] = ()
    victories: int | None = None      # None: the system's (3)
    difficulty: int | None = None     # the sides' overcomes; None: Mediocre (+0)
    hours: int | None = None          # each exchange's deadline; None: the reaction deadline


@dataclass(frozen=True)
class ContestTwist(Command):
    """``/contest twist "Loose Rubble"`` (GM): the twist after a tie, a new situation aspect."""

    aspect: str = ""


@dataclass(frozen=True)
class ContestEnd(Command):
    """``/contest end`` (GM)."""


@dataclass(frozen=True)
class Place(Command):
    """``/place Ruth in "Dock"`` (GM positions; in a conflict, someone new joins it, on the
    side of ``beside`` when ``with NAME`` names one)."""

    character: str = ""
    zone: str = ""
    beside: str | None = None


@dataclass(frozen=True)
class NpcCmd(Command):
    """``/npc add Ghoul minor "Hungry Ghoul" skill "Biting People" Great stress 2`` (a minor
    NPC on the spot: one or two aspects, one or two skills, 0-3 stress boxes). Major NPCs
    come from sheet files."""

    name: str = ""
    aspects: tuple[str, ...] = ()
    skills: tuple[tuple[str, int], ...] = ()
    stress: int = 0
    defend_with: tuple[str, ...] = ()  # GM-set defence skills (overrides the defaults)


@dataclass(frozen=True)
class NpcJoin(Command):
    """``/npc join Ghoul, "Masked Acolyte"`` (GM): NPCs enter the current scene."""

    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class NpcDefend(Command):
    """``/npc defend Ghoul with Athletics`` (GM): the skills an NPC defends with."""

    name: str = ""
    defend_with: tuple[str, ...] = ()


@dataclass(frozen=True)
class Again(Command):
    """``/again ["what has changed"]``: the post's commands are a deliberate new attempt,
    to be run even though the same commands already answered the same mail, or came in a
    new mail with the same words (see :mod:`pbp.copies`). Fate does not let a failed overcome simply be retried: the
    situation has to change first, so the line may say what changed."""

    changed: str = ""


@dataclass(frozen=True)
class Recap(Command):
    """``/recap ["the GM's note"]``: the scene so far in a few lines (:mod:`pbp.archive.recap`);
    the GM's note, when given, is kept and leads every recap of the scene."""

    note: str = ""


@dataclass(frozen=True)
class MemberSet(Command):
    """``/settings tz=Europe/Lisbon quiet=23-08``: the author's own settings
    (:mod:`pbp.play.people`); with none, what they are now."""

    values: tuple[str, ...] = ()      # "key=value", as written


@dataclass(frozen=True)
class MuteScene(Command):
    """``/mute ["Docks"]`` (``on``) or ``/unmute ["Docks"]``: the table's mail of a scene (the
    one named, else the one the post acts in) reaches the author only when it concerns them
    (:mod:`pbp.play.mailing`)."""

    scene: str | None = None
    on: bool = True


@dataclass(frozen=True)
class GoAway(Command):
    """``/away [NAME] until 2026-12-14 [ally Charles] ["note"]``: the author (or, from the GM,
    NAME's player) is away until that day, in their own time zone (:mod:`pbp.play.away`)."""

    who: str | None = None
    until: str = ""                   # YYYY-MM-DD
    ally: str | None = None
    note: str = ""


@dataclass(frozen=True)
class ComeBack(Command):
    """``/back [NAME]``: the author (or, from the GM, NAME's player) is back before the day
    they gave."""

    who: str | None = None


@dataclass(frozen=True)
class PassPost(Command):
    """``/pass ["why"]``: outside a conflict, nothing to post this round (:mod:`pbp.play.pace`)."""

    reason: str = ""


@dataclass(frozen=True)
class PaceOrder(Command):
    """``/pace order Ruth, Cassandra, GM`` (GM): the free scene's posting order; ``/pace
    round`` (empty ``order``): everyone once per round (:mod:`pbp.play.pace`)."""

    order: tuple[str, ...] = ()


@dataclass(frozen=True)
class Say(Command):
    """``/as Ghoul`` alone on a line: the prose that follows is the NPC's (no roll)."""

    actor: str | None = None
