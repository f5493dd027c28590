"""``pbp archive --markdown``: the campaign in a zip, one Markdown file per scene (its recap,
then each post: its author, its text, what the table was told) and every character's
sheet as TOML (the sheet file ``pbp character import`` reads) and as Fari's JSON. The
players' export (the default) holds what the table's mails held: the PCs' sheets without
hidden aspects or their players' addresses; ``--gm`` holds everything."""
from __future__ import annotations

import io
import json
import zipfile

from pbp.archive.view import Archive, Reader, build, scene_recap, slug
from pbp.fari import to_fari
from pbp.rules.systems import campaign_system
from pbp.sheetedit import sheet_data, to_toml
from pbp.store import models as m
from pbp.store import repo


def _scene_md(archive: Archive, scene, recap_lines: list[str]) -> str:
    out = [f"# {scene.title}", "", f"*{archive.campaign.name} · {archive.reader.label}*", "", "## Recap", ""]
    out += [f"- {line}" for line in recap_lines] + [""]
    for e in scene.entries:
        out += [f'<a id="{e.anchor}"></a>', "", f"## {e.author}, {e.at:%Y-%m-%d %H:%M}", ""]
        if e.lines:
            for line, is_cmd in e.lines:
                out.append(f"`{line}`" if is_cmd and "`" not in line else line)
            out.append("")
        if e.ooc:
            out += ["### Out of character", ""] + [f"> {line}" for line in e.ooc] + [""]
        if e.shown:
            out += ["### The table was told", "", e.shown.strip(), ""]
        if e.gm:
            out += ["### For the GM only", "", e.gm.strip(), ""]
        for p in e.private:
            out += [f"### Private mail to {', '.join(p['to'])}: {p['subject']}", "", "```text", p["text"].strip(),
                    "```", ""]
        if e.row.turn:
            out += [f"After this post it was {e.row.turn}'s turn.", ""]
    return "\n".join(out).rstrip() + "\n"


def _players_sheet(data: dict) -> dict:
    data = dict(data)
    data.pop("player", None)
    if isinstance(data.get("aspects"), dict):
        data["aspects"] = {k: v for k, v in data["aspects"].items() if k != "hidden"}
    return data


def export_zip(campaign: m.Campaign, *, gm: bool = False) -> bytes:
    archive = build(campaign, Reader(gm=gm))
    system = campaign_system(campaign)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for scene in archive.scenes:
            z.writestr(f"{campaign.slug}/{scene.key}.md", _scene_md(archive, scene, scene_recap(archive, scene)))
        table = repo.load_table(campaign, system.skills)
        for ch in archive.characters:
            rules_ch = table.characters[ch.name]
            data = sheet_data(campaign, table, rules_ch)
            if not gm:
                data = _players_sheet(data)
            z.writestr(f"{campaign.slug}/sheets/{slug(ch.name)}.toml", to_toml(data))
            doc = to_fari(data, rules_ch.stress, rules_ch.consequences, system)
            z.writestr(f"{campaign.slug}/sheets/{slug(ch.name)}.fari.json",
                       json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
    return buf.getvalue()
