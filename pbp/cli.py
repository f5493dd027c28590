"""The ``pbp`` command line: set up a table, import characters, process posts offline,
and run the daemon."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from pbp.config import DEFAULT_CONFIG_NAME, Config, load_config
from pbp.errors import CommandError, DiceExhausted, PbpError, RulesError, SheetError
from pbp.logs import quiet_libraries
from pbp.textsafety import shorten
from pbp.transport.errors import TransportError
from pbp.transport.oauth import OAuthError

log = logging.getLogger("pbp")

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BAD_INPUT = 0, 1, 2, 3
"""Exit statuses: done; a failure (a server, the database, a check, a bug); the command line
itself is wrong (argparse's own 2); the input was refused (a sheet file, a post, a value,
a name, a path): a script can tell "fix what you gave" from "try again later"."""

EXIT_CODES = """exit status:
  0  done
  1  failed: a server, the database or a check did not work (the error says which)
  2  usage: an option or argument pbp does not take (see pbp COMMAND --help)
  3  bad input: a sheet file, a post, a value or a name was refused; nothing changed"""


# --------------------------------------------------------------------------- helpers


def _config_path(args) -> Path:
    return Path(args.config or os.environ.get("PBP_CONFIG") or DEFAULT_CONFIG_NAME)


def _open(args) -> Config:
    from pbp.store.db import open_database

    config = load_config(_config_path(args))
    open_database(config.database_url)
    return config


def _system_name(word: str) -> str:
    """A system named by name or alias (``dfc``), as its registered name; an unknown word is
    left for argparse's choices to refuse with the list."""
    from pbp.rules.systems import UnknownSystem, get_system

    try:
        return get_system(word).name
    except UnknownSystem:
        return word


#: How --dice is written (README, "Fixed dice").
DICE_FORMAT = ('one group of faces per throw, groups separated by commas, each with exactly the dice the roll '
               'throws: Fate faces "0++-" (4dF), numbered faces separated by spaces "8 9 3 10 1 5" (6d10); '
               'e.g. --dice "0++-,+0-0" or --dice "8 9 3 10 1 5,2 7"')


def _dice(spec: str | None):
    from pbp.rules.dice import FixedDice, RandomDice

    where = "--dice" if spec is not None else "PBP_DICE"
    spec = spec if spec is not None else os.environ.get("PBP_DICE")
    if not spec:
        return RandomDice()
    try:
        return FixedDice(spec, announce=where)
    except ValueError as exc:
        raise PbpError(f"{where} {shorten(spec)!r}: {exc}", hint=DICE_FORMAT) from None


def _read_posts(paths: list[str]) -> list[tuple[str, bytes]]:
    """Every message file named, read before any is processed: a missing, unreadable or
    directory path stops the run with one line each, before anything changes."""
    read, problems = [], []
    for path in paths:
        if path == "-":
            read.append((path, sys.stdin.buffer.read()))
            continue
        try:
            read.append((path, Path(path).read_bytes()))
        except IsADirectoryError:
            problems.append(f"{path} is a directory; give the message files in it, e.g. {path.rstrip('/')}/*.eml")
        except OSError as exc:
            problems.append(f"cannot read {path}: {exc.strerror or exc}")
    if problems:
        raise PbpError("; ".join(problems), hint="pbp process takes saved mails (.eml files), or - for standard input")
    return read


def _print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str))


# --------------------------------------------------------------------------- commands


def cmd_init(args) -> int:
    """Write a config file (config.example.toml with the given settings made: every other
    option stays in it, commented) and create the database; ``--example`` prints the example."""
    from pbp import oauth_signin
    from pbp.config_template import config_text, example_text
    from pbp.store.db import open_database

    if args.example:
        print(example_text(), end="")
        return 0
    path = _config_path(args)
    if (args.client_id or args.tenant) and not args.oauth:
        raise CommandError("--client-id and --tenant go with --oauth microsoft|google",
                           expected="--oauth PROVIDER", example=oauth_signin.EXAMPLE)
    if path.exists() and not args.force:
        print(f"{path} exists already; leaving it (use --force to overwrite)")
    else:
        if args.oauth:
            oauth_signin.check_new_config(args)
            hosts = oauth_signin.PROVIDER_HOSTS[args.oauth]
            args.imap, args.smtp = args.imap or hosts[0], args.smtp or (None if args.imap else hosts[1])
        if (args.smtp or args.username) and not args.imap:
            raise CommandError("--smtp and --username go with --imap", expected="the IMAP server's host name",
                               example="pbp init --imap imap.example.org --smtp smtp.example.org "
                                       "--username table@example.org")
        domain = args.domain or (args.username.rpartition("@")[2] if args.username and "@" in args.username
                                 else "pbp.localhost")
        path.parent.mkdir(parents=True, exist_ok=True)
        oauth = dict(provider=args.oauth, client_id=args.client_id, tenant=args.tenant,
                     token_file=oauth_signin.token_file_beside(args.database)) if args.oauth else None
        path.write_text(config_text(domain=domain, database=args.database, imap=args.imap, smtp=args.smtp,
                                    username=args.username, poll_seconds=None if args.imap else 2, oauth=oauth),
                        encoding="utf-8")
        print(f"wrote {path}")
    config = load_config(path)
    open_database(config.database_url)
    if config.transport == "maildir":
        from pbp.transport.maildir import ensure_maildir

        ensure_maildir(config.maildir.inbox)
        ensure_maildir(config.maildir.outbox)
    print(f"database ready at {config.database_url}")
    if args.oauth:
        oauth_signin.sign_in(config, args.oauth)
        print("next: `pbp check-config` logs in to IMAP and SMTP with it")
    elif config.transport == "imap":
        print("next: export PBP_IMAP_PASSWORD and PBP_SMTP_PASSWORD (or set password_file), "
              "then `pbp check-config`")
    return 0


