"""A campaign's play state between posts: the scene, the conflict and its turn order,
reactions waiting for an answer, rolls still open for invokes, compels and story details,
the GM's fate point pool, and which of pbp's mails was about what.

It is one JSON document per campaign (``Campaign.play``), read and written with the
message's transaction; ``next_deadline`` is mirrored into an indexed column so the
deadline job finds due campaigns with one query.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from pbp.commands import ActionCommand, Command
from pbp.rules.compels import CompelRecord
from pbp.rules.conflict import Conflict
from pbp.rules.fate_points import DetailRequest, FateLedger, Owed
from pbp.rules.invokes import AfterInvoke
from pbp.rules.zones import ZoneMap
from pbp.play.people import Away, MemberSettings
from pbp.play.pacing import FreePace
from pbp.store.codec import dump, load, reload


@dataclass
class Scene:
    name: str
    number: int = 1
    zones: ZoneMap | None = None
    started_at: datetime | None = None
    ranged_reach: str = "adjacent"  # how far a shot reaches: same | adjacent | any (pbp.rules.zones)
    npcs: list[str] = field(default_factory=list)  # NPCs in the scene (/scene start ... with, /npc join)
    # A scene beside others (a split party, pbp.play.parallel): the PCs in it (empty: every PC,
    # the one scene of a table that plays one at a time) and the id of the post that opened
    # it, the root of its thread, by which a reply finds it.
    members: list[str] = field(default_factory=list)
    root: str | None = None


@dataclass
class TurnClock:
    """How long the conflict's turn has been where it is (``who`` in ``phase``, exchange
    ``exchange``): a reminder ``reminder_hours`` before ``deadline``; at the deadline a
    handoff still owed goes to the default next actor, and a turn not taken is reported
    to the GM (once: ``expired``)."""

    who: str
    phase: str                      # "turn" | "awaiting_handoff"
    exchange: int
    deadline: datetime
    reminded: bool = False
    expired: bool = False


@dataclass
class Pending:
    """A reaction pbp waits for: a PC's defence against an attack, or their absorption of a
    hit. ``deadline`` passes -> the documented default applies."""

    id: int
    kind: str                       # "defend" | "absorb"
    target: str                     # who must answer
    attacker: str
    deadline: datetime
    opened_at: datetime
    roll_id: int | None = None      # the attack's roll in the ledger
    attack_effort: int = 0          # defend: the effort to beat
    attack_skill: str = ""
    attack_scale_aspect: str = ""   # defend: the aspect with scale the attacker invoked (DFC)
    attack_scale_after: int = 0     # defend: the attacker's +scale after, added if the attack succeeds (DFC)
    attack_scale_label: str = ""    # defend: its levels ("Otherworldly over Supernatural")
    attack_kind: str = ""           # the system's attack kind (which skills may defend); "": any
    shifts: int = 0                 # absorb: the hit
    track: str = ""                 # the system's track the hit lands on (always given)
    reminded: bool = False
    summary: str = ""               # one line for replies ("the Ghoul's claws, Great (+4)")
    held_by: int | None = None      # absorb: the concession answering the hit (early Fate); no deadline meanwhile


#: The part of the play state that belongs to one scene: what a scene open beside the one a
#: post acts in keeps, parked, until a post in its thread comes (pbp.play.parallel).
SCENE_PARTS = ("scene", "conflict", "pending", "open_rolls", "turn_clock", "npc_defences", "challenge", "contest",
               "helps", "held", "spins", "ledger", "pool_scene", "pace")


@dataclass(frozen=True)
class AspectRecord:
    """An aspect as a roll created or removed it, enough to take it out or put it back."""

    name: str
    kind: str = "situation"
    owner: str | None = None
    hidden: bool = False
    free_invokes: dict[str, int] = field(default_factory=dict)
    system_state: dict = field(default_factory=dict)   # the system's own (an aspect's scale)


@dataclass(frozen=True)
class FreeDelta:
    """A change in ``holder``'s free invokes on an aspect that was there before the roll."""

    aspect: str
    owner: str | None
    holder: str
    change: int


