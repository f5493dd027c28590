"""Pace outside a conflict: who owes a post in a free scene, ``/pass``, reminders before an
owed post's deadline and a nudge to the table when the scene stalls (docs/long-campaign.md).

Once the GM keeps the pace of a scene (``/pace round`` or ``/pace order``; it ends with
the scene or when a conflict starts), in a scene with no conflict each round everyone (each player's characters, and the GM)
owes one post; with the GM's posting order (``/pace order Ruth, Cassandra, GM``) they owe it
one at a time, in that order. Any post counts, ``/pass`` too. An owed post has
``post_deadline_hours`` from when it became owed; ``reminder_hours`` before that its owner
is reminded (once), and at the deadline the turn passes on (with an order) or the round
closes. When the scene has had no post for ``stall_hours`` the table is nudged, once until
the next post. No reminder reaches a member in their quiet hours, and no nudge goes out
while any member is in theirs: each waits until the hours end (:func:`pbp.play.people.quiet_until`).
Each open scene keeps its own pace (it is one of :data:`pbp.play.state.SCENE_PARTS`): in a
split party's scene only its own PCs and the GM owe posts, a post counts in the scene it
acts in, and a parked scene's deadlines, reminders and nudge come when they are due
(:func:`pbp.play.parallel.due_elsewhere`).
"""
from __future__ import annotations

from datetime import datetime, timedelta

from pbp import commands as c
from pbp.errors import CommandError
from pbp.i18n import N_, Joined, Msg, fold
from pbp.i18n.words import GM_WORDS
from pbp.play.core import GM, NoteResult, Post, Tell, handles
from pbp.play.sequence import after_post, deadline_job, status_line
from pbp.play.dates import when
from pbp.play.pacing import FreePace
from pbp.play.parallel import cast
from pbp.play.people import quiet_until


def _free(post: Post) -> bool:
    """A scene is open and no conflict is going on."""
    return post.play.scene is not None and post.play.conflict is None


def _players(post: Post) -> list[str]:
    """The players' characters in the scene (a split party's scene names its own,
    :func:`pbp.play.parallel.cast`), but those taken out."""
    here = cast(post)
    return sorted(x.name for x in post.table.characters.values()
                  if x.player and not x.taken_out and (here is None or x.name in here))


def seats(post: Post, pace: FreePace) -> list[str]:
    """Who posts in the round: the GM's order, or every player's character and the GM."""
    return list(pace.order) if pace.order else [*_players(post), GM]


def owed(post: Post, pace: FreePace) -> list[str]:
    """Who owes a post now: with an order, the first who has not posted this round; else
    everyone who has not."""
    left = [s for s in seats(post, pace) if s not in pace.done]
    return left[:1] if pace.order else left


def _member_of(post: Post, seat: str) -> str | None:
    if seat == GM:
        return None
    ch = post.table.character(seat)
    return (ch.player or "").lower() if ch is not None else None


def _seats_of_author(post: Post) -> list[str]:
    if post.author.is_gm:
        return [GM]
    return [x.name for x in post.own_characters()]


def _hours(post: Post, name: str) -> timedelta:
    return timedelta(hours=post.hours(name))


def _round_round(post: Post, pace: FreePace) -> list[str]:
    """A round whose every seat has posted closes and the next begins; returns a line saying so."""
    if owed(post, pace) or not seats(post, pace):
        return []
    pace.round += 1
    pace.done, pace.reminded, pace.since = [], [], post.now
    return [Msg("Round {n} of the scene begins.", n=pace.round)]


def _mark(post: Post, pace: FreePace, who: list[str]) -> None:
    before = owed(post, pace)
    pace.done += [s for s in who if s not in pace.done and s in seats(post, pace)]
    pace.reminded = [s for s in pace.reminded if s not in who]
    if pace.order and owed(post, pace) != before:
        pace.since = post.now        # with an order, each poster's time starts when their turn comes
        pace.reminded = []


