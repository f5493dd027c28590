"""``pbp check-config``: every setting, server and binding checked, each finding with
what to do; and how a forum-bound campaign plays (``forum_path``)."""
from __future__ import annotations


from pbp.config import load_config
from pbp.console.common import config_path
from pbp.errors import PbpError



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
        config = load_config(config_path(args))
        return str(config_path(args))

    if not check("config file", load):
        print_checks(results)
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
    print_checks(results)
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


def print_checks(results) -> None:
    for ok, line in results:
        print(("  WARN  " if ok == "warn" else "  ok    " if ok else "  FAIL  ") + line)