@dataclass
class TableDelta:
    """What one roll did to the table, as counts and aspects that can be undone: fate
    points spent, the GM's pool, free invokes used or granted, aspects created, removed
    (a boost used up) or revealed. This is all a resolution changes (harm is applied later,
    from the hit, by the conflict code), and all a re-run needs besides the command and its
    dice: undone on the table as it is now, it leaves the table as it would be had the roll
    not happened, later changes included (see :mod:`pbp.play.invoking`)."""

    fate_points: dict[str, int] = field(default_factory=dict)   # character -> change
    carried: dict[str, int] = field(default_factory=dict)       # NPC -> change of carried points
    gm_pool: int = 0
    free: list[FreeDelta] = field(default_factory=list)
    created: list[AspectRecord] = field(default_factory=list)
    removed: list[AspectRecord] = field(default_factory=list)
    revealed: list[AspectRecord] = field(default_factory=list)


@dataclass
class RollRecordRef:
    """A roll still open for invokes after the dice: the command, every throw made on it,
    what came after the dice, and what it did to the table (to be replaced by a re-run)."""

    id: int | None                  # the roll's id, taken when it was rolled (pbp.play.core.number_roll)
    cmd: ActionCommand
    actor: str
    throws: tuple[tuple[int, ...] | None, ...]
    rolled_at: datetime
    ids: tuple[int, ...] = ()       # the ids of the roll and of each revision of it (a ledger row each)
    added: tuple[AfterInvoke, ...] = ()
    vetoed: tuple[str, ...] = ()
    delta: TableDelta = field(default_factory=TableDelta)
    owed: tuple[Owed, ...] = ()     # hostile invokes' points this roll owes (replaced on a re-run)
    summary: str = ""               # "Ruth's attack on the Ghoul", for replies
    outcome: str = ""               # the roll's outcome as it stands: fail, tie, success, style, or
                                    # catastrophic (a fail of negative hits); "" before pbp kept it
    harm_target: str = ""           # an NPC the roll hit at once: its harm before and after the hit
    harm_before: dict = field(default_factory=dict)
    harm_after: dict = field(default_factory=dict)


@dataclass
class Held:
    """An action written out of turn, kept until the turn comes to ``who`` (the campaign's
    ``hold_out_of_turn``): then it runs as ``author`` wrote it (pbp.play.held)."""

    id: int
    who: str                        # the character whose turn it waits for
    author: str                     # the address that wrote it
    role: str                       # "player" | "gm"
    cmd: Command
    at: datetime


@dataclass
class HeldSpin:
    """A spin earned by roll ``roll`` (early Fate, 3+ shifts), held for a later action by its
    owner or another player (pbp.play.spin) until ``expires`` or the scene ends."""

    roll: int
    owner: str
    bonus: int
    expires: datetime


@dataclass
class TeamHelp:
    """Teamwork (pbp.play.teamwork): a help waiting for ``ally``'s next roll
    (``confirmed``), or asked for by the ally and not yet confirmed by ``helper`` (until
    ``deadline``)."""

    id: int
    helper: str
    ally: str
    at: datetime
    confirmed: bool = True
    deadline: datetime | None = None
    exchange: int | None = None     # in a conflict: the exchange the helper's action was for


@dataclass
class ChallengeTask:
    """One task of a challenge (pbp.play.challenges) and what became of it."""

    n: int
    skill: str
    rating: int | None = None       # the difficulty, or
    opponent: str | None = None     # the character who opposes it
    state: str = "open"             # open | done | cost (done at a cost) | failed
    by: str = ""                    # who rolled
    helpers: list[str] = field(default_factory=list)   # who helped and added (they share its costs)
    roll: int | None = None         # the id of the task's roll
    effort: int | None = None
    outcome: str = ""               # the outcome's name ("success with style")
    note: str = ""                  # the cost ("a minor cost", "a serious cost") or the failure


@dataclass
class Challenge:
    """A challenge the GM set up: overcome tasks taken by post until all are done or the
    deadline passes; then the GM gets the summary."""

    name: str
    tasks: list[ChallengeTask]
    who: list[str]                  # who may take the tasks (empty: every PC)
    started_at: datetime
    deadline: datetime


