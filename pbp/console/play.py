"""``pbp table``, ``roll``, ``process``, ``tick``, ``outbox``, ``verify`` and ``archive``:
play and its records from the command line."""
from __future__ import annotations

import sys
from pathlib import Path

from pbp.console.common import (
    EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BAD_INPUT, open_config, DICE_FORMAT, parse_dice, read_posts,
    print_json
)
from pbp.errors import CommandError, DiceExhausted, PbpError, RulesError
from pbp.textsafety import shorten



def cmd_table(args) -> int:
    """What the campaign's table looks like now, as the GM sees it (``/table`` by the GM)."""
    from pbp.campaigns import get_campaign
    from pbp.flow.commit import read_post
    from pbp.flow.context import Context
    from pbp.play.overview import overview, overview_lines, to_json

    from pbp.rules.dice import RandomDice

    config = open_config(args)
    post = read_post(get_campaign(args.campaign), Context(config=config, dice=RandomDice()))
    view = overview(post, gm=True)
    if args.json:
        print_json(to_json(view))
    else:
        print("\n".join(overview_lines(view, post.system.ladder)))
    return 0


def cmd_roll(args) -> int:
    """A roll outside any campaign, with ``--system``'s dice: ``pbp roll 4dF+2``, ``pbp roll
    2d10``; ``pbp roll --system d10 6d10`` counts the d10s as hits (a system refuses dice it
    does not use, as ``/roll`` does)."""
    from pbp.parser import parse_command
    from pbp.rules.actions import resolve
    from pbp.rules.state import Character, Table
    from pbp.rules.systems import get_system
    from pbp.render import amount, faces

    expr = " ".join(args.expr)
    cmd = parse_command("/roll " + expr)
    table = Table(system=args.system, characters={"you": Character(name="you", skills={})})
    if getattr(cmd, "skill", None):
        print("error: pbp roll outside a campaign takes dice only, e.g. pbp roll 4dF+2", file=sys.stderr)
        return EXIT_BAD_INPUT
    system = get_system(args.system)
    try:
        res = resolve(cmd, table, parse_dice(args.dice), "you", system)
    except DiceExhausted as exc:
        example = "pbp roll --system d10-pool 6d10 --dice '8 9 3 10 1 5'" if system.dice.name != "4dF" else \
            "pbp roll 4dF --dice 0++-"
        raise PbpError(f"--dice: {exc}", hint=f"give one throw of the same dice, e.g. {example}") from None
    except RulesError as exc:        # the example in the command line's own words
        if exc.example.startswith("/roll "):
            exc.example = f"pbp roll --system {system.name} {exc.example.removeprefix('/roll ')}"
        raise
    if args.json:
        print_json(res.to_dict())
    else:
        # the faces and the total as the system counts them
        print(f"{expr}: {faces(res.effort.dice, system)} = {amount(res.effort.total, res.effort, system)}")
    return 0


def cmd_process(args) -> int:
    """Run saved .eml files through the daemon's pipeline."""
    from pbp.flow.context import Context
    from pbp.pipeline import process_message

    dice = parse_dice(args.dice)
    posts = read_posts(args.files)
    config = open_config(args)
    ctx = Context(config=config, dice=dice)
    reader = _reader(args)
    members = _member_addresses(args) if reader is not False else frozenset()
    worst, stopped = 0, None
    for path, raw in posts:
        try:
            outcome = process_message(raw, ctx, campaign_slug=args.campaign)
        except DiceExhausted as exc:        # nothing of the post was kept, no reply written
            stopped = PbpError(f"{path}: --dice: {exc}; nothing of this post (nor of those after it) "
                               "was applied", hint=DICE_FORMAT)
            break
        if reader is not False:         # --as-player / --audience table: what that reader may know
            shown = outcome.read_by(reader, members)
            if args.json:
                print_json(shown)
            else:
                _print_outcome(path, outcome, shown["replies"])
        elif args.json:
            print_json(outcome.to_dict())
        else:
            _print_outcome(path, outcome)
        if outcome.status == "rejected":
            worst = EXIT_BAD_INPUT      # the post was answered with why; nothing of it applied
    if not args.no_send:
        from pbp.delivery import deliver_outbox

        deliver_outbox(config)
        print("replies sent (pbp process sends them at once; --no-send leaves them in the outbox)",
              file=sys.stderr)
    if stopped is not None:
        raise stopped
    return worst


