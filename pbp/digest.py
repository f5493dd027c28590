"""The daily digest (issue 24, item 5): one mail a day for a member whose delivery mode is
``digest`` (:mod:`pbp.play.mailing`), instead of the table's mails.

When a post's table mail is held back for such a member, what it said is kept for them
(:func:`hold`, a ``DigestItem`` row: the text every member got, so nothing the table's mail
left out — a GM-only line, a private mail, a secret roll's dice — can be in it). When their
digest is due (``digest_at``, an hour of their own day, moved past their quiet hours:
:func:`pbp.play.people.next_digest`), the deadline job (:func:`pbp.flow.deadlines.apply_deadlines`,
run each minute by the daemon's scheduler and by ``pbp tick``) writes one mail with those
mails in order, the table's state and what they owe (:func:`compose`), and the rows go.
No mail is sent when nothing was held: the next digest is simply due a day later. A member
who leaves the digest for another mode gets what it still holds in a last one, at once.
"""
from __future__ import annotations

from pbp.i18n import CommandLine, Msg, Msgs, of_settings
from pbp.play import pace as pacing
from pbp.play.core import GM, Post, status_lines
from pbp.play.dates import when
from pbp.play.mailing import players_of, turn_holders
from pbp.play.people import next_digest
from pbp.rules.compels import CompelState
from pbp.store import models as m

MOST_ITEMS = 200
"""At most this many mails in one digest (the oldest first; the rest come in the next)."""


def hold(campaign: m.Campaign, emails, *, at, subject: str, text: str) -> None:
    """Keep a table mail for the digest of each of ``emails``."""
    rows = [{"campaign": campaign.id, "email": e, "at": at, "subject": subject or "", "text": text} for e in emails]
    if rows:
        m.DigestItem.insert_many(rows).execute()


def due(post: Post) -> list[str]:
    """The members whose digest is due now."""
    return sorted(email for email, s in post.play.people.items()
                  if s.digest_due is not None and s.digest_due <= post.now)


def compose(post: Post, campaign: m.Campaign, email: str, gms: set[str],
            readers: set[str] | None) -> tuple[str, str] | None:
    """(subject, text) of ``email``'s digest, or None when nothing was held for them; either
    way the mails it holds are gone and their next digest is scheduled. ``readers`` are who
    read the scene in play (None: everyone), so its state is shown only to them."""
    settings = post.play.people[email]
    settings.digest_due = next_digest(settings, post.now) if settings.mail == "digest" else None
    rows = list(m.DigestItem.select().where((m.DigestItem.campaign == campaign) & (m.DigestItem.email == email))
                .order_by(m.DigestItem.id).limit(MOST_ITEMS))
    if not rows:
        return None
    m.DigestItem.delete().where(m.DigestItem.id.in_([r.id for r in rows])).execute()
    n = len(rows)
    language = of_settings(campaign.settings)     # the digest in the campaign's language
    say = language.say
    out = [say(Msgs("{name}: {n} mail of the table since your last digest, in order.",
                    "{name}: {n} mails of the table since your last digest, in order.", n, name=campaign.name)), ""]
    for row in rows:
        out.append(f"--- {row.subject or campaign.name} · {language.when(row.at)} ---")
        out += [line for line in row.text.rstrip().splitlines() if not line.startswith("pbp-dice/")]
        out.append("")
    state = status_lines(post) if readers is None or email in readers else []
    if state:
        out += [say(Msg("The table now:"))] + [f"  {say(line)}" for line in state] + [""]
    owed = owes(post, email, gms)
    out.append(say(Msg("What you owe:")))
    out += [f"  {say(line)}" for line in owed] or ["  " + say(Msg("nothing"))]
    out += ["", say(Msg("You read the table in a daily digest; {command} brings every mail back.",
                        command=CommandLine("/settings mail=every")))]
    subject = say(Msgs("Your digest: {n} mail of the table", "Your digest: {n} mails of the table", n))
    return subject, "\n".join(out).rstrip() + "\n"


def owes(post: Post, email: str, gms: set[str]) -> list[str]:
    """What ``email`` owes the table now (their characters', or as GM the GM's), each with
    its deadline: a defence or absorption, a compel to answer or approve, their turn or
    their post in a paced scene."""
    is_gm = email in gms
    mine = {ch.name for ch in post.table.characters.values() if (ch.player or "").lower() == email}

    def theirs(name: str) -> bool:
        return name in mine or (is_gm and email in players_of(post, [name], gms) and name not in _pcs(post))

    lines = []
    for p in post.play.pending:
        if theirs(p.target):
            fields = dict(who=p.target, id=p.id, what=p.summary or p.attacker, by=when(p.deadline))
            lines.append(Msg("{who}'s defence #{id} ({what}), by {by}", **fields) if p.kind == "defend" else
                         Msg("{who}'s absorption #{id} ({what}), by {by}", **fields))
    for x in post.play.compels:
        by = Msg(", by {by}", by=when(x.deadline)) if x.deadline is not None else ""
        fields = dict(id=x.id, target=x.target, aspect=x.aspect, by=by)
        if x.state == CompelState.OFFERED and theirs(x.answerer):
            lines.append(Msg('compel #{id} on {target}\'s "{aspect}": accept or refuse{by}', **fields))
        elif x.state == CompelState.AWAITING_GM and is_gm:
            lines.append(Msg('compel #{id} on {target}\'s "{aspect}": approve or deny{by}', **fields))
    for turn in turn_holders(post):
        if theirs(turn) or (turn == GM and is_gm):
            lines.append(Msg("{who}: it is your turn", who=Msg("GM") if turn == GM else turn))
    pace = post.play.pace
    if pace is not None and not pace.order and post.play.conflict is None:
        for seat in pacing.owed(post, pace):
            if seat in mine or (seat == GM and is_gm):
                lines.append(Msg("{who}: a post this round (or /pass)", who=Msg("GM") if seat == GM else seat))
    return lines


def _pcs(post: Post) -> set[str]:
    return {ch.name for ch in post.table.characters.values() if ch.player}
