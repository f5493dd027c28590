"""Away players: ``/away until DATE``, ``/back``, and what the campaign's ``away_policy``
does meanwhile with what waits for their characters (docs/long-campaign.md).

* ``pause`` (the default): a defence, an absorption or a turn that waits for an away
  player's character has its deadline moved to the day they are back, plus the campaign's
  time to answer; its reminder goes out again before that.
* ``ally``: deadlines run as usual; the ally the player named (a character of another
  player), or the GM, may answer for them (``/as Ruth defend Athletics``,
  :meth:`pbp.play.core.Post.stands_in`), and reminders go to that ally.
* ``default``: pbp does not wait for them: what waits for their characters is due at once,
  and the documented default applies with a note saying why.

The table is told once, by the reply to ``/away``; ``/table`` lists who is away until when.
``away_days_per_year`` (0: no limit) bounds a player's days away in a calendar year, as
correspondence chess's vacation days do; ``/back`` early gives the days not used back.
"""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timedelta, timezone

from pbp import commands as c
from pbp.errors import CommandError, NotAllowedError
from pbp.i18n import N_, Joined, Msg
from pbp.play.core import GM, NoteResult, Post, Tell, handles, quote
from pbp.play.sequence import after_post, deadline_job
from pbp.play.dates import when
from pbp.play.people import Away, MemberSettings
from pbp.rules.names import and_names

POLICIES = {
    "pause": N_("pbp waits for them: the deadlines that wait for their characters move to the day they are back"),
    "ally": N_("their ally or the GM may answer for them; the deadlines run as usual"),
    "default": N_("pbp does not wait for them: the documented defaults apply at once"),
}
MOST_DAYS = 366


def policy(post: Post) -> str:
    return (getattr(post.campaign, "settings", None) or {}).get("away_policy") or "pause"


def budget(post: Post) -> int:
    return int((getattr(post.campaign, "settings", None) or {}).get("away_days_per_year") or 0)


def away_now(post: Post) -> list[Away]:
    return [a for a in post.play.away if a.since <= post.now < a.until]


def characters_of(post: Post, member: str) -> list[str]:
    return sorted(x.name for x in post.table.characters.values() if (x.player or "").lower() == member)


def away_for(post: Post, name: str) -> Away | None:
    """The absence of the player of character ``name`` (None: not away)."""
    ch = post.table.character(name)
    member = (ch.player or "").lower() if ch is not None else ""
    return next((a for a in away_now(post) if member and a.member == member), None)


def who_is(post: Post, away: Away) -> str:
    names = characters_of(post, away.member)
    return and_names(names) if names else (Msg("the GM") if away.member in _gms(post) else away.member)


def _gms(post: Post) -> set[str]:
    return {post.author.email} if post.author.is_gm else set()


# --------------------------------------------------------------------------- the commands


@handles(c.GoAway)
def go_away(post: Post, cmd: c.GoAway):
    member = _member(post, cmd.who, cmd)
    settings = post.play.people.get(member) or MemberSettings()
    zone = settings.zone() or timezone.utc
    example_day = (post.now + timedelta(days=7)).date().isoformat()
    example = f"/away until {example_day}" if not cmd.who else f"/away {quote(cmd.who)} until {example_day}"
    try:
        day = datetime.strptime(cmd.until, "%Y-%m-%d")
    except ValueError:
        raise CommandError(f"{cmd.until} is not a day of the calendar", expected="a day as YYYY-MM-DD",
                           example=example) from None
    until = day.replace(tzinfo=zone).astimezone(timezone.utc).replace(tzinfo=None)
    if until <= post.now:
        raise CommandError(f"{cmd.until} has begun or passed already", expected="a day still to come, YYYY-MM-DD",
                           example=example)
    if until - post.now > timedelta(days=MOST_DAYS):
        raise CommandError(f"{cmd.until} is more than a year away", expected="a day within the year",
                           example=example)
    ally = None
    if cmd.ally:
        ch = post.find(cmd.ally)
        if not ch.player or ch.player.lower() == member:
            raise CommandError(f"{ch.name} is not another player's character",
                               expected="an ally: a character another player plays",
                               example=example + " ally " + quote(_an_ally(post, member) or "Charles"))
        ally = ch.name
    days = math.ceil((until - post.now) / timedelta(days=1))
    limit = budget(post)
    year = str(post.now.year)
    used = settings.away_days.get(year, 0)
    previous = next((a for a in post.play.away if a.member == member), None)
    if previous is not None:        # a new date replaces the old one: its days come back first
        used -= _days_left(previous, post.now)
    if limit and used + days > limit:
        left = max(limit - used, 0)
        fits = (post.now + timedelta(days=left)).date().isoformat()
        raise CommandError(f"{days} days away would pass the campaign's {limit} days a year "
                           f"({left} left this year)", expected=f"a day at most {left} days away",
                           example=f"/away until {fits}" if left else "/back")
    settings = replace(settings, away_days={year: used + days})     # only this year's count is kept
    post.play.people[member] = settings
    entry = Away(member=member, since=post.now, until=until, note=cmd.note, ally=ally)
    post.play.away = [a for a in post.play.away if a.member != member] + [entry]
    hold(post)
    who = who_is(post, entry)
    how = Msg(POLICIES[policy(post)])
    if policy(post) == "ally":
        how = Msg("{ally}'s player or the GM may answer for them; the deadlines run as usual", ally=ally) if ally else \
            Msg("the GM may answer for them; the deadlines run as usual")
    if cmd.note:
        text = Msg('{who} is away until {until} ("{note}"). Meanwhile {how}.', who=who, until=when(until),
                   note=cmd.note, how=how)
    else:
        text = Msg("{who} is away until {until}. Meanwhile {how}.", who=who, until=when(until), how=how)
    if limit:
        text = Joined([text, Msg(" Days away this year: {n} of {limit}.", n=used + days, limit=limit)])
    return NoteResult(cmd.source, who, "away", text=text)