def cmd_campaign_create(args) -> int:
    from pbp.campaigns import create_campaign

    config = _open(args)
    from pbp.campaigns import bind_forum, forum_from_url
    from pbp.errors import ConfigError
    from pbp.store import models as m

    forum = None
    if args.forum:
        if not args.forum_bot:
            raise ConfigError("--forum needs --forum-bot: the bot account's username on the forum",
                              hint="e.g. --forum https://forum.example.org/c/game-table/5 --forum-bot pbp-bot")
        site, list_id, category_id = forum_from_url(args.forum)
        forum = dict(site=site, list_id=args.forum_list_id or list_id, bot=args.forum_bot,
                     notify_from=args.forum_from or "", category_id=category_id, names=args.forum_names)
    elif args.forum_bot or args.forum_list_id or args.forum_from:
        raise ConfigError("--forum-bot, --forum-list-id and --forum-from go with --forum CATEGORY-URL",
                          hint="e.g. --forum https://forum.example.org/c/game-table/5 --forum-bot pbp-bot")
    with m.db.atomic():   # a campaign whose forum binding is refused is not left half made
        c = create_campaign(args.slug, args.name or args.slug, system=args.system, address=args.address,
                            delivery=args.delivery, gms=args.gm or [], players=args.player or [],
                            language=args.language)
        if forum:
            bind_forum(c, **forum)
    language = f", {c.settings['language']}" if (c.settings or {}).get("language") else ""
    print(f"campaign {c.slug} ({c.name}, {c.system}, {c.delivery} mode{language}) created")
    if forum:
        print(f"  plays in the forum category {forum_path(c, config)}; "
              "add members with --forum-username (docs/forum.md)")
    return 0


def cmd_campaign_member(args) -> int:
    from pbp.campaigns import add_member, get_campaign

    _open(args)
    member = add_member(get_campaign(args.campaign), args.email, args.role, forum_username=args.forum_username,
                        forum_name=args.forum_name)
    names = [n for n in (member.forum_username, member.forum_name) if n]
    on_forum = f", {' / '.join(names)} on the forum" if names else ""
    print(f"{member.email} is a {member.role} of {member.campaign.slug}{on_forum}")
    return 0


def cmd_campaign_set(args) -> int:
    from pbp.campaigns import get_campaign, set_campaign

    _open(args)
    from pbp.store import models as m
    from pbp.textsafety import visible

    campaign = get_campaign(args.campaign)
    done = []
    with m.db.atomic():  # all the settings or none: one bad value leaves the campaign as it was
        for pair in args.settings:
            key, sep, value = pair.partition("=")
            if not sep:
                raise PbpError(f'"{visible(pair)}" is not KEY=VALUE',
                               hint="e.g. pbp campaign set reaction_deadline_hours=24")
            carried = set_campaign(campaign, key.strip(), value.strip())
            done.append(f"{campaign.slug}: {key.strip()} = {value.strip()}")
            done += [f"  {line}" for line in carried or ()]
    print("\n".join(done))
    return 0


def cmd_campaign_member_set(args) -> int:
    from pbp.campaigns import get_campaign, set_member

    _open(args)
    from pbp.store import models as m

    with m.db.atomic():
        shown = set_member(get_campaign(args.campaign), args.email, args.settings)
    print(f"{args.email.strip().lower()}: {shown}")
    return 0


def cmd_campaign_list(args) -> int:
    from pbp.settingvalues import written
    from pbp.store import models as m

    _open(args)
    for c in m.Campaign.select().order_by(m.Campaign.slug):
        members = ", ".join(f"{mb.email} ({mb.role})" for mb in c.members)
        own = "".join(f" {k}={written(v)}" for k, v in sorted((c.settings or {}).items()))
        if c.forum:
            own += f" forum=<{c.forum['list_id']}>"
        print(f"{c.slug}: {c.name} [{c.system}, {c.delivery}{own}] {members}")
    return 0


def cmd_character_import(args) -> int:
    """Import every sheet file given and report each: imported, or all its problems. Exit
    status 3 (bad input) when any file failed (the others are imported all the same)."""
    from pbp.campaigns import get_campaign, import_sheets

    _open(args)
    campaign = get_campaign(args.campaign)
    notes: dict[str, list[str]] = {}
    report = import_sheets(campaign, args.files, replace=args.replace, notes=notes, player=args.player)
    failed = 0
    for path, outcome in report:
        if isinstance(outcome, SheetError):
            failed += 1
            _print_sheet_error(outcome)
        else:
            print(f"{path}: imported {outcome.name} ({outcome.kind}) into {campaign.slug}")
            for line in notes.get(path, ()):
                print(f"{path}: not imported: {line}")
    if len(report) > 1:
        said = f"{len(report) - failed} of {len(report)} sheets imported" + (f", {failed} failed" if failed else "")
        print(f"error: {said}" if failed else said, file=sys.stderr if failed else sys.stdout)
    return EXIT_BAD_INPUT if failed else EXIT_OK


HAND = "pbp character"   # who made a change by hand on the server, in the history


def _changed(name: str, lines: list[str]) -> int:
    if not lines:
        print(f"{name}: nothing changed")
    for line in lines:
        print(f"{name}: {line}")
    return 0


