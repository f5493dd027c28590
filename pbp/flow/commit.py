"""A post opened on its campaign's table and play state, its dice committed, and
committed: the play state saved, the archive kept, the table's reply, the GM's copy and the
private mails written (:func:`commit_post`)."""
from __future__ import annotations

import logging
from datetime import timedelta

from pbp import commands as c
from pbp import faults
from pbp import adapters, digest
from pbp.archive import record as archive
from pbp.config import Config
from pbp.flow.context import Context
from pbp.flow.send import addresses, only_for_gm, send_replies, table_readers, table_sheets, thread_subject
from pbp.i18n import Msg, of_settings
from pbp.play import Author, Post, status_lines
from pbp.play.core import campaign_hours, finish_post
from pbp.play.invoking import open_roll_ids
from pbp.play.state import as_stored, dump_play, load_play, PlayState
from pbp.posts import Audience, NeutralPost, Reply, ThreadRef
from pbp.render import reply_subject
from pbp.rules.dice import RandomDice
from pbp.rules.results import ActionResult
from pbp.rules.systems import campaign_system
from pbp.store import models as m
from pbp.store import repo
from pbp.store.prepared import Dumped, Update
from pbp.store.seeds import FixedNotice, SceneDice
from pbp.views import views

log = logging.getLogger("pbp.pipeline")


#: the end of the subject of the GM's own copy of a post's results
GM_ONLY = Msg(" — for the GM only")


def open_post(campaign: m.Campaign, author: Author, ctx: Context, replied_to: str | None = None, *,
               kept: bool = False) -> Post:
    """The post's view of the campaign: its table and play state, decoded from the database
    or, with ``kept`` (a post that will commit them), the ones the campaign's last post
    left in this process if the database has not changed since (:func:`pbp.store.repo.take_kept`)."""
    system = campaign_system(campaign)
    found = repo.take_kept(campaign) if kept else None
    if found is not None:
        table, play, snap = found.table, found.play, found.snapshot
    else:
        table = repo.load_table(campaign, system.skills)
        play = load_play(campaign.play)
        if not play.rolls_numbered:     # rolls used to show ledger row ids: new numbers start past them
            play.next_id = max(play.next_id, repo.max_roll_row(campaign) + 1)
            play.rolls_numbered = True
        snap = repo.snapshot(table)
    post = Post(campaign=campaign, table=table, play=play, author=author, now=ctx.clock(),
                dice=ctx.dice, system=system, settings=ctx.config, replied_to=replied_to)
    post.snapshot = snap
    post.names_at_start = tuple((a.name, a.hidden, a.owner) for a in table.aspects)
    return post


def commit_dice(post: Post, campaign: m.Campaign, ctx: Context, post_id: str, text: str) -> None:
    """Real dice come from the open scene's committed seed (:mod:`pbp.store.seeds`), derived
    from this post's id and text; fixed dice (``--dice``, ``PBP_DICE``) override that."""
    if isinstance(ctx.dice, RandomDice):
        post.seeds = SceneDice(campaign, post_id, text, ctx.dice, beacon=ctx.beacon)
        post.seeds.attach(post)
    elif getattr(ctx.dice, "announce", ""):     # the operator's --dice / PBP_DICE: the replies say so
        post.seeds = FixedNotice(ctx.dice.announce)


def read_post(campaign: m.Campaign, ctx: Context) -> Post:
    """The campaign as its GM sees it, for tools that only read (``pbp table``): nothing
    is saved."""
    return open_post(campaign, Author("", "gm"), ctx)