def _reader(args) -> str | None | bool:
    """Whom ``pbp process`` shows its outcome to: False for the operator (everything), None
    for anyone at the table (``--audience table``), or a member's address (``--as-player``:
    an address, or the name of the character they play)."""
    if args.audience == "table":
        return None
    if not args.as_player:
        return False
    from pbp.campaigns import get_campaign
    from pbp.store import models as m

    campaign = get_campaign(args.campaign)
    wanted = args.as_player.strip()
    members = list(m.Member.select().where(m.Member.campaign == campaign))
    found = next((mb for mb in members if mb.email.casefold() == wanted.casefold()), None)
    if found is None:
        played = [ch.player for ch in m.Character.select().where(m.Character.campaign == campaign)
                  if ch.player and ch.name.casefold() == wanted.casefold()]
        found = next((mb for mb in members if played and mb.email.casefold() == played[0].casefold()), None)
    if found is None:
        players = sorted(mb.email for mb in members if mb.role != "gm")
        raise PbpError(f'--as-player {shorten(wanted)}: no player of {campaign.slug} by that address or character',
                       hint=f"--as-player {players[0] if players else 'ruth@example.org'} (or the name of their "
                            "character)")
    if found.role == "gm":
        raise PbpError(f"--as-player {shorten(wanted)} is the GM, who may know everything",
                       hint="leave out --as-player for the whole record")
    return found.email


def _member_addresses(args) -> frozenset[str]:
    from pbp.campaigns import get_campaign
    from pbp.store import models as m

    campaign = get_campaign(args.campaign)
    return frozenset(mb.email.casefold() for mb in m.Member.select().where(m.Member.campaign == campaign))


def _print_outcome(path, outcome, replies=None) -> None:
    from pbp.store import models as m

    print(f"== {path}: {outcome.status}" + (f" ({outcome.reason})" if outcome.reason else ""))
    for reply in outcome.replies if replies is None else replies:
        row = m.OutboxMail.get(m.OutboxMail.message_id == reply["message_id"])
        import email
        from email import policy

        from pbp.render import plain_text

        print(f"-- reply to {', '.join(reply['to'])}: {reply['subject']}")
        if row.channel == "discourse":    # a forum post's request (pbp.forum.byapi)
            from pbp.forum.byapi import outbound_of

            print(outbound_of(row.raw).raw)
            continue
        print(plain_text(email.message_from_string(row.raw, policy=policy.default)))


def cmd_tick(args) -> int:
    """Run the deadline job once, as the daemon does every minute: reminders and defaults
    (defences, absorptions, handoffs, compels...) due at ``--at`` (default: now), then deliver."""
    from datetime import datetime, timezone

    from pbp.flow.context import Context
    from pbp.flow.deadlines import apply_deadlines
    from pbp.store import models as m

    config = open_config(args)
    if args.at:
        try:
            at = datetime.fromisoformat(args.at.replace("Z", "+00:00"))
        except ValueError:
            raise CommandError(f"--at {args.at!r} is not a date and time",
                               expected="ISO 8601, e.g. 2026-12-01T18:00 (UTC)", example="pbp tick --at 2026-12-01T18:00")
        if at.tzinfo is not None:
            at = at.astimezone(timezone.utc).replace(tzinfo=None)
    else:
        at = m.utcnow()
    ctx = Context(config=config, dice=parse_dice(args.dice), clock=lambda: at)
    before = m.OutboxMail.select(m.OutboxMail.id).order_by(m.OutboxMail.id.desc()).first()
    due = apply_deadlines(ctx)
    written = m.OutboxMail.select().where(m.OutboxMail.id > (before.id if before else 0)).count()
    print(f"{at:%Y-%m-%d %H:%M} UTC: {due} campaign{'s' if due != 1 else ''} had something due; "
          f"{written} mail{'s' if written != 1 else ''} written")
    if not args.no_send:
        from pbp.delivery import deliver_outbox

        deliver_outbox(config)
    return 0


