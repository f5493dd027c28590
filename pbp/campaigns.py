"""Setting up a table: campaigns, their members and their characters."""
from __future__ import annotations

import dataclasses
import re

from pbp.errors import ConfigError, SheetError
from pbp.i18n import DEFAULT_LANGUAGE, LANGUAGES, language_code
from pbp.i18n.words import skill_in
from pbp.members import _checked_address, _checked_username, add_member
from pbp.rules.systems import DEFAULT_SYSTEM, campaign_system, get_system
from pbp.play.people import SettingError, member_settings
from pbp.play.state import dump_play, load_play
from pbp.settingvalues import did_you_mean, flag_value, hours_value
from pbp.sheetedit import state_of
from pbp.sheethistory import record_play
from pbp.sheetfile import SheetFile, load_sheet, parse_sheet
from pbp.store import models as m
from pbp.store import repo
from pbp.textsafety import unsafe_text, visible

SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")


def _checked_name(name: str) -> str:
    """The campaign name as kept: it is the display name in the From of every reply and
    the ``[Name]`` tag of every subject, so it may hold no line break, control, bidi or
    zero-width character (``pbp campaign set name=`` must not be able to add a header)."""
    name = name.strip()
    problem = unsafe_text(name, what="the campaign name") or ("" if name else "the campaign name is empty")
    if problem:
        raise ConfigError(problem, hint='e.g. --name "Chicago Nights"')
    return name


def language_code_of(value: str | None) -> str:
    """A campaign's language as kept ("pt-BR"), or a clear refusal naming the languages."""
    try:
        return language_code(value)
    except ValueError as exc:
        raise ConfigError(str(exc), hint=f"e.g. --language pt-BR (pbp speaks {', '.join(LANGUAGES)})") from None


def create_campaign(slug: str, name: str, *, system: str = DEFAULT_SYSTEM, address: str | None = None,
                    delivery: str = "relay", gms: list[str] = (), players: list[str] = (),
                    language: str | None = None) -> m.Campaign:
    if not SLUG.fullmatch(slug):
        shown = visible(slug, 80)
        raise ConfigError(f'campaign slug "{shown}" must be lower-case letters, digits and dashes (at most 63)',
                          hint="e.g. chicago-nights (it is also the plus-address: table+chicago-nights@...)")
    name = _checked_name(name)
    address = _checked_address(address) if address else None
    gms = [_checked_address(a, "the GM address") for a in gms]
    players = [_checked_address(a, "the player address") for a in players]
    system = get_system(system).name  # raises for an unknown system; an alias is stored by its name
    if delivery not in ("relay", "list"):
        raise ConfigError(f'delivery "{delivery}" is not relay or list')
    settings = {} if language_code_of(language) == DEFAULT_LANGUAGE else {"language": language_code_of(language)}
    if m.Campaign.get_or_none(m.Campaign.slug == slug):
        raise ConfigError(f'a campaign "{slug}" exists already')
    with m.db.atomic():
        campaign = m.Campaign.create(slug=slug, name=name, system=system, address=address, delivery=delivery,
                                     settings=settings)
        for email in gms:
            add_member(campaign, email, "gm")
        for email in players:
            add_member(campaign, email, "player")
    return campaign


#: a host name (the forum's site, a List-ID)
HOST = re.compile(r"(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+")