def commit_post(post: Post, campaign: m.Campaign, members: list[Author], ctx: Context, results: list, *,
                 source: NeutralPost | None, commands: list[c.Command] | None, relay: bool,
                 thread: ThreadRef | None = None, thread_subject_: str | None = None,
                 notes: list[str] = ()) -> list[dict]:
    """Persist what a post (or a deadline round) changed, record its rolls in the ledger
    and send its replies (:func:`send_replies`): the result to the table (threaded to ``source``,
    or for a deadline round to ``thread``: the reply that asked, whose subject is
    ``thread_subject_``), then any private ones. Returns what was sent, as the outcome
    lists it."""
    saved = repo.save_table(campaign, post.snapshot, post.table)
    changed_names = saved.changed
    if changed_names:   # every sheet change by play goes into the history (pbp character history)
        from pbp.sheethistory import record_play

        record_play(campaign, post.snapshot, saved, post.table, who=post.author.email or "pbp (deadline)",
                    message_id=source.id if source is not None else None, at=post.now)
    faults.reached("mid_transaction")
    prev = repo.last_ledger_hash(campaign)
    events = post.seeds.events if post.seeds is not None else []
    source_id = source.id if source else None
    for action, detail in (e for e in events if e[0] == "commit"):     # a scene's commitment before its rolls
        prev = repo.record_event(campaign, source_id, "dice_commit", detail, prev).hash
    for res in results:         # the ledger records each roll under the id it took when made
        if isinstance(res, ActionResult):
            if res.roll_id is None:
                raise RuntimeError(f"a roll reached the ledger without its id: {res.command}")
            recorded = res.to_dict()
            proof = post.seeds.proof(res.roll_id) if post.seeds is not None else None
            if proof is not None:
                recorded["effects"] = [*recorded.get("effects", []), {"kind": "committed_dice", "text": "", "data": proof}]
            if res.roll_id in post.secret_rolls:     # the players' archive leaves it out until revealed
                recorded["secret"] = True
            row = repo.record_roll(campaign, source_id, recorded, prev, res.roll_id)
            prev = row.hash
            post.ledger[id(res)] = (res.shown_id, row.hash[:8])
            post.__dict__.setdefault("_recorded", {})[id(res)] = recorded    # what the message row need not repeat
    for action, detail in (e for e in events if e[0] == "reveal"):     # and its seed after them
        prev = repo.record_event(campaign, source_id, "dice_reveal", detail, prev).hash
    finish_post(post)           # the after_post steps of pbp.play.sequence.SEQUENCE

    # The table's mail shows what every member may know; what it leaves out goes to the GM
    # in a mail of their own (pbp.views says who is told what).
    seen = views(results, post.table, names_at_start=post.names_at_start, author_is_gm=post.author.is_gm,
                 secret_rolls=post.secret_rolls)
    table_ledger = {id(shown): post.ledger[id(res)] for shown, res in zip(seen.table, results) if id(res) in post.ledger}
    # the dice proofs are the rolls' own ids (a revised roll shows the id it revised)
    table_rolls = {res.roll_id for shown, res in zip(seen.table, results) if id(res) in post.ledger}
    changed = table_sheets(post, changed_names)
    subject = thread_subject(source, campaign) if source is not None else thread_subject_
    where = source.thread if source is not None else thread
    # the thread map names only what is still open, so it does not grow with the campaign
    open_ids = open_roll_ids(post.play)
    refs = [a.ref for a in post.asks] + [f"roll:{rid}" for rid, _ in post.ledger.values() if rid in open_ids]
    replies = []
    shown = ""      # the table's reply in Markdown, kept for the archive (pbp.archive.record)
    # a deadline round with only reminders tells only; a post with only the GM's business, too
    if (source is not None or results or post.asks) and not only_for_gm(seen, post, changed, source, commands, relay):
        forum = adapters.writer(campaign, ctx.config, ctx.adapters).markdown   # a forum reads Markdown
        body = ctx.renderer.result(mail=source, campaign=campaign, system=post.system, results=seen.table, ledger=table_ledger,
                                   commands=commands, sheets=changed, relay=relay, asks=post.asks,
                                   status=status_lines(post), notes=notes, markdown=True,
                                   proof=dice_footer(post, table_rolls))
        shown = body[2]
        post.shown_results = [r.to_dict() for r in seen.table]
        for d, res in zip(post.shown_results, seen.table):
            if id(res) in table_ledger and d.get("action") != "secret_roll":   # a secret roll's hash is kept too
                d["ledger"] = table_ledger[id(res)][1]
        readers = table_readers(post, campaign, members, source, results, forum)
        digest.hold(campaign, readers.digest, at=post.now, subject=subject or "", text=body[0])
        replies.append(Reply(kind="result", audience=Audience.TABLE, to=readers.to,
                             text=body[0], html=body[1], markdown=body[2] if forum else "", thread=where,
                             thread_subject=subject, refs=tuple(refs)))
    for tell in post.tells:
        to = addresses(post, members, tell.to)
        if to:
            text, html = ctx.renderer.tell(campaign=campaign, tell=tell)
            replies.append(Reply(kind="tell", audience=Audience.GM if list(tell.to) == ["GM"] else Audience.PLAYER,
                                 to=tuple(to), text=text, html=html, thread=where,
                                 subject=of_settings(campaign.settings).say(tell.subject),
                                 refs=tuple(tell.refs)))
    gms = sorted({mb.email for mb in members if mb.is_gm})
    gm_copy = ""
    if seen.gm and gms:             # what the table's mail left out, for the GM (pbp.views)
        text, html = ctx.renderer.result(mail=source, campaign=campaign, system=post.system, results=seen.gm,
                                         ledger=post.ledger, commands=None, sheets=[], relay=False, template="gm_copy")
        gm_copy = ctx.renderer.result(mail=source, campaign=campaign, system=post.system, results=seen.gm,
                                      ledger=post.ledger, commands=None, sheets=[], relay=False, markdown=True)[2]
        replies.append(Reply(kind="tell", audience=Audience.GM, to=tuple(gms), text=text, html=html, thread=where,
                             subject=reply_subject(subject or of_settings(campaign.settings).say(Msg("Deadlines")),
                                                   campaign.name, of_settings(campaign.settings).say(GM_ONLY))))
    sent = send_replies(replies, campaign, source.id if source is not None else None, ctx, threads=post.play.threads,
                 people=post.play.people)
    post.__dict__["_archived"] = archive.keep(
        campaign, post=post, source=source, commands=commands, seen=seen, shown=shown, gm=gm_copy,
        private=[{"to": list(t.to), "subject": t.subject, "text": t.text} for t in post.tells], sent=sent)
    play = save_play(campaign, post.play, ctx.config, table_written=saved.wrote)
    repo.keep(campaign, post.table, saved, play)     # for its next post (pbp.store.repo)
    return sent