@dataclass
class ContestRoll:
    """A side's overcome this exchange (``effort`` None: forfeited, ``why`` says how)."""

    side: int
    roller: str = ""
    effort: int | None = None
    outcome: str = ""               # the tier's value: fail | tie | success | style
    roll: int | None = None         # the id of the side's roll
    helpers: list[str] = field(default_factory=list)
    why: str = ""                   # forfeited: "its advantage failed" | "it did not roll by the deadline"


@dataclass
class ContestSideState:
    members: list[str]
    intent: str = ""
    victories: int = 0


@dataclass
class ContestThreat:
    """A static ``rating``, or ``name``'s attack with ``skill`` rolled at each exchange's end."""

    name: str
    rating: int | None = None
    skill: str | None = None


@dataclass
class Contest:
    """A contest (pbp.play.contests): sides, threats, the victory tally, this exchange's rolls."""

    name: str
    sides: list[ContestSideState]
    threats: list[ContestThreat]
    needed: int                     # victories that win
    difficulty: int                 # what each side's overcome is rolled against
    hours: float                    # each exchange's deadline
    deadline: datetime              # this exchange's
    exchange: int = 1
    rolls: list[ContestRoll] = field(default_factory=list)
    twist_deadline: datetime | None = None   # a tie's twist owed by the GM until then
    twist_exchange: int = 0
    settled: list[ContestRoll] = field(default_factory=list)   # the last exchange's rolls, until the next begins
    awarded: list[int] = field(default_factory=list)   # what settling them marked: [side, victories], or [] (a tie)


CLOSED_KEPT = 50
"""How many closed rolls keep their reason, so a late ``/invoke`` is told why."""


@dataclass(frozen=True)
class RollHead:
    """What closing an open roll needs to know about it, read without decoding it."""

    actor: str
    ids: tuple[int, ...]
    rolled_at: datetime

    @classmethod
    def of(cls, entry: list) -> "RollHead":
        return cls(entry[0], tuple(entry[1]), datetime.fromisoformat(entry[2]))


