"""``pbp character ...``, ``pbp sheet`` and removing a member: sheets on the server."""
from __future__ import annotations

import os
import sys
from pathlib import Path

from pbp.console.common import EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT, open_config, print_json
from pbp.errors import PbpError, SheetError
from pbp.textsafety import shorten



def cmd_character_import(args) -> int:
    """Import every sheet file given and report each: imported, or all its problems. Exit
    status 3 (bad input) when any file failed (the others are imported all the same)."""
    from pbp.campaigns import get_campaign, import_sheets

    open_config(args)
    campaign = get_campaign(args.campaign)
    notes: dict[str, list[str]] = {}
    report = import_sheets(campaign, args.files, replace=args.replace, notes=notes, player=args.player)
    failed = 0
    for path, outcome in report:
        if isinstance(outcome, SheetError):
            failed += 1
            print_sheet_error(outcome)
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

    open_config(args)
    table = repo.load_table(get_campaign(args.campaign))
    for ch in sorted(table.characters.values(), key=lambda x: (x.kind != "pc", x.name)):
        who = f" ({ch.player})" if ch.player else ""
        print(f"{ch.name}: {ch.kind}{who} · FP {ch.fate_points} · refresh {ch.refresh}")
    return 0


def cmd_character_export(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import export_sheet

    open_config(args)
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

    open_config(args)
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

    open_config(args)
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

    open_config(args)
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

    open_config(args)
    return _changed(args.name, undo(get_campaign(args.campaign), args.name, who=HAND + " undo"))


def cmd_character_remove(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import remove_character

    open_config(args)
    campaign = get_campaign(args.campaign)
    print(f"{remove_character(campaign, args.name, who=HAND + ' remove')} removed from {campaign.slug} "
          "(its history is kept: pbp character history NAME)")
    return 0


def cmd_campaign_remove_member(args) -> int:
    from pbp.campaigns import get_campaign
    from pbp.sheetedit import remove_member

    open_config(args)
    campaign = get_campaign(args.campaign)
    print(f"{remove_member(campaign, args.email)} is no longer a member of {campaign.slug}")
    return 0


def print_sheet_error(exc: SheetError) -> None:
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

    open_config(args)
    campaign = get_campaign(args.campaign)
    table = repo.load_table(campaign)
    ch = table.character(args.name)
    if ch is None:
        names = ", ".join(sorted(table.characters)) or "none"
        print(f'error: no character "{shorten(args.name)}" (characters: {names})', file=sys.stderr)
        return EXIT_BAD_INPUT
    sheet = sheet_dict(ch, table)
    if args.json:
        print_json(sheet)
    else:
        print(Renderer().sheet(sheet, campaign_system(campaign)), end="")     # the campaign's words (early Fate's slots)
    return 0