def dice_footer(post: Post, table_rolls: set[int]) -> list[str]:
    """The reply's ``pbp-dice/1`` lines (:mod:`pbp.verify_dice`): commitments, reveals and
    the throws of the rolls the table's mail shows; with fixed dice, a line saying so."""
    if post.seeds is None:
        return []
    return post.seeds.footer(table_rolls - set(post.secret_rolls), set(post.secret_rolls))


_SAVE_PLAY = Update(m.Campaign, ("play", "next_deadline", "version"))


def save_play(campaign: m.Campaign, play: PlayState, config: Config, *, table_written: bool = False) -> PlayState:
    """Write the play state if it changed; if it or the table did (``table_written``), the
    campaign takes a fresh version (what a kept table is checked by, pbp.store.repo).
    Returns the play state as a load would read it back (its changed parts decoded from what
    was written: their maps in the stored order, which replies show; :func:`as_stored`)."""
    data = dump_play(play)
    changed = data != campaign.play     # as stored: the keys sorted (JSONField)
    if changed or table_written:
        text = Dumped(m.Campaign.play.db_value(data))
        if changed:
            play = as_stored(play, data, campaign.play)
        due = play.next_deadline(timedelta(hours=campaign_hours(campaign, config, "reminder_hours")))
        version = repo.new_version()
        _SAVE_PLAY(campaign.id, play=text, next_deadline=due, version=version)
        campaign.play, campaign.version = data, version
    return play
