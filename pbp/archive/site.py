"""``pbp archive --out DIR``: the campaign as a static site (docs/archive.md).

``index.html`` (the campaign, its system, members, characters and scenes in order, with
every post listed by its permalink), ``scene-N.html`` per scene (``between-ID.html`` for
posts outside any scene), ``character-NAME.html`` per character (the sheet now and its
history), ``ledger.html`` (the dice ledger and its hash chain), ``feed.atom`` (the
players' view only) and ``style.css``. Plain HTML and CSS, no script. A post's permalink is
its scene's page and ``#post-ID``, ID its archive row's: it never changes as posts are
added.
"""
from __future__ import annotations

import json
from pathlib import Path

import jinja2

from pbp.archive.feed import atom
from pbp.archive.markup import faces, markdown_html, text_html
from pbp.archive.view import Archive, Reader, build, scene_recap, secret_roll
from pbp.render import Renderer
from pbp.rules.ladder import describe
from pbp.rules.systems import campaign_system
from pbp.sheetdiff import describe_diff
from pbp.sheethistory import history
from pbp.sheets_view import sheet_dict, table_sheet
from pbp.store import models as m
from pbp.store import repo

TEMPLATES = Path(__file__).resolve().parent / "templates"


def _history(archive: Archive, name: str, where: dict[str, str]) -> list[dict]:
    out = []
    for r in history(archive.campaign, name):
        lines = describe_diff(r.before, r.after)
        if not archive.reader.gm:
            lines = [ln for ln in lines if not ln.startswith("player")
                     and not any(h in ln.casefold() for h in archive.hidden_names)]
            if not lines or (r.message_id and r.message_id not in where):
                continue
        out.append({"id": r.id, "at": r.at, "how": r.how, "who": r.who if archive.reader.gm else "",
                    "link": where.get(r.message_id or ""), "undone": r.undone, "lines": lines})
    return out


def _sheet_text(archive: Archive, table, ch: m.Character, renderer: Renderer, system) -> str:
    rules_ch = table.characters[ch.name]
    sheet = sheet_dict(rules_ch, table) if archive.reader.gm else table_sheet(rules_ch, table)
    return renderer.sheet(sheet, system)


def environment(system) -> jinja2.Environment:
    """The site's templates, naming values with ``system``'s ladder (the campaign's)."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True,
                             trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters.update(markdown=markdown_html, faces=faces, describe=lambda n: describe(n, system.ladder),
                       when=lambda d: d.strftime("%Y-%m-%d %H:%M") if d else "")
    env.globals.update(text_html=text_html, secret_roll=secret_roll)
    return env


def write_site(campaign: m.Campaign, out: Path, *, gm: bool = False) -> list[Path]:
    """Write the site into ``out`` (created if need be); returns the files written."""
    reader = Reader(gm=gm)
    archive = build(campaign, reader)
    out.mkdir(parents=True, exist_ok=True)
    system = campaign_system(campaign)
    env = environment(system)
    renderer = Renderer()
    where = {e.row.post_id: f"{s.page}#{e.anchor}" for s in archive.scenes for e in s.entries}
    roll_at = {n: f"{s.page}#{e.anchor}" for s in archive.scenes for e in s.entries for n in e.row.roll_ids}
    roll_when = {n: e.at for s in archive.scenes for e in s.entries for n in e.row.roll_ids}   # the post's clock
    common = dict(archive=archive, reader=reader, campaign=campaign, system=system.name, where=where)
    written: list[Path] = []

    def page(name: str, template: str, **data) -> None:
        path = out / name
        path.write_text(env.get_template(template).render(**common, **data), encoding="utf-8")
        written.append(path)

    page("index.html", "index.html.j2", title=campaign.name)
    for i, scene in enumerate(archive.scenes):
        prev = archive.scenes[i - 1] if i else None
        nxt = archive.scenes[i + 1] if i + 1 < len(archive.scenes) else None
        page(scene.page, "scene.html.j2", title=scene.title, scene=scene, recap=scene_recap(archive, scene),
             prev=prev, next=nxt)
    table = repo.load_table(campaign, system.skills)
    for ch in archive.characters:
        page(archive.character_page(ch.name), "character.html.j2", title=ch.name, character=ch,
             sheet=_sheet_text(archive, table, ch, renderer, system), changes=_history(archive, ch.name, where))
    problems = repo.verify_ledger(campaign)
    # the players' ledger does not show the hash of a roll it leaves out (a secret one): with
    # the hash before it, that hash would let anyone try every face until one matched
    shown_hashes = {r.hash for r in archive.ledger} | {""}
    page("ledger.html", "ledger.html.j2", title="The dice ledger", rows=archive.ledger, problems=problems,
         shown_hashes=shown_hashes,
         roll_at=roll_at, roll_when=roll_when, number=lambda r: (r.detail or {}).get("number", r.id),
         detail=lambda r: json.dumps(r.detail, ensure_ascii=False, sort_keys=True))
    (out / "style.css").write_text((TEMPLATES / "style.css").read_text(encoding="utf-8"), encoding="utf-8")
    written.append(out / "style.css")
    (out / "feed.atom").write_text(atom(campaign), encoding="utf-8")    # the players' view, always
    written.append(out / "feed.atom")
    return written