@dataclass
class PlayState:
    scene: Scene | None = None
    conflict: Conflict | None = None
    pending: list[Pending] = field(default_factory=list)
    # Rolls still open for invokes, each [actor, [ledger ids], rolled at (ISO), the RollRecordRef
    # as JSON]: a message that does not touch them pays nothing to carry them (pbp.play.invoking).
    open_rolls: list = field(default_factory=list)
    compels: list[CompelRecord] = field(default_factory=list)
    details: list[DetailRequest] = field(default_factory=list)
    ledger: FateLedger = field(default_factory=FateLedger)
    # The one counter of the ids players see and type (#12): rolls, compels, story details,
    # bonus requests, aspect changes, pending reactions and held actions all take theirs
    # from it, so no two things of a campaign share a number.
    next_id: int = 1
    # False in a play state from before rolls took their numbers from next_id (their ids
    # were ledger row ids): the first post moves next_id past those (pbp.pipeline).
    rolls_numbered: bool = False
    session: int = 1
    threads: dict[str, list[str]] = field(default_factory=dict)  # our Message-ID -> ["compel:12", "roll:142"]
    # conflicts and scenes (pbp.play.conflict, pbp.play.scenes):
    scenes_played: int = 0          # numbers the next scene
    turn_clock: TurnClock | None = None
    npc_defences: dict[str, tuple[str, ...]] = field(default_factory=dict)  # NPC -> GM-set defence skills
    closed_rolls: dict = field(default_factory=dict)   # recently closed roll id (str) -> why (for replies)
    settled: dict = field(default_factory=dict)        # recently settled compel/detail id (str) -> what became of it
    pool_scene: str | None = None   # the scene whose GM pool is open ("" before any /scene start)
    reminded_details: list[int] = field(default_factory=list)   # story details already reminded
    recap_notes: dict[str, str] = field(default_factory=dict)   # scene number -> the GM's /recap note
    held: list[Held] = field(default_factory=list)   # actions waiting for their author's turn
    spins: list[HeldSpin] = field(default_factory=list)   # early Fate's spins, held for a later action
    helps: list[TeamHelp] = field(default_factory=list)   # teamwork offered or asked for (pbp.play.teamwork)
    challenge: Challenge | None = None                    # the running challenge (pbp.play.challenges)
    contest: Contest | None = None                        # the running contest (pbp.play.contests)
    # What each PC may still change at the last milestone, and skill points saved
    # (pbp.play.advance): name -> {"level", "lateral", "high_concept", "skill_points", "refresh"}.
    advances: dict = field(default_factory=dict)
    # The other scenes open at the same time (a split party), each its SCENE_PARTS and its
    # situation aspects, parked while posts act in another (pbp.play.parallel).
    elsewhere: list[ParkedScene] = field(default_factory=list)
    # The long campaign: each member's own settings by address (pbp.play.people), who is away
    # (pbp.play.away; one entry per member at most, gone when they are back) and who owes a
    # post outside a conflict (pbp.play.pace).
    people: dict[str, MemberSettings] = field(default_factory=dict)
    # Reminders held back by quiet hours in the last deadline round (pbp.play.core.Post.quiet):
    # the round's time and when the quiet hours end; a reminder due by then waits until that.
    reminders_held: datetime | None = None
    reminders_wait: datetime | None = None
    away: list[Away] = field(default_factory=list)
    pace: FreePace | None = None

    def new_id(self) -> int:
        n = self.next_id
        self.next_id += 1
        return n

    def named(self, number: int) -> str | None:
        """What ``#number`` is, in a player's words ("compel #3", "roll #5", "Ruth's
        defence #4"), or None when nothing of the campaign has it now; so a command given an
        id of another kind can say what the id is."""
        for x in self.compels:
            if x.id == number:
                return f"compel #{number}"
        for d in self.details:
            if d.id == number:
                return f"{d.label} #{number}"
        for p in self.pending:
            if p.id == number:
                return f"{p.target}'s {'defence' if p.kind == 'defend' else 'absorption'} #{number}"
        for h in self.held:
            if h.id == number:
                return f"{h.who}'s held action #{number}"
        if any(number in entry[1] for entry in self.open_rolls) or str(number) in self.closed_rolls:
            return f"roll #{number}"
        return None

    def next_deadline(self, reminder: timedelta = timedelta(0)) -> datetime | None:
        """The earliest moment something is due: a default, or the reminder ``reminder``
        before it (for items not yet reminded), in any open scene."""
        times = [t for t in (self.scene_deadline(reminder), *(p.deadline(self, reminder) for p in self.elsewhere))
                 if t is not None]
        times += [s.digest_due for s in self.people.values() if s.digest_due is not None]   # pbp.digest
        return min(times) if times else None

    def scene_deadline(self, reminder: timedelta = timedelta(0)) -> datetime | None:
        """:meth:`next_deadline` of the scene the play state acts in, and of what is the
        campaign's (compels, story details)."""
        times = [p.deadline if p.reminded else self._remind_at(p.deadline, reminder) for p in self.pending]
        times += [c.deadline if c.reminded_at else self._remind_at(c.deadline, reminder)
                  for c in self.compels if c.deadline is not None and c.is_open]
        times += [d.deadline if d.id in self.reminded_details else self._remind_at(d.deadline, reminder)
                  for d in self.details if d.deadline is not None and d.state == "pending"]
        times += [h.deadline for h in self.helps if h.deadline is not None and not h.confirmed]
        if self.challenge is not None:
            times.append(self.challenge.deadline)
        if self.contest is not None:
            times.append(self.contest.deadline)
            if self.contest.twist_deadline is not None:
                times.append(self.contest.twist_deadline)
        if self.pace is not None and self.pace.next_due is not None:
            times.append(self.pace.next_due)
        times += [a.until for a in self.away]       # an absence ends (pbp.play.away)
        clock = self.turn_clock
        if clock is not None and not clock.expired:
            times.append(clock.deadline if clock.reminded else self._remind_at(clock.deadline, reminder))
        return min(times) if times else None

    def _remind_at(self, deadline: datetime, reminder: timedelta) -> datetime:
        """When a reminder before ``deadline`` is due: ``reminder`` before it, or, when it was
        already due and held back by its reader's quiet hours, when those end."""
        at = deadline - reminder
        if self.reminders_held is not None and self.reminders_wait is not None and at <= self.reminders_held:
            return min(self.reminders_wait, deadline)
        return at

    def close_rolls(self, which, why: str) -> list[RollHead]:
        """Close the open rolls ``which(RollHead)`` picks; a later invoke on them is told
        ``why``. Here, below both, so that what closes rolls (the scene's end, the fate point
        payout, the next action) need not import the invoking code."""
        heads = [(entry, RollHead.of(entry)) for entry in self.open_rolls]
        closed = [h for _, h in heads if which(h)]
        if not closed:
            return []
        self.open_rolls = [entry for entry, h in heads if not which(h)]
        for h in closed:
            for rid in h.ids:
                self.closed_rolls[str(rid)] = why
                self.forget_thread_refs(f"roll:{rid}")
        forget_oldest(self.closed_rolls, CLOSED_KEPT)
        return closed

    def forget_thread_kind(self, kind: str) -> None:
        """Drop every ref of a kind (``"narrate"``) from the thread map: what a scene's end
        settles for good (a narration asked of someone taken out outside a conflict is
        never closed otherwise, and the map grew by one with every such ask)."""
        for ref in {r for refs in self.threads.values() for r in refs if r.startswith(kind + ":")}:
            self.forget_thread_refs(ref)

    def forget_thread_refs(self, ref: str) -> None:
        """Drop a closed item from the thread map, so the map does not grow with history."""
        for key in [k for k, refs in self.threads.items() if ref in refs]:
            refs = [r for r in self.threads[key] if r != ref]
            if refs:
                self.threads[key] = refs
            else:
                del self.threads[key]