def cmd_character_list(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.store import repo

    _open(args)
    table = repo.load_table(get_campaign(args.campaign))
    for ch in sorted(table.characters.values(), key=lambda x: (x.kind != "pc", x.name)):
        who = f" ({ch.player})" if ch.player else ""
        print(f"{ch.name}: {ch.kind}{who} · FP {ch.fate_points} · refresh {ch.refresh}")
    return 0


def cmd_character_export(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import export_sheet

    _open(args)
    if args.fari:
        from pbp.sheetedit import export_fari

        text = export_fari(get_campaign(args.campaign), args.name)
    else:
        text = export_sheet(get_campaign(args.campaign), args.name)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"{args.name} written to {args.out}")
    else:
        print(text, end="")
    return 0


def cmd_character_set(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import set_values

    _open(args)
    return _changed(args.name, set_values(get_campaign(args.campaign), args.name, args.values, who=HAND + " set"))


def cmd_character_edit(args) -> int:
    """The sheet as TOML in $EDITOR; saved, it is validated and only the differences applied.
    A sheet that breaks a rule changes nothing; the file is kept for another go."""
    import shlex
    import subprocess
    import tempfile

    from pbp.campaigns import get_campaign
    from pbp.sheetedit import apply_sheet, export_sheet
    from pbp.sheetfile import read_toml

    _open(args)
    campaign = get_campaign(args.campaign)
    text = export_sheet(campaign, args.name, play=True)
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w", suffix=".toml", prefix="pbp-sheet-", delete=False, encoding="utf-8") as f:
        f.write(text)
        path = f.name
    done = subprocess.run([*shlex.split(editor), path])
    if done.returncode != 0:
        print(f"error: the editor ({editor}) exited with status {done.returncode}; nothing changed "
              f"(the sheet is in {path})", file=sys.stderr)
        return EXIT_FAILED
    if Path(path).read_text(encoding="utf-8") == text:
        Path(path).unlink()
        print(f"{args.name}: nothing changed")
        return 0
    try:
        lines = apply_sheet(campaign, args.name, read_toml(path), who=HAND + " edit", how="edit", source=path)
    except (SheetError, PbpError):
        print(f"the edited sheet is kept in {path}: fix it and import the changes with "
              f"pbp character edit again, or copy from it", file=sys.stderr)
        raise
    Path(path).unlink()
    return _changed(args.name, lines)


def cmd_character_history(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetdiff import describe_diff
    from pbp.sheethistory import history, history_name

    _open(args)
    campaign = get_campaign(args.campaign)
    name = history_name(campaign, args.name)
    rows = history(campaign, name)
    if not rows:
        print(f"{name}: no changes recorded")
    for r in rows:
        where = f" (message {r.message_id})" if r.message_id else ""
        mark = " [undone]" if r.undone else ""
        print(f"#{r.id} {r.at:%Y-%m-%d %H:%M} {r.how} by {r.who}{where}{mark}")
        for line in describe_diff(r.before, r.after):
            print(f"    {line}")
    return 0


def cmd_character_undo(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheethistory import undo

    _open(args)
    return _changed(args.name, undo(get_campaign(args.campaign), args.name, who=HAND + " undo"))


def cmd_character_remove(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import remove_character

    _open(args)
    campaign = get_campaign(args.campaign)
    print(f"{remove_character(campaign, args.name, who=HAND + ' remove')} removed from {campaign.slug} "
          "(its history is kept: pbp character history NAME)")
    return 0


def cmd_campaign_remove_member(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import remove_member

    _open(args)
    campaign = get_campaign(args.campaign)
    print(f"{remove_member(campaign, args.email)} is no longer a member of {campaign.slug}")
    return 0


def _print_sheet_error(exc: SheetError) -> None:
    print(f"error: {exc}", file=sys.stderr)
    for problem in exc.problems:
        print(f"  - {problem}", file=sys.stderr)
    if exc.hint:
        print(f"  hint: {exc.hint}", file=sys.stderr)


def cmd_sheet(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheets_view import sheet_dict
    from pbp.render import Renderer
    from pbp.rules.systems import campaign_system
    from pbp.store import repo

    _open(args)
    campaign = get_campaign(args.campaign)
    table = repo.load_table(campaign)
    ch = table.character(args.name)
    if ch is None:
        names = ", ".join(sorted(table.characters)) or "none"
        print(f'error: no character "{shorten(args.name)}" (characters: {names})', file=sys.stderr)
        return EXIT_BAD_INPUT
    sheet = sheet_dict(ch, table)
    if args.json:
        _print_json(sheet)
    else:
        print(Renderer().sheet(sheet, campaign_system(campaign)), end="")     # the campaign's words (early Fate's slots)
    return 0


def cmd_table(args) -> int:
    """What the campaign's table looks like now, as the GM sees it (``/table`` by the GM)."""
    from pbp.campaigns import get_campaign
    from pbp.pipeline import Context, read_post
    from pbp.play.overview import overview, overview_lines, to_json

    from pbp.rules.dice import RandomDice

    config = _open(args)
    post = read_post(get_campaign(args.campaign), Context(config=config, dice=RandomDice()))
    view = overview(post, gm=True)
    if args.json:
        _print_json(to_json(view))
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
        res = resolve(cmd, table, _dice(args.dice), "you", system)
    except DiceExhausted as exc:
        example = "pbp roll --system d10-pool 6d10 --dice '8 9 3 10 1 5'" if system.dice.name != "4dF" else \
            "pbp roll 4dF --dice 0++-"
        raise PbpError(f"--dice: {exc}", hint=f"give one throw of the same dice, e.g. {example}") from None
    except RulesError as exc:        # the example in the command line's own words
        if exc.example.startswith("/roll "):
            exc.example = f"pbp roll --system {system.name} {exc.example.removeprefix('/roll ')}"
        raise
    if args.json:
        _print_json(res.to_dict())
    else:
        # the faces and the total as the system counts them
        print(f"{expr}: {faces(res.effort.dice, system)} = {amount(res.effort.total, res.effort, system)}")
    return 0


def cmd_process(args) -> int:
    """Run saved .eml files through the daemon's pipeline."""
    from pbp.pipeline import Context, process_message

    dice = _dice(args.dice)
    posts = _read_posts(args.files)
    config = _open(args)
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
                _print_json(shown)
            else:
                _print_outcome(path, outcome, shown["replies"])
        elif args.json:
            _print_json(outcome.to_dict())
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

    from pbp.pipeline import Context, apply_deadlines
    from pbp.store import models as m

    config = _open(args)
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
    ctx = Context(config=config, dice=_dice(args.dice), clock=lambda: at)
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

    _open(args)
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
    _open(args)
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

    _open(args)
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


def cmd_run(args) -> int:
    from pbp.daemon import configure_logging, run

    config = _open(args)
    configure_logging("DEBUG" if args.verbose else config.log_level)
    return run(config, dice=_dice(args.dice), once=args.once)


def cmd_check_config(args) -> int:
    """Try everything the daemon will need and say what works, with a hint for what not."""
    import asyncio

    from pbp.daemon import configure_logging
    from pbp.store import models as m

    configure_logging("DEBUG" if args.verbose else "WARNING")  # the check lines say the rest
    results: list[tuple[bool, str]] = []

    def check(label, fn):
        try:
            detail = fn()
        except Warned as exc:
            results.append(("warn", f"{label}: {exc}" + (f"\n      hint: {exc.hint}" if exc.hint else "")))
            return True
        except PbpError as exc:
            results.append((False, f"{label}: {exc}" + (f"\n      hint: {exc.hint}" if exc.hint else "")))
            return False
        except OSError as exc:
            results.append((False, f"{label}: {exc}"))
            return False
        results.append((True, f"{label}" + (f": {detail}" if detail else "")))
        return True

    config = None

    def load():
        nonlocal config
        config = load_config(_config_path(args))
        return str(_config_path(args))

    if not check("config file", load):
        _print_checks(results)
        return 1

    def database():
        from pbp.store.db import open_database

        open_database(config.database_url)
        return f"{config.database_url} ({m.Campaign.select().count()} campaigns)"

    check("database", database)
    if config.oauth_tokens is not None:
        from pbp.oauth_signin import check_token_file

        check(f"oauth {config.oauth_tokens.provider.name} token", lambda: check_token_file(config))
    if config.transport == "maildir":
        check("maildir inbox", lambda: str(config.maildir.inbox))
        if config.trust_authserv_id:
            from pbp.transport.maildir import MaildirInbox

            check("trust_authserv_id in maildir inbox", lambda: authserv_seen(
                config, MaildirInbox(config.maildir.inbox, create=False).recent_headers(AUTHSERV_SAMPLE), "the inbox"))
    else:
        from pbp.transport.imap import ImapInbox
        from pbp.transport.smtp import SmtpSender

        for binding in config.mailboxes:
            def imap(binding=binding):
                inbox = ImapInbox(config.imap_settings(binding.name))
                try:
                    inbox.fetch_new(0, limit=0)
                    idle = "IDLE" if inbox.supports_idle else "no IDLE: polling"
                    return f"logged in as {inbox.settings.username}, {binding.name} selected ({idle})"
                finally:
                    inbox.close()

            check(f"imap {config.imap.get('host')} mailbox {binding.name}", imap)
            if config.trust_authserv_id:
                def headers(binding=binding):
                    inbox = ImapInbox(config.imap_settings(binding.name))
                    try:
                        return authserv_seen(config, inbox.recent_headers(AUTHSERV_SAMPLE), binding.name)
                    finally:
                        inbox.close()

                check(f"trust_authserv_id in mailbox {binding.name}", headers)
            if binding.campaign:
                def bound(slug=binding.campaign):
                    if m.Campaign.get_or_none(m.Campaign.slug == slug) is None:
                        raise PbpError(f"no campaign {slug!r}", hint=f"pbp campaign create {slug} --name NAME")
                    return "exists"

                check(f"campaign {binding.campaign} (bound to {binding.name})", bound)

        def smtp():
            async def go():
                sender = SmtpSender(config.smtp_settings())
                await sender.connect()
                await sender.close()
            asyncio.run(go())
            return "connected" + (" and logged in" if config.smtp.get("username") else "")

        check(f"smtp {config.smtp.get('host')}", smtp)
    for campaign in m.Campaign.select().order_by(m.Campaign.slug):
        if campaign.forum:
            how = "by API" if forum_by_api(campaign, config) else "by mail"
            check(f"campaign {campaign.slug} on the forum {how}", lambda c=campaign: forum_mail_binding(config, c))
    if config.discourse:
        check(f"discourse API {config.discourse.get('url')}", lambda: forum_api_key(config))
    if config.archive is not None:
        from pbp.archive.publish import check_folder

        for key in ("dir", "gm_dir"):
            folder = getattr(config.archive, key)
            if folder is not None:
                check(f"archive {key} {folder}", lambda f=folder, k=key: check_folder(f, k))
    _print_checks(results)
    return 0 if all(ok for ok, _ in results) else 1


def forum_by_api(campaign, config) -> bool:
    """Whether a forum-bound campaign plays by the ``[discourse]`` site's API (it is that
    site's and names a category id): the adapter table gives its replies to the API's adapter."""
    from pbp.adapters import writer
    from pbp.forum.byapi import CHANNEL

    return writer(campaign, config).channel == CHANNEL


def forum_path(campaign, config) -> str:
    """How a forum-bound campaign plays, for ``campaign create`` and ``check-config``."""
    forum = campaign.forum
    if forum_by_api(campaign, config):
        return (f"{forum['category_id']} (List-ID <{forum['list_id']}>) of {forum['site']} by API, "
                f"as {config.discourse.get('username')}")
    return f"<{forum['list_id']}> of {forum['site']} by mail, as {forum['bot']} <{campaign.address}>"


class Warned(PbpError):
    """A ``pbp check-config`` finding that does not stop the daemon but should be fixed."""


#: How many of a mailbox's newest mails ``pbp check-config`` reads for Authentication-Results.
AUTHSERV_SAMPLE = 20


def authserv_seen(config, heads: list[bytes], where: str) -> str:
    """``pbp check-config`` with ``[security] trust_authserv_id`` set: do the mailbox's
    newest mails carry the receiving server's own ``Authentication-Results`` (the topmost
    run pbp reads, :func:`pbp.policy.our_authentication_results`)? When none does, the
    server adds none under that id, so every member's post is refused, and a header a
    sender writes with that id would be the topmost one: pbp would believe a forgery."""
    from pbp.mail.reading import read_headers
    from pbp.policy import our_authentication_results

    wanted = config.trust_authserv_id.strip()
    if not heads:
        raise Warned(f"{where} holds no mail yet, so pbp cannot tell whether {wanted} adds Authentication-Results",
                     hint="send the table a mail and run pbp check-config again")
    found = sum(1 for raw in heads if our_authentication_results(read_headers(raw, ""), wanted))
    if not found:
        raise Warned(f"none of the {len(heads)} newest mails in {where} carries an Authentication-Results header "
                     f"of {wanted}: every member's post will be refused, and one a sender writes would be believed",
                     hint="set trust_authserv_id to exactly the id your receiving server writes (look at a received "
                          "mail's Authentication-Results), or make the server add one (docs/operating.md, "
                          '"Sender authentication")')
    return f"{found} of the {len(heads)} newest mails in {where} carry Authentication-Results of {wanted}"


def forum_mail_binding(config, campaign) -> str:
    """``pbp check-config`` on a campaign bound to a Discourse category by mail
    (docs/forum.md, path 1): what Discourse will refuse or what pbp cannot read."""
    from pbp.forum.bymail import mail_players
    from pbp.store import models as m
    from pbp.store.rosters import roster

    forum = campaign.forum
    sender = campaign.address or config.from_address
    local = sender.split("@", 1)[0].lower()
    by_api = forum_by_api(campaign, config)
    if by_api:
        pass   # the API posts as the bot: no reply mail for Discourse to refuse, no mailbox to read
    elif any(word in local for word in ("noreply", "no-reply", "no_reply", "mailer-daemon", "postmaster")):
        raise PbpError(f"replies would come from {sender}, which Discourse takes for an automatic sender and refuses",
                       hint="use the bot account's own address: pbp campaign set address=pbp-bot@example.org "
                            f"--campaign {campaign.slug}")
    if not by_api and config.transport == "imap" and not any(b.campaign in ("", campaign.slug) for b in config.mailboxes):
        raise PbpError(f"no [[mailboxes]] entry reads {campaign.slug}'s mail",
                       hint=f'add [[mailboxes]] name = "INBOX" campaign = "{campaign.slug}" (or campaign = "")')
    on_forum = m.Member.select().where((m.Member.campaign == campaign) & m.Member.forum_username.is_null(False)
                                       & (m.Member.forum_username != "")).count()
    if not on_forum:
        raise PbpError(f"no member of {campaign.slug} has a forum username: no forum post can be anyone's",
                       hint="pbp campaign add-member ruth@example.org --forum-username ruth "
                            f"--campaign {campaign.slug}")
    by_mail = len(mail_players(roster(campaign)))
    where = (f"category {forum_path(campaign, config)}" if by_api else
             f"category <{forum['list_id']}> of {forum['site']}, bot {forum['bot']}, replies from {sender}")
    return f"{where}; {on_forum} member{'s' if on_forum != 1 else ''} on the forum, {by_mail} by mail"


def forum_api_key(config) -> str:
    """``pbp check-config`` with a [discourse] section (path 2): one ``GET /posts.json``
    with the bot's key says whether the forum takes it."""
    from pbp.forum.discourse import DiscourseClient

    settings = config.discourse_settings()
    with DiscourseClient(settings) as client:
        poll = client.poll(None)
    return f"the key of {settings.username} is accepted (GET /posts.json; newest post id {poll.cursor})"


def _print_checks(results) -> None:
    for ok, line in results:
        print(("  WARN  " if ok == "warn" else "  ok    " if ok else "  FAIL  ") + line)


def cmd_demo(args) -> int:
    from pbp.demo import demo

    try:
        return demo(Path(args.dir), once=args.once, system=args.system)
    except ValueError as exc:       # a system without a sample table
        print(f"pbp demo: {exc}", file=sys.stderr)
        return 2


# --------------------------------------------------------------------------- parser


def version() -> str:
    """The installed pbp's version (``pbp --version``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("pbp")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


CAMPAIGN_ENV = "PBP_CAMPAIGN"
CAMPAIGN_HELP = (f"the campaign's slug; left out: ${CAMPAIGN_ENV} if set, else the only campaign "
                 "(pbp campaign list names them)")


def _campaign_option(parser) -> None:
    """--campaign of the commands on one campaign; its default is $PBP_CAMPAIGN (a GM's
    default campaign), else :func:`pbp.campaigns.get_campaign` takes the only one."""
    parser.add_argument("--campaign", help=CAMPAIGN_HELP, default=os.environ.get(CAMPAIGN_ENV, "").strip() or None)


class _Parser(argparse.ArgumentParser):
    """argparse that says what is wrong in one line (``error: ...``), with where to look,
    instead of the usage block; every subcommand's parser is one too."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from pbp.rules.systems import DEFAULT_SYSTEM, SYSTEMS

    p = _Parser(prog="pbp", description="Run Fate-family games by post.", epilog=EXIT_CODES,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"pbp {version()}", help="print pbp's version and exit")
    p.add_argument("--config", "-c", help=f"config file (default: $PBP_CONFIG or ./{DEFAULT_CONFIG_NAME})")
    p.add_argument("--verbose", "-v", action="store_true", help="log more (DEBUG), for finding out what went wrong")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("init", help="write a config file and create the database")
    s.add_argument("--force", action="store_true", help="overwrite an existing config file")
    s.add_argument("--domain", help="right-hand side of pbp's Message-IDs (default: the --username's domain)")
    s.add_argument("--imap", metavar="HOST", help="read a real mailbox on this IMAP server (993, TLS)")
    s.add_argument("--smtp", metavar="HOST", help="send replies through this SMTP server (587, STARTTLS; "
                                                   "default: the IMAP host)")
    s.add_argument("--username", metavar="ADDRESS", help="the table's login and address, e.g. table@example.org")
    s.add_argument("--database", metavar="URL", help='e.g. "sqlite:////var/lib/pbp/pbp.db" (default: pbp.db '
                                                      "next to the config file)")
    s.add_argument("--oauth", choices=("microsoft", "google"),
                   help="the mailbox takes OAuth 2.0, not a password (Outlook.com, Microsoft 365, Gmail): write "
                        "[oauth] and sign in once (Microsoft: a code to type in a browser; Google: a browser "
                        "sign-in that comes back to pbp); on an existing config, sign in again (docs/oauth.md)")
    s.add_argument("--client-id", metavar="ID", help="with --oauth: the application (client) id of the app "
                                                     "registered for pbp at the provider")
    s.add_argument("--tenant", metavar="TENANT", help='with --oauth microsoft: "common" (default), '
                                                      '"organizations", "consumers" or the directory\'s domain')
    s.add_argument("--example", action="store_true", help="print config.example.toml (every option) and exit")
    s.set_defaults(func=cmd_init)

    camp = sub.add_parser("campaign", help="create and list campaigns, add members, change settings")
    camp = camp.add_subparsers(dest="sub", required=True, metavar="SUBCOMMAND")
    s = camp.add_parser("create", help="create a campaign")
    s.add_argument("slug", help="a short name for the campaign, used in addresses and --campaign (e.g. chicago)")
    s.add_argument("--name", help="the campaign's name, in every subject (default: the slug)")
    s.add_argument("--system", default=DEFAULT_SYSTEM, choices=sorted(SYSTEMS), type=_system_name,
                   help="the game system, by name or alias (dfc, fc, core...) (default: %(default)s)")
    s.add_argument("--address", help="the table's address (To: of posts), e.g. table+chicago@example.org")
    s.add_argument("--delivery", choices=["relay", "list"], default="relay",
                   help="relay: pbp sends each result to every member; list: pbp replies to a mailing list "
                        "(default: %(default)s)")
    s.add_argument("--language", default="en", metavar="CODE",
                   help="the language pbp writes and reads for this table: en or pt-BR (docs/translating.md; "
                        "default: %(default)s)")
    s.add_argument("--gm", action="append", metavar="EMAIL", help="a GM's address (repeat for more GMs)")
    s.add_argument("--player", action="append", metavar="EMAIL", help="a player's address (repeat for more)")
    s.add_argument("--forum", metavar="CATEGORY-URL",
                   help="play in this Discourse category by mail (mailing-list mode and reply-by-email), e.g. "
                        "https://forum.example.org/c/game-table/5; --address is then the bot account's mail address")
    s.add_argument("--forum-bot", metavar="USERNAME", help="the bot account's username on the forum (with --forum)")
    s.add_argument("--forum-list-id", metavar="ID",
                   help="the category's List-ID when it is not SLUG.HOST (with --forum)")
    s.add_argument("--forum-names", choices=["names", "usernames"], default="names",
                   help="what the forum's mail names posters by: usernames when its display_name_on_email_from "
                        "is off (then a forum post can be the GM's), else names (default: %(default)s)")
    s.add_argument("--forum-from", metavar="EMAIL",
                   help="the forum's notification address when it is not at the forum's domain (with --forum)")
    s.set_defaults(func=cmd_campaign_create)
    s = camp.add_parser("add-member", help="add a player or GM to a campaign")
    s.add_argument("email", help="the member's address")
    _campaign_option(s)
    s.add_argument("--role", choices=["player", "gm"], default="player", help="(default: %(default)s)")
    s.add_argument("--forum-username", metavar="NAME",
                   help="their username on the campaign's forum: their posts there are theirs")
    s.add_argument("--forum-name", metavar="FULL-NAME",
                   help="their full name on the forum, when its mail shows full names (docs/forum.md)")
    s.set_defaults(func=cmd_campaign_member)
    s = camp.add_parser("remove-member", help="remove a player or GM (not one who plays a character, nor the last GM)")
    s.add_argument("email", help="the member's address")
    _campaign_option(s)
    s.set_defaults(func=cmd_campaign_remove_member)
    s = camp.add_parser("member-set", help="a member's own settings: tz=Europe/Lisbon (their time zone), "
                                            "quiet=23-08 (their quiet hours; off: none), mail=every|mine|digest "
                                            "(which mails they get), digest_at=HH, as /settings sets them")
    s.add_argument("email", help="the member's address")
    s.add_argument("settings", nargs="+", metavar="KEY=VALUE",
                   help="one or more of tz=ZONE, quiet=HH-HH (or quiet=off), mail=every|mine|digest and "
                        "digest_at=HH, e.g. tz=Europe/Lisbon quiet=23-08 mail=digest")
    _campaign_option(s)
    s.set_defaults(func=cmd_campaign_member_set)
    s = camp.add_parser("set", help="change campaign settings: KEY=VALUE (name, address, delivery, "
                                     "reaction_deadline_hours, invoke_window_hours, reminder_hours, post_deadline_hours, stall_hours, "
                                     "away_policy (pause, ally or default), away_days_per_year, ranged_reach, "
                                     "show_npc_skills, free_bonuses, hold_out_of_turn, contest_invoke_next_side, "
                                     "secret_skills (e.g. secret_skills=Notice,Empathy: those rolls secret by default); "
                                     "a system's own, "
                                     "as Dresden Files Condensed's free_stunts, escalating_stress and scale_levels)",
                         description="secret_skills=Notice,Empathy (skills of the campaign's system; empty for "
                                     "none): outside a conflict, those overcomes and skill rolls are secret when "
                                     "the GM rolls them and blind when a player does, without the word "
                                     "(docs/commands.md, \"Secret and blind rolls\")")
    s.add_argument("settings", nargs="+", metavar="KEY=VALUE", help="e.g. reaction_deadline_hours=24")
    _campaign_option(s)
    s.set_defaults(func=cmd_campaign_set)
    s = camp.add_parser("list", help="list the campaigns with their settings and members")
    s.set_defaults(func=cmd_campaign_list)

    ch = sub.add_parser("character", help="import, list, export, change, undo and remove character sheets")
    ch = ch.add_subparsers(dest="sub", required=True, metavar="SUBCOMMAND")
    s = ch.add_parser("import", help="import sheet files (each is tried; the others are imported all the same)")
    s.add_argument("files", nargs="+", metavar="FILE", help="sheet files (.toml, or Fari's .fari.json; see docs/sheets.md)")
    _campaign_option(s)
    s.add_argument("--replace", action="store_true", help="replace characters of the same name")
    s.add_argument("--player", metavar="ADDRESS", help="the player's address, for a Fari sheet (Fari has none)")
    s.set_defaults(func=cmd_character_import)
    s = ch.add_parser("list", help="the campaign's characters")
    _campaign_option(s)
    s.set_defaults(func=cmd_character_list)
    s = ch.add_parser("export", help="write a character as the sheet file an import reads (with its fate points)")
    s.add_argument("name", help="the character's name")
    s.add_argument("--out", metavar="FILE", help="write to FILE (default: standard output)")
    s.add_argument("--fari", action="store_true", help="as a Fari character (.fari.json, Fari's newest layout)")
    _campaign_option(s)
    s.set_defaults(func=cmd_character_export)
    s = ch.add_parser("set", help="change sheet keys (play state is kept): pbp character set Ruth fate_points=4 "
                                  "skills.Fight=Great")
    s.add_argument("name", help="the character's name")
    s.add_argument("values", nargs="+", metavar="KEY=VALUE",
                   help="refresh, milestone_refresh, fate_points, player, kind, description, aliases, skills.SKILL "
                        "(empty: removed), aspects.high_concept, aspects.trouble, aspects.other, aspects.hidden")
    _campaign_option(s)
    s.set_defaults(func=cmd_character_set)
    for verb, text, func in (
            ("edit", "edit the sheet as TOML in $EDITOR; only the differences are applied", cmd_character_edit),
            ("history", "every change to the sheet: who, when, which message, before and after",
             cmd_character_history),
            ("undo", "take back the last change to the sheet (only the fields it changed)", cmd_character_undo),
            ("remove", "remove a character (not while a conflict, contest or challenge has them)",
             cmd_character_remove)):
        s = ch.add_parser(verb, help=text)
        s.add_argument("name", help="the character's name")
        _campaign_option(s)
        s.set_defaults(func=func)

    s = sub.add_parser("archive", help="write the campaign's archive: a static site, its feed, or a Markdown zip")
    s.add_argument("--out", required=True, metavar="DIR", help="the folder to write into (made if need be)")
    s.add_argument("--campaign", help=CAMPAIGN_HELP)
    s.add_argument("--gm", action="store_true", help="the GM's archive: everything, hidden things included")
    s.add_argument("--markdown", action="store_true",
                   help="a zip of one Markdown file per scene and every sheet as TOML and Fari JSON")
    s.set_defaults(func=cmd_archive)

    s = sub.add_parser("sheet", help="show a character sheet (everything, as the GM sees it)")
    s.add_argument("name", help="the character's name")
    _campaign_option(s)
    s.add_argument("--json", action="store_true", help="one JSON object (see docs/json.md)")
    s.set_defaults(func=cmd_sheet)

    s = sub.add_parser("table", help="show the table now: scene, zones, aspects, turns, what is waited for")
    _campaign_option(s)
    s.add_argument("--json", action="store_true", help="one JSON object (see docs/json.md)")
    s.set_defaults(func=cmd_table)

    s = sub.add_parser("roll", help="roll dice: pbp roll 4dF+2")
    s.add_argument("expr", nargs="+", metavar="DICE", help="dice and modifiers, e.g. 4dF+2 or 2d10 - 1")
    s.add_argument("--dice", help='fixed faces, e.g. "0++-"')
    s.add_argument("--json", action="store_true", help="the result as one JSON object")
    s.add_argument("--system", default=DEFAULT_SYSTEM, choices=sorted(SYSTEMS), type=_system_name,
                   help="the game system whose dice the roll uses, by name or alias (d10-pool: Nd10 "
                        "counted as hits; default: %(default)s)")
    s.set_defaults(func=cmd_roll)

    s = sub.add_parser("process", help="run saved .eml files through the pipeline")
    s.add_argument("files", nargs="+", help="message files, or - for standard input")
    s.add_argument("--json", action="store_true", help="one JSON object per message")
    who = s.add_mutually_exclusive_group()
    who.add_argument("--as-player", metavar="NAME",
                     help="show only what this player may know: their address or their character's name "
                          "(docs/json.md); by default the operator's whole record")
    who.add_argument("--audience", choices=["table"],
                     help="show only what anyone at the table may know (docs/json.md)")
    s.add_argument("--dice", help='fixed faces of the next rolls, e.g. "0++-,+0-0" (or $PBP_DICE)')
    s.add_argument("--campaign", help="the campaign (when the addresses do not say)")
    s.add_argument("--no-send", action="store_true",
                   help="leave replies in the outbox (by default they are sent at once, as the daemon would)")
    s.set_defaults(func=cmd_process)

    s = sub.add_parser("tick", help="apply the deadlines due at a time (reminders, default defences...)")
    s.add_argument("--at", help="the time, ISO 8601 in UTC (default: now), e.g. 2026-12-01T18:00")
    s.add_argument("--dice", help='fixed faces of the rolls the defaults make (or $PBP_DICE)')
    s.add_argument("--no-send", action="store_true", help="leave the mails in the outbox")
    s.set_defaults(func=cmd_tick)

    s = sub.add_parser("outbox", help="show replies not sent yet (or failed), with the last error")
    s.add_argument("--retry", action="store_true", help="put failed replies back in the queue")
    s.set_defaults(func=cmd_outbox)

    s = sub.add_parser("verify", help="check the dice ledger's hash chain, or (--mails) saved mails' committed dice")
    s.add_argument("--campaign", help="one campaign's slug (default: every campaign)")
    s.add_argument("--mails", metavar="DIR", help="check the committed dice of the saved mails (.eml) under DIR "
                                                  "instead (docs/verify.md); needs no database")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("run", help="run the daemon")
    s.add_argument("--once", action="store_true", help="handle what is waiting, deliver, and exit")
    s.add_argument("--dice", help=argparse.SUPPRESS)
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("check-config", help="try the database, IMAP and SMTP logins; say what works")
    s.set_defaults(func=cmd_check_config)

    s = sub.add_parser("demo", help="set up a sample table on local Maildirs and run the daemon on it")
    s.add_argument("--dir", default="demo", help="where the demo's config, database and Maildirs go "
                                                  "(default: %(default)s; an existing one is used again)")
    s.add_argument("--once", action="store_true", help="handle what is waiting, print the replies, and exit")
    from pbp.samples import samples_help

    s.add_argument("--system", default=None, type=_system_name,
                   help=f"the sample table of this game system, by name or alias ({samples_help()}; "
                        "fate-condensed's is the default)")
    s.set_defaults(func=cmd_demo)
    return p


def _join_dice(argv: list[str]) -> list[str]:
    """``--dice ----`` would read the faces as an option: glue the value on (``--dice=----``)."""
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--dice" and i + 1 < len(argv):
            out.append(f"--dice={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_join_dice(list(sys.argv[1:] if argv is None else argv)))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    quiet_libraries(logging.DEBUG if args.verbose else logging.INFO)
    try:
        return args.func(args)
    except SheetError as exc:
        _print_sheet_error(exc)
        return EXIT_BAD_INPUT
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if exc.expected:
            print(f"  expected: {exc.expected}", file=sys.stderr)
        if exc.example:
            print(f"  example:  {exc.example}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except PbpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return EXIT_FAILED if isinstance(exc, (TransportError, OAuthError)) else EXIT_BAD_INPUT
    except OSError as exc:          # a path the operator gave: unreadable, missing, a directory
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT if where else EXIT_FAILED
    except Exception as exc:        # never a traceback for the operator; -v shows it
        log.debug("traceback", exc_info=True)
        print(f"error: {_unexpected(exc)}" + ("" if args.verbose else " (run with -v for the details)"),
              file=sys.stderr)
        return EXIT_FAILED


def _unexpected(exc: Exception) -> str:
    """One line for an error nobody raised on purpose (the database, mostly)."""
    try:
        import peewee
    except ImportError:  # pragma: no cover
        peewee = None
    if peewee is not None and isinstance(exc, peewee.PeeweeException):
        return f"the database cannot be used: {shorten(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__, 200)}"
    return f"internal error ({type(exc).__name__}): {shorten(str(exc), 200)}"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