@handles(c.ComeBack)
def come_back(post: Post, cmd: c.ComeBack):
    member = _member(post, cmd.who, cmd)
    entry = next((a for a in post.play.away if a.member == member and a.until > post.now), None)
    if entry is None:
        raise CommandError("nobody of that name is away", expected="/back after /away",
                           example="/away until " + (post.now + timedelta(days=7)).date().isoformat())
    settings = post.play.people.get(member) or MemberSettings()
    year = str(post.now.year)
    left = _days_left(entry, post.now)
    if left and year in settings.away_days:
        post.play.people[member] = replace(settings, away_days={
            **settings.away_days, year: max(settings.away_days[year] - left, 0)})
    post.play.away = [a for a in post.play.away if a.member != member]
    return NoteResult(cmd.source, who_is(post, entry), "back", text=Msg("{who} is back.", who=who_is(post, entry)))


def _days_left(entry: Away, now: datetime) -> int:
    return max(math.floor((entry.until - max(now, entry.since)) / timedelta(days=1)), 0)


def _member(post: Post, who: str | None, cmd) -> str:
    """Whose absence a command is about: the author's, or from the GM, the player of the
    character named."""
    if not who:
        return post.author.email
    if not post.author.is_gm:
        raise NotAllowedError("only the GM says that another player is away",
                              expected="/away until DATE, for yourself",
                              example=cmd.source.replace(who, "", 1).replace("  ", " ").strip())
    ch = post.find(who)
    if not ch.player:
        raise CommandError(f"{ch.name} is the GM's character", expected="a player's character",
                           example=cmd.source.replace(who, quote(_an_ally(post, "") or "Ruth"), 1))
    return ch.player.lower()


def _an_ally(post: Post, member: str) -> str | None:
    names = sorted(x.name for x in post.table.characters.values() if x.player and x.player.lower() != member)
    return names[0] if names else None


# --------------------------------------------------------------------------- what waits for them


def hold(post: Post) -> None:
    """Apply the policy to what waits for an away player's characters now."""
    mode = policy(post)
    if mode == "ally" or not post.play.away:
        return
    answer = timedelta(hours=post.hours("reaction_deadline_hours"))
    for pending in post.play.pending:
        away = away_for(post, pending.target)
        if away is None:
            continue
        if mode == "pause" and pending.deadline < away.until + answer:
            pending.deadline, pending.reminded = away.until + answer, False
        elif mode == "default" and pending.deadline > post.now:
            pending.deadline = post.now
    clock = post.play.turn_clock
    if clock is not None and not clock.expired:
        away = away_for(post, clock.who)
        if away is not None and mode == "pause" and clock.deadline < away.until + answer:
            clock.deadline, clock.reminded = away.until + answer, False
        elif away is not None and mode == "default" and clock.deadline > post.now:
            clock.deadline = post.now


@deadline_job
def away_round(post: Post) -> list:
    """First of the deadline jobs: absences that ended are dropped; the policy is applied to
    what waits for those still away (so the jobs after it see the deadlines it moved), and
    under ``default`` the table reads why a default is taken."""
    post.play.away = [a for a in post.play.away if a.until > post.now]
    hold(post)
    if policy(post) != "default":
        return []
    due = [p.target for p in post.play.pending if p.deadline <= post.now and p.held_by is None]
    clock = post.play.turn_clock
    if clock is not None and not clock.expired and clock.deadline <= post.now:
        due.append(clock.who)
    notes = []
    for name in dict.fromkeys(due):
        away = away_for(post, name)
        if away is not None:
            notes.append(NoteResult("(away)", name, "away", text=Msg("{who}'s player is away until {until}: pbp "
                                                                     "takes the default for {who}.", who=name,
                                                                     until=when(away.until))))
    return notes


@after_post
def away_after(post: Post) -> None:
    """After every post: what a post made wait for an away player's character follows the
    policy too (an attack on them while they are away); under ``ally``, a mail to their
    character goes to the ally (or the GM) as well."""
    if not post.play.away:
        return
    hold(post)
    if policy(post) != "ally":
        return
    tells = []
    for tell in post.tells:
        extra = []
        for name in tell.to:
            away = away_for(post, name) if name != GM else None
            if away is not None:
                extra.append(away.ally or GM)
        if extra:
            tell = Tell(to=tuple(dict.fromkeys([*tell.to, *extra])), subject=tell.subject,
                        text=Joined([tell.text, Msg("\n(Sent to the ally too: {who} is away.)\n",
                                                    who=", ".join(n for n in tell.to if away_for(post, n)))]),
                        refs=tell.refs)
        tells.append(tell)
    post.tells[:] = tells


def away_lines(post: Post) -> list[str]:
    """``/table``'s lines: who is away until when."""
    lines = []
    for a in away_now(post):
        fields = dict(who=who_is(post, a), until=when(a.until), note=a.note, ally=a.ally)
        ally = a.ally and policy(post) == "ally"
        if a.note:
            lines.append(Msg('Away: {who} until {until} ("{note}"), {ally} answers for them.', **fields) if ally else
                         Msg('Away: {who} until {until} ("{note}").', **fields))
        else:
            lines.append(Msg("Away: {who} until {until}, {ally} answers for them.", **fields) if ally else
                         Msg("Away: {who} until {until}.", **fields))
    return lines