def forget_oldest(kept: dict, most: int) -> None:
    """Keep the ``most`` newest entries of a dict keyed by id (``"142"``): the oldest are the
    lowest ids, not the first keys, for the play state comes back from JSON with its keys
    sorted as strings ("100" before "99")."""
    while len(kept) > most:
        kept.pop(min(kept, key=int))


def load_play(data: dict | None) -> PlayState:
    return load(PlayState, data) if data else PlayState()


def dump_play(play: PlayState) -> dict:
    return dump(play)


def as_stored(play: PlayState, data: dict, before: dict | None) -> PlayState:
    """``play`` as :func:`load_play` would read back ``data`` (its :func:`dump_play`) from the
    campaign's JSON column, where every map's keys come back sorted, which replies show;
    ``before`` is the stored document ``play`` was read from. Only the parts that differ
    from ``before`` (or whose maps are no longer in the stored order) are decoded again,
    down to the field of a dataclass (:func:`pbp.store.codec.reload`); the others are
    ``play``'s own, already as stored. Issue 23: decoding the whole state back cost a
    quarter of a millisecond a post."""
    return reload(PlayState, play, data, before or {})


@dataclass
class ParkedScene:
    """A scene open beside the one posts act in now: its part of the play state
    (:data:`SCENE_PARTS`, as :class:`PlayState` holds them) and its situation aspects,
    taken off the table meanwhile (pbp.play.parallel)."""

    scene: Scene
    conflict: Conflict | None = None
    pending: list[Pending] = field(default_factory=list)
    open_rolls: list = field(default_factory=list)
    turn_clock: TurnClock | None = None
    npc_defences: dict[str, tuple[str, ...]] = field(default_factory=dict)
    challenge: Challenge | None = None
    contest: Contest | None = None
    helps: list[TeamHelp] = field(default_factory=list)
    held: list[Held] = field(default_factory=list)
    spins: list[HeldSpin] = field(default_factory=list)
    ledger: FateLedger = field(default_factory=FateLedger)
    pool_scene: str | None = None
    pace: FreePace | None = None
    aspects: list[AspectRecord] = field(default_factory=list)

    def deadline(self, play: PlayState, reminder: timedelta) -> datetime | None:
        """When something of this scene is due (its own parts only)."""
        probe = PlayState(**{part: getattr(self, part) for part in SCENE_PARTS},
                          reminders_held=play.reminders_held, reminders_wait=play.reminders_wait)
        return probe.scene_deadline(reminder)
