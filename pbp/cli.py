"""The ``pbp`` command line: set up a table, import characters, process posts offline,
and run the daemon."""
from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from pbp.config import DEFAULT_CONFIG_NAME, load_config
from pbp.console.characters import (
    cmd_campaign_remove_member, cmd_character_edit, cmd_character_export, cmd_character_history,
    cmd_character_import, cmd_character_list, cmd_character_remove, cmd_character_set, cmd_character_undo,
    cmd_sheet, print_sheet_error
)
from pbp.console.checks import cmd_check_config, forum_path
from pbp.console.common import (
    EXIT_BAD_INPUT, EXIT_CODES, EXIT_FAILED, EXIT_USAGE, config_path, open_config, parse_dice, system_name
)
from pbp.console.play import cmd_archive, cmd_outbox, cmd_process, cmd_roll, cmd_table, cmd_tick, cmd_verify
from pbp.errors import CommandError, PbpError, SheetError
from pbp.logs import quiet_libraries
from pbp.textsafety import shorten
from pbp.transport.errors import TransportError
from pbp.transport.oauth import OAuthError

log = logging.getLogger("pbp")

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
    path = config_path(args)
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

    config = open_config(args)
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

    open_config(args)
    member = add_member(get_campaign(args.campaign), args.email, args.role, forum_username=args.forum_username,
                        forum_name=args.forum_name)
    names = [n for n in (member.forum_username, member.forum_name) if n]
    on_forum = f", {' / '.join(names)} on the forum" if names else ""
    print(f"{member.email} is a {member.role} of {member.campaign.slug}{on_forum}")
    return 0


def cmd_campaign_set(args) -> int:
    from pbp.campaigns import get_campaign, set_campaign

    open_config(args)
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

    open_config(args)
    from pbp.store import models as m

    with m.db.atomic():
        shown = set_member(get_campaign(args.campaign), args.email, args.settings)
    print(f"{args.email.strip().lower()}: {shown}")
    return 0


def cmd_campaign_list(args) -> int:
    from pbp.settingvalues import written
    from pbp.store import models as m

    open_config(args)
    for c in m.Campaign.select().order_by(m.Campaign.slug):
        members = ", ".join(f"{mb.email} ({mb.role})" for mb in c.members)
        own = "".join(f" {k}={written(v)}" for k, v in sorted((c.settings or {}).items()))
        if c.forum:
            own += f" forum=<{c.forum['list_id']}>"
        print(f"{c.slug}: {c.name} [{c.system}, {c.delivery}{own}] {members}")
    return 0


def cmd_run(args) -> int:
    from pbp.daemon import configure_logging, run

    config = open_config(args)
    configure_logging("DEBUG" if args.verbose else config.log_level)
    return run(config, dice=parse_dice(args.dice), once=args.once)


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
    s.add_argument("--system", default=DEFAULT_SYSTEM, choices=sorted(SYSTEMS), type=system_name,
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
    s.add_argument("--system", default=DEFAULT_SYSTEM, choices=sorted(SYSTEMS), type=system_name,
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

    s.add_argument("--system", default=None, type=system_name,
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
        print_sheet_error(exc)
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