def _is_round(post: Post) -> bool:
    """A deadline round, not a member's post."""
    return post.author.email == getattr(post.settings, "from_address", None)


@after_post
def count_post(post: Post) -> None:
    """After a member's post in a free scene: it is their owed post; the next due moment is
    worked out for the deadline job."""
    if not _free(post):
        post.play.pace = None
        return
    pace = post.play.pace
    if pace is None:             # the GM keeps the pace of a scene with /pace (order or round)
        return
    if not _is_round(post) and not post.__dict__.pop("_pace_set", False):
        pace.last_post, pace.nudged = post.now, False
        if post.author.is_gm:
            pace.gm = post.author.email
        _mark(post, pace, _seats_of_author(post))
        _round_round(post, pace)
    pace.next_due = _next_due(post, pace)


@handles(c.PassPost)
def pass_post(post: Post, cmd: c.PassPost):
    """``/pass``: nothing to post this round (the post itself counts, :func:`count_post`)."""
    if not _free(post):
        raise CommandError("/pass is for a scene outside a conflict", expected="in a conflict, /done or /next NAME",
                           example="/done" if post.play.conflict is not None else "/scene start Warehouse")
    who = GM if post.author.is_gm else post.speaker()
    if cmd.reason:
        return NoteResult(cmd.source, who, "pass", text=Msg('{who} passes this round ("{why}").', who=_said(who),
                                                            why=cmd.reason))
    return NoteResult(cmd.source, who, "pass", text=Msg("{who} passes this round.", who=_said(who)))


@handles(c.PaceOrder)
def pace_order(post: Post, cmd: c.PaceOrder):
    """``/pace order Ruth, Cassandra, GM`` (GM): post one at a time in that order;
    ``/pace round``: everyone once per round, in any order."""
    post.require_gm(N_("setting the posting order"), "/pace order " + ", ".join([*_players(post)[:2], GM]))
    if not _free(post):
        raise CommandError("the posting order is for a scene outside a conflict",
                           expected="an open scene with no conflict", example="/scene start Warehouse")
    order = []
    for name in cmd.order:
        seat = GM if fold(name) in GM_WORDS else post.find(name).name
        if seat not in order:
            order.append(seat)
    pace = post.play.pace or FreePace(since=post.now, last_post=post.now)
    pace.order, pace.done, pace.reminded, pace.since = tuple(order), [], [], post.now
    post.play.pace = pace
    post.__dict__["_pace_set"] = True     # the GM's post that sets the order is not their owed post
    text = (Msg("Posting order: {order}.", order=_seats(order)) if order else
            Msg("Everyone posts once per round, in any order."))
    return NoteResult(cmd.source, GM, "pace", text=text)


@status_line
def pace_status(post: Post) -> list[str]:
    pace = post.play.pace
    if pace is None or not _free(post):
        return []
    waiting = owed(post, pace)
    if not waiting:
        return []
    by = when(pace.since + _hours(post, "post_deadline_hours"))
    if pace.order:
        return [Msg("Next to post: {who} (by {by}; /pass if you have nothing to add).", who=_seats(waiting), by=by)]
    return [Msg("Round {n}: still to post: {who} (by {by}; /pass if you have nothing to add).", n=pace.round,
                who=_seats(waiting), by=by)]