def cmd_outbox(args) -> int:
    """What is waiting to be sent or failed for good, and why; --retry puts failed mail back."""
    from pbp.store import models as m

    open_config(args)
    if args.retry:
        n = (m.OutboxMail.update(status="pending", next_attempt_at=m.utcnow(), attempts=0)
             .where(m.OutboxMail.status == "failed").execute())
        print(f"{n} failed mail{'s' if n != 1 else ''} put back in the queue")
    rows = list(m.OutboxMail.select().where(m.OutboxMail.status != "sent").order_by(m.OutboxMail.id))
    if not rows:
        print("the outbox is empty: every reply was sent")
    for row in rows:
        print(f"{row.status:8} {row.created_at:%Y-%m-%d %H:%M} to {', '.join(row.recipients)}: {row.subject}"
              + (f"\n         attempts {row.attempts}, next {row.next_attempt_at:%Y-%m-%d %H:%M}; last error: {row.last_error}"
                 if row.attempts else ""))
    return 0


def cmd_verify(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.store import models as m
    from pbp.store.repo import verify_ledger

    if args.mails is not None:
        return _verify_mails(args.mails)
    open_config(args)
    campaigns = [get_campaign(args.campaign)] if args.campaign else list(m.Campaign.select())
    bad = 0
    for c in campaigns:
        problems = verify_ledger(c)
        count = m.RollRecord.select().where((m.RollRecord.campaign == c)
                                            & m.RollRecord.action.not_in(("dice_commit", "dice_reveal"))).count()
        print(f"{c.slug}: {count} rolls, " + ("ledger intact" if not problems else f"{len(problems)} problems"))
        for p in problems:
            print("  " + p)
        bad += len(problems)
    if bad:
        print(f"error: the dice ledger has {bad} problem{'s' if bad != 1 else ''} (listed above)", file=sys.stderr)
    return EXIT_FAILED if bad else EXIT_OK


def _verify_mails(folder: str) -> int:
    """``pbp verify --mails DIR``: the committed dice of the saved mails under DIR, checked by
    the standalone verifier shipped with pbp (pbp/verify_dice.py; docs/verify.md)."""
    from pathlib import Path

    from pbp import verify_dice

    if not Path(folder).is_dir():
        print(f"error: --mails {folder}: no such folder\n  expected: a folder of saved mails (.eml files)\n"
              f"  example:  pbp verify --mails ~/mail/chicago", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_FAILED if verify_dice.report(Path(folder)) else EXIT_OK


def cmd_archive(args) -> int:
    """The campaign's archive (docs/archive.md): a static site in --out, or with --markdown
    a zip of Markdown scenes and sheets there; the players' view unless --gm."""
    from pbp.archive.export import export_zip
    from pbp.archive.site import write_site
    from pbp.campaigns import get_campaign

    open_config(args)
    campaign = get_campaign(args.campaign)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        from pbp.errors import ConfigError

        raise ConfigError(f"--out {out}: this is a file, and the archive needs a folder",
                          hint="pbp archive --out archive/chicago (made if need be)")
    view = "the GM's archive (everything, hidden things included)" if args.gm else "the players' archive"
    if args.markdown:
        out.mkdir(parents=True, exist_ok=True)
        path = out / f"{campaign.slug}{'-gm' if args.gm else ''}-archive.zip"
        path.write_bytes(export_zip(campaign, gm=args.gm))
        print(f"{campaign.slug}: {view} as Markdown written to {path}")
    else:
        files = write_site(campaign, out, gm=args.gm)
        print(f"{campaign.slug}: {view} written to {out} ({len(files)} files; open {out / 'index.html'})")
    return 0