def forum_from_url(url: str) -> tuple[str, str, int | None]:
    """(site, List-ID, category id) of a category's address as a GM copies it from the
    browser: ``https://forum.example.org/c/game-table/5`` is the site ``forum.example.org``,
    the List-ID ``game-table.forum.example.org`` (Discourse's ``<category-slug.host>``) and
    the category 5 (what the forum's API names it by; None when the address has no id).
    A subcategory's address, ``/c/game-table/ic/7``, has the List-ID
    ``ic.game-table.forum.example.org`` (the child's and its parent's names)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip() if "://" in url else "https://" + url.strip())
    words = [w for w in parts.path.split("/") if w]
    slugs = [w for w in words[1:] if not w.isdigit()] if words[:1] == ["c"] else []
    site = (parts.hostname or "").lower()
    if not site or not slugs:
        raise ConfigError(f'"{visible(url, 120)}" is not a category\'s address',
                          hint="copy it from the browser on the category's page, "
                               "e.g. --forum https://forum.example.org/c/game-table/5")
    ids = [int(w) for w in words[1:] if w.isdigit()] if words[:1] == ["c"] else []
    # a subcategory (/c/parent/child/ID) is <child.parent.host> (Discourse's Email::Sender)
    return site, ".".join(reversed([w.lower() for w in slugs[-2:]])) + f".{site}", (ids[-1] if ids else None)


#: what the From name of a forum's mail is: ``names`` (the site shows full names, the
#: default: a name may be anyone's choosing) or ``usernames`` (the admin turned
#: ``display_name_on_email_from`` off: the name is the account's unique username)
FORUM_NAMES = ("names", "usernames")


def bind_forum(campaign: m.Campaign, *, site: str, list_id: str, bot: str, notify_from: str = "",
               category_id: int | None = None, names: str = "names") -> dict:
    """Bind a campaign to a Discourse category played by mail (``pbp campaign create
    --forum``; docs/forum.md): ``site`` the forum's host, ``list_id`` the id in the
    category's List-ID header (``<game-table.forum.example.org>``), ``bot`` the bot
    account's username (its own posts, echoed back, are never answered), ``notify_from``
    the forum's notification address when it is not at the site's domain, ``names`` what
    the forum's mail names posters by (:data:`FORUM_NAMES`; only ``usernames`` lets a
    forum mail be the GM's, docs/forum.md "Who posted"). The campaign's
    address is the bot account's mail address: replies come from it, as Discourse insists.
    The campaign relays (delivery "relay"): the members who play by mail read each forum
    post's text with its results; the forum's Markdown answer gives the results alone."""
    site, list_id = site.strip().lower(), list_id.strip().strip("<>").lower()
    for what, value, example in (("the forum site", site, "forum.example.org"),
                                 ("the category's List-ID", list_id, "game-table.forum.example.org")):
        if not HOST.fullmatch(value):
            raise ConfigError(f'{what} "{visible(value, 80)}" is not a host name', hint=f"e.g. {example}")
    if names not in FORUM_NAMES:
        raise ConfigError(f'the forum\'s mail names posters by "{visible(names, 40)}", not by names or usernames',
                          hint="--forum-names usernames when the forum's display_name_on_email_from is off, "
                               "else --forum-names names")
    binding = {"site": site, "list_id": list_id, "bot": _checked_username(bot)}
    if names != "names":
        binding["names"] = names
    if category_id is not None:   # what the forum's API (pbp.forum.byapi) knows the category by
        binding["category_id"] = int(category_id)
    if notify_from:
        binding["from"] = _checked_address(notify_from, "the forum's notification address")
    if not campaign.address:
        raise ConfigError(f"campaign {campaign.slug} has no address: a forum answers only mail from the bot's address",
                          hint="give the bot account's mail address: --address pbp-bot@example.org")
    campaign.forum = binding
    campaign.delivery = "relay"
    _save_changed(campaign)
    return binding


def get_campaign(slug: str | None) -> m.Campaign:
    """The named campaign, or the only one when no name is given."""
    if slug:
        found = m.Campaign.get_or_none(m.Campaign.slug == slug)
        if found is None:
            known = [c.slug for c in m.Campaign.select().order_by(m.Campaign.slug)]
            raise ConfigError(f'no campaign "{slug}" (known: {", ".join(known) or "none yet"})',
                              hint="pbp campaign list" if known else "pbp campaign create SLUG --name NAME")
        return found
    campaigns = [c.slug for c in m.Campaign.select().order_by(m.Campaign.slug)]
    if len(campaigns) == 1:
        return m.Campaign.get(m.Campaign.slug == campaigns[0])
    if not campaigns:
        raise ConfigError("no campaign yet", hint="pbp campaign create SLUG --name NAME")
    raise ConfigError(f"say which campaign: there are {len(campaigns)} ({', '.join(campaigns)})",
                      hint=f"add --campaign {campaigns[0]}, or export PBP_CAMPAIGN={campaigns[0]} to make it "
                           "the default of every command (pbp campaign list)")


def import_character(campaign: m.Campaign, sheet: SheetFile | str, *, replace: bool = False,
                     source: str = "", who: str | None = None) -> m.Character:
    """Store a validated sheet, all of it or nothing; a PC's player becomes a member of the
    campaign. Commands match names case-insensitively, so a name that differs from one
    already in the campaign only in case ("RUTH" beside "Ruth") is the same name: refused,
    or with ``replace`` that character is replaced. With ``who`` (``pbp character import``
    gives it) the sheet history gets a row (``how`` "import", before None; or "replace",
    before the replaced character's state), so ``pbp character history`` shows it and
    ``pbp character undo`` takes a replace back. Without it (the bundled sample campaign's
    characters, :mod:`pbp.demo`) the history starts empty."""
    if not isinstance(sheet, SheetFile):
        source = source or str(sheet)
        sheet = load_sheet(sheet, campaign_system(campaign))
    ch = sheet.character
    if ch.player and ch.player == campaign.address:
        raise SheetError(f"{source or ch.name}: 1 problem", [
            f"player: {ch.player} is the table's own address; a player's address is where their replies go"])
    with m.db.atomic():
        existing = next((row for row in m.Character.select().where(m.Character.campaign == campaign)
                         if row.name.casefold() == ch.name.casefold()), None)
        was = None
        if existing is not None and replace and who is not None:
            old_table = repo.load_table(campaign)
            was = state_of(campaign, old_table, old_table.characters[existing.name])
        if existing is not None:
            if not replace:
                twin = "" if existing.name == ch.name else \
                    f' as "{existing.name}" (names are matched case-insensitively)'
                raise SheetError(f"{source or ch.name}: 1 problem",
                                 [f'name: {campaign.slug} already has the character "{ch.name}"{twin}'],
                                 hint="add --replace to overwrite it, or give the new character another name")
            m.Aspect.update(active=False).where((m.Aspect.campaign == campaign) & (m.Aspect.owner == existing.name)
                                                & (m.Aspect.kind.in_(["high_concept", "trouble", "character"]))).execute()
            existing.delete_instance()
        table = repo.load_table(campaign)
        before = repo.snapshot(table)
        table.characters[ch.name] = ch
        table.aspects.extend(sheet.aspects)
        repo.save_table(campaign, before, table)
        row = m.Character.get_by_id(ch.id)
        if sheet.description:
            row.description = sheet.description
            row.save()
        if ch.player and not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == ch.player)).exists():
            add_member(campaign, ch.player, "player")
        if who is not None:
            m.SheetChange.create(campaign=campaign, character=ch.name, who=who, how="replace" if was else "import",
                                 before=was, after=state_of(campaign, table, table.characters[ch.name]))
    return row


def import_sheets(campaign: m.Campaign, paths: list[str], *, replace: bool = False,
                  notes: dict[str, list[str]] | None = None, player: str | None = None,
                  who: str = "pbp character import") -> list[tuple[str, m.Character | SheetError]]:
    """``pbp character import a.toml b.toml ...``: try every file and say for each what
    became of it (its character, or the SheetError with all its problems). A bad file
    stops nothing else and leaves nothing behind; two files whose names differ only in
    case are both refused, since which one was meant is the GM's call. A Fari file
    (``.json``, :mod:`pbp.fari`) is read as its sheet plus its play state; what of it did not
    map goes into ``notes`` (path -> lines). Fari has no player's address: ``player`` gives
    it (a sheet pbp exported carries its own). Each import is a row of the sheet history
    (``who``: :func:`import_character`), a Fari sheet's with its play state on."""
    from pbp.fari import is_fari, read_fari

    system = campaign_system(campaign)
    loaded: list[SheetFile | SheetError] = []
    fari: dict[int, object] = {}
    for i, path in enumerate(paths):
        try:
            if is_fari(path):
                fari[i] = read_fari(path, system)
                if player:
                    fari[i].data["player"] = player
                loaded.append(parse_sheet(fari[i].data, system, source=str(path)))
            else:
                loaded.append(load_sheet(path, system))
        except SheetError as exc:
            loaded.append(exc)
    names: dict[str, list[int]] = {}
    for i, sheet in enumerate(loaded):
        if isinstance(sheet, SheetFile):
            names.setdefault(sheet.character.name.casefold(), []).append(i)
    for same in names.values():
        for i in same if len(same) > 1 else ():
            others = ", ".join(paths[j] for j in same if j != i)
            loaded[i] = SheetError(f"{paths[i]}: 1 problem", [
                f'name: "{loaded[i].character.name}" is also the name in {others} (names are matched '
                "case-insensitively); import one of them"])
    report: list[tuple[str, m.Character | SheetError]] = []
    for i, (path, sheet) in enumerate(zip(paths, loaded)):
        if isinstance(sheet, SheetFile):
            try:
                with m.db.atomic():
                    sheet = import_character(campaign, sheet, replace=replace, source=path, who=who)
                    if i in fari:
                        lines = _fari_play_state(campaign, sheet.name, fari[i])
                        if notes is not None:
                            notes[path] = lines
                        _history_after(campaign, sheet.name)
            except SheetError as exc:
                sheet = exc
        report.append((path, sheet))
    return report


def _history_after(campaign: m.Campaign, name: str) -> None:
    """The import's history row with the state after a Fari sheet's play state went on."""
    row = (m.SheetChange.select().where((m.SheetChange.campaign == campaign) & (m.SheetChange.character == name))
           .order_by(m.SheetChange.id.desc()).first())
    table = repo.load_table(campaign)
    if row is not None and row.how in ("import", "replace"):
        row.after = state_of(campaign, table, table.characters[name])
        row.save()


def _fari_play_state(campaign: m.Campaign, name: str, sheet) -> list[str]:
    """A Fari sheet's marked stress and consequences on the imported character; returns
    what did not map (the sheet's own list, and boxes or consequences pbp has no room for)."""
    from pbp.rules.state import Aspect

    table = repo.load_table(campaign)
    before = repo.snapshot(table)
    ch = table.characters[name]
    lines = list(sheet.unmapped)
    for track, marks in sheet.stress.items():
        boxes = ch.stress.get(track, [])
        if len(marks) != len(boxes):
            lines.append(f"{track} stress: Fari has {len(marks)} boxes, {name} has {len(boxes)} by the rules "
                         f"(from the skills); the marks are put in the first boxes")
        for n, marked in enumerate(marks):
            if marked and n < len(boxes):
                boxes[n] = True
            elif marked:
                lines.append(f"{track} stress: box {n + 1} is marked in Fari and {name} has no box {n + 1}")
    for severity, track, aspect in sheet.consequences:
        free = [q for q in ch.consequences if q.aspect is None and q.severity.rstrip("2") == severity
                and (q.track == track or not q.track)]
        # a condition (Dresden Files Condensed) is taken under its own name: that slot, else none
        named = [q for q in free if q.condition]
        if named:
            free = [q for q in named if q.condition.casefold() == aspect.casefold()]
        slot = next((q for q in free if q.track == track), free[0] if free else None)
        if slot is None:
            lines.append(f'{severity} consequence "{aspect}": {name} has no free {severity} slot for it')
            continue
        slot.aspect = aspect
        table.aspects.append(Aspect(aspect, kind="consequence", owner=name))
    repo.save_table(campaign, before, table)
    return lines


SETTINGS = {
    "name": "the campaign's name, as in [Name] in subjects",
    "language": "the language pbp writes and reads for the table: en (default) or pt-BR (docs/translating.md)",
    "address": "the table's address (To: of posts, From: of replies)",
    "delivery": "relay (pbp sends each result to every member) or list (pbp replies to the list)",
    "reaction_deadline_hours": "hours to answer a /defend, /absorb, turn or compel before its default",
    "invoke_window_hours": "hours a roll stays open for /invoke after the dice",
    "reminder_hours": "hours before a deadline that its reminder goes out",
    "post_deadline_hours": "outside a conflict: hours for an owed post before the turn passes on (docs/long-campaign.md)",
    "stall_hours": "outside a conflict: hours without a post before the table is nudged, once (0: never)",
    "away_policy": "what waits for an away player: pause (the default: deadlines wait for their return), "
                   "ally (their ally or the GM answers for them) or default (the defaults apply at once)",
    "away_days_per_year": "days a player may be away in a calendar year (0, the default: no limit)",
    "ranged_reach": "how far shots and Provoke reach: same, adjacent or any (zones)",
    "show_npc_skills": "true: players see NPCs' skills and stunts in /sheet; false (default): only the GM",
    "free_bonuses": "yes: a player's plain +N applies at once; no (default): it waits for the GM",
    "hold_out_of_turn": "yes: an action out of turn waits for its turn; no (default): it is refused",
    "secret_skills": "skills whose overcome rolls (and skill rolls) are secret by default outside a conflict, "
                     "comma-separated, e.g. Notice,Empathy; empty: none (docs/verify.md)",
    "contest_invoke_next_side": "yes: in a contest of three or more sides, the free invoke a failed advantage gives "
                                "goes to the next side; no (default): the GM's side holds it",
}

YES = ("true", "yes", "on", "1")
NO = ("false", "no", "off", "0")


def set_campaign(campaign: m.Campaign, key: str, value: str) -> list[str]:
    """Change one campaign setting (``pbp campaign set``); each is checked first. Returns
    what else the change did, one line each (a system's option may carry the stored state
    over: ``SystemOption.carry``)."""
    options = get_system(campaign.system).options
    if key not in SETTINGS and key not in options:
        raise ConfigError(f'no campaign setting "{key}" ({did_you_mean(key, [*SETTINGS, *options])})',
                          hint="settings: " + ", ".join(f"{k} ({v})" for k, v in
                                                        {**SETTINGS, **{k: o.description for k, o in options.items()}}.items()))
    if key in options:
        return _set_option(campaign, key, options[key], value)
    elif key == "name":
        campaign.name = _checked_name(value)
    elif key == "language":
        return _set_language(campaign, language_code_of(value))
    elif key == "address":
        campaign.address = _checked_address(value) if value.strip() else None
    elif key == "delivery":
        if value not in ("relay", "list"):
            raise ConfigError(f'delivery "{value}" is not relay or list')
        campaign.delivery = value
    elif key == "ranged_reach":
        if value not in ("same", "adjacent", "any"):
            raise ConfigError(f'ranged_reach "{value}" is not same, adjacent or any')
        campaign.settings = {**(campaign.settings or {}), key: value}
    elif key == "show_npc_skills":
        if value.lower() not in YES + NO:
            raise ConfigError(f'show_npc_skills "{value}" is not true or false')
        campaign.settings = {**(campaign.settings or {}), key: value.lower() in YES}
    elif key == "secret_skills":
        campaign.settings = {**(campaign.settings or {}), key: _secret_skills(campaign, value)}
    elif key == "away_policy":
        policy = value.strip().lower()
        if policy not in ("pause", "ally", "default"):
            raise ConfigError(f'away_policy "{visible(value, 40)}" is not pause, ally or default',
                              hint="e.g. pbp campaign set away_policy=pause (docs/long-campaign.md)")
        campaign.settings = {**(campaign.settings or {}), key: policy}
    elif key == "away_days_per_year":
        if not value.strip().isdigit() or int(value) > 366:
            raise ConfigError(f'away_days_per_year "{visible(value, 40)}" is not a number of days, 0 to 366',
                              hint="e.g. pbp campaign set away_days_per_year=30 (0: no limit)")
        campaign.settings = {**(campaign.settings or {}), key: int(value)}
    elif key in ("free_bonuses", "hold_out_of_turn", "contest_invoke_next_side"):
        campaign.settings = {**(campaign.settings or {}), key: flag_value(key, value)}
    else:
        campaign.settings = {**(campaign.settings or {}), key: hours_value(key, value)}
    _save_changed(campaign)
    return []


def _secret_skills(campaign: m.Campaign, value: str) -> list[str]:
    """``secret_skills=Notice,Empathy``: each a skill of the campaign's system, in its spelling."""
    system = campaign_system(campaign)
    chosen: list[str] = []
    for word in (w.strip() for w in value.split(",")):
        if not word:
            continue
        skill = system.skill_named(word)
        if skill is None:
            raise ConfigError(f'secret_skills: "{visible(word, 60)}" is not {system.a_skill()}',
                              hint=f"skills: {', '.join(system.skills)}; e.g. pbp campaign set "
                                   f"secret_skills={','.join(system.skills[:2])}")
        if skill not in chosen:
            chosen.append(skill)
    return chosen


def _save_changed(campaign: m.Campaign) -> None:
    """Write only the fields a setting changed: the CLI's copy of the campaign may be older
    than the daemon's (a post applied since it was read), and saving the whole row would put
    its stale play state back."""
    if campaign.dirty_fields:
        campaign.save(only=campaign.dirty_fields)


def _set_language(campaign: m.Campaign, code: str) -> list[str]:
    """``language=pt-BR``: the campaign's sheets name their skills in the new language
    ("Fight = 4" becomes "Luta = 4"; a skill no language names stays), as its system does
    from now on (``campaign_system``), and so do its secret skills; all or nothing."""
    settings = dict(campaign.settings or {})
    settings["language"] = code
    if settings.get("secret_skills"):
        settings["secret_skills"] = [skill_in(s, code) for s in settings["secret_skills"]]
    table = repo.load_table(campaign)
    snap = repo.snapshot(table)
    renamed = 0
    for ch in table.characters.values():
        skills = {skill_in(name, code): value for name, value in ch.skills.items()}
        stunts = [dataclasses.replace(st, skill=skill_in(st.skill, code)) if getattr(st, "skill", None) else st
                  for st in ch.stunts]
        if skills != ch.skills or stunts != ch.stunts:
            ch.skills, ch.stunts = skills, stunts
            renamed += 1
    campaign.settings = settings
    saved = repo.save_table(campaign, snap, table)
    record_play(campaign, snap, saved, table, who="pbp campaign set language", message_id=None)
    _save_changed(campaign)
    return [f"skills renamed on {renamed} sheet(s)"] if renamed else []


def _set_option(campaign: m.Campaign, key: str, option, value: str) -> list[str]:
    """A setting the campaign's system reads (``System.options``): one of its values, or
    what its ``check`` keeps; its ``carry`` then moves the characters and aspects in play to
    the new system (all or nothing)."""
    example = option.example or option.values[-1]
    hint = f"{key}: {option.description}; e.g. pbp campaign set {key}={example}"
    if option.check is not None:
        try:
            chosen = option.check(value)
        except ValueError as e:
            raise ConfigError(f"{key} {visible(value, 120)!r}: {e}", hint=hint) from None
    elif value.strip().lower() in option.values:
        chosen = value.strip().lower()
    else:
        raise ConfigError(f'{key} "{value}" is not {" or ".join(option.values)}', hint=hint)
    before = campaign_system(campaign)
    settings = campaign.settings
    campaign.settings = {**(settings or {}), key: chosen}
    lines: list[str] = []
    if option.carry is not None:
        table = repo.load_table(campaign)
        snap = repo.snapshot(table)
        try:
            lines = option.carry(before, campaign_system(campaign), table)
        except ValueError as e:
            campaign.settings = settings
            raise ConfigError(f"{key}: {e}", hint=hint) from None
        saved = repo.save_table(campaign, snap, table)
        record_play(campaign, snap, saved, table, who=f"pbp campaign set {key}", message_id=None)
    _save_changed(campaign)
    return lines


def _earliest(*times):
    found = [t for t in times if t is not None]
    return min(found) if found else None


def set_member(campaign: m.Campaign, email: str, values: list[str]) -> str:
    """A member's own settings from the CLI (``pbp campaign member-set``), checked as
    ``/settings`` checks them: all or none. Returns them as they are now."""
    address = email.strip().lower()
    if not m.Member.select().where((m.Member.campaign == campaign) & (m.Member.email == address)).exists():
        raise ConfigError(f"{visible(email, 80)} is not a member of {campaign.slug}",
                          hint=f"pbp campaign list shows the members; pbp campaign add-member {visible(email, 80)}")
    row = m.Campaign.get_by_id(campaign.id)     # the daemon's latest play state, not an older copy
    play = load_play(row.play)
    try:
        new = member_settings(play.people.get(address), values, m.utcnow())
    except SettingError as e:
        raise ConfigError(str(e), hint=f"expected {e.expected}; e.g. pbp campaign member-set {address} "
                                       + e.example.removeprefix("/settings ")) from None
    play.people[address] = new
    row.play = dump_play(play)
    row.next_deadline = _earliest(row.next_deadline, new.digest_due)     # the digest job finds it
    row.save(only=[m.Campaign.play, m.Campaign.next_deadline])
    return new.shown()