@deadline_job
def pace_deadlines(post: Post) -> list:
    """Reminders, deadlines and the stall nudge of a free scene."""
    pace = post.play.pace
    if pace is None or not _free(post):
        post.play.pace = None
        return []
    results: list = []
    deadline = pace.since + _hours(post, "post_deadline_hours")
    if post.now >= deadline and owed(post, pace):
        late = owed(post, pace)
        _mark(post, pace, late)
        lines = _round_round(post, pace)
        nxt = owed(post, pace)
        if pace.order:
            text = Msg("{who} did not post by {by}: the turn passes on.", who=_seats(late), by=when(deadline))
        else:
            text = Msg("{who} did not post by {by}: the round goes on without them.", who=_seats(late),
                       by=when(deadline))
        parts = [text]
        if pace.order and nxt:
            parts.append(Msg(" Next: {who}.", who=_seats(nxt)))
        for line in lines:
            parts += [" ", line]
        results.append(NoteResult("(deadline)", GM, "pace", text=Joined(parts)))
        deadline = pace.since + _hours(post, "post_deadline_hours")
    lead = _hours(post, "reminder_hours")
    for seat in owed(post, pace):
        if seat in pace.reminded or post.now < deadline - lead:
            continue
        member = _member_of(post, seat)
        if quiet_until(post.play.people.get(member) if member else _gm_settings(post), post.now):
            continue
        pace.reminded.append(seat)
        post.tell(Tell(to=(seat,), subject=Msg("Reminder: {who}, your post by {by}", who=_said(seat), by=when(deadline)),
                       text=Msg("Reminder: {who}, the scene{name} waits for your post by {by} (round {n}). Post, or "
                                "/pass if you have nothing to add.\n", who=_said(seat), name=_named(post),
                                by=when(deadline), n=pace.round)))
    stall = _hours(post, "stall_hours")
    if stall and not pace.nudged and post.now >= pace.last_post + stall and _nobody_quiet(post):
        pace.nudged = True
        waiting = owed(post, pace)
        results.append(NoteResult("(stall)", GM, "stall", text=Msg(
            "The scene has had no post since {since}. Waiting for {who}: post, or /pass if you have nothing to add.",
            since=when(pace.last_post), who=_seats(waiting) if waiting else Msg("anyone"))))
    pace.next_due = _next_due(post, pace)
    return results


def _said(seat: str):
    """A seat as a sentence names it: the GM in the campaign's language ("MJ")."""
    return Msg("GM") if seat == GM else seat


def _seats(seats) -> list:
    return [_said(s) for s in seats]


def _named(post: Post) -> str:
    """' "Docks"' when other scenes are open beside it (a reminder says which), else ""."""
    return f' "{post.play.scene.name}"' if post.play.elsewhere and post.play.scene is not None else ""


def _gm_settings(post: Post):
    """The settings of the GM who last posted in the scene (the GM's quiet hours)."""
    pace = post.play.pace
    return post.play.people.get(pace.gm) if pace is not None and pace.gm else None


def _nobody_quiet(post: Post, at: datetime | None = None) -> bool:
    at = at or post.now
    return not any(quiet_until(s, at) for s in _readers(post))


def _readers(post: Post) -> list:
    """The settings of those who read the scene's nudge: every member's, or in a split
    party's scene its PCs' players' and the GMs' (a member of another scene asleep does not
    hold this one's nudge)."""
    here = cast(post)
    if here is None:
        return list(post.play.people.values())
    pace = post.play.pace
    readers = {(x.player or "").lower() for x in post.table.characters.values() if x.player and x.name in here}
    readers |= set(post.gms) | ({pace.gm} if pace is not None and pace.gm else set())
    return [s for email, s in post.play.people.items() if email in readers]


def _next_due(post: Post, pace: FreePace) -> datetime | None:
    """The next moment the deadline job has something to do for the pace: a reminder (or the
    end of its reader's quiet hours), the deadline, the stall nudge (or the end of the
    members' quiet hours)."""
    times = []
    deadline = pace.since + _hours(post, "post_deadline_hours")
    waiting = owed(post, pace)
    if waiting:
        times.append(deadline)
    lead = _hours(post, "reminder_hours")
    for seat in waiting:
        if seat in pace.reminded:
            continue
        at = max(deadline - lead, post.now)
        member = _member_of(post, seat)
        later = quiet_until(post.play.people.get(member) if member else _gm_settings(post), at)
        times.append(later or at)
    stall = _hours(post, "stall_hours")
    if stall and not pace.nudged:
        at = max(pace.last_post + stall, post.now)
        later = [quiet_until(s, at) for s in _readers(post)]
        times.append(max([t for t in later if t] or [at]))
    return min(times) if times else None
