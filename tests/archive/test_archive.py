"""The campaign archive (issue 26, docs/archive.md), built from a golden conflict played by
mail (tests/golden/whole_conflict) with hidden things in it: the Ghoul's hidden aspect
"Afraid of Fire" (in the sample campaign), a hidden aspect the GM adds by a post the table
never hears of, the GM's copies of what the table's mails left out, and the NPCs' sheets.

Read from the players' side: the players' archive, the feed and the Markdown export are
searched file by file for every hidden item, which the GM's archive must hold.
"""
from __future__ import annotations

import io
import os
import json
import re
import tomllib
import zipfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag

import pytest

from pbp.archive.export import export_zip
from pbp.archive.feed import atom
from pbp.archive.site import write_site
from pbp.store import models as m
from tests.play import golden

SECRET_ASPECT = "Afraid of Fire"               # the Ghoul's, hidden (pbp/samples/chicago/ghoul.toml) until Ethan finds it
GM_ONLY_ASPECT = "Trapdoor Under The Altar"    # added hidden by a post the table gets no mail for


@pytest.fixture
def game(config, chicago):
    table, _ = golden.play("whole_conflict", config)
    step = table.post("GM", f'/aspect add "{GM_ONLY_ASPECT}" hidden')
    assert step.status == "applied"
    assert all("ruth" not in ",".join(r.to) for r in step.replies), "the table got no mail for it"
    return chicago, table


@pytest.fixture
def played(game):
    return game[0]


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"])
        if tag in ("a", "link") and a.get("href"):
            self.hrefs.append(a["href"])


def parse(path: Path) -> Links:
    p = Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def texts_of_site(out: Path) -> dict[str, str]:
    return {f.name: f.read_text(encoding="utf-8") for f in sorted(out.iterdir()) if f.is_file()}


def texts_of_zip(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name).decode("utf-8") for name in z.namelist()}


# --------------------------------------------------------------------------- the site


def test_every_link_resolves_and_every_post_is_reachable_from_the_index(played, tmp_path):
    for gm in (False, True):
        out = tmp_path / ("gm" if gm else "players")
        write_site(played, out, gm=gm)
        pages = {f.name: parse(f) for f in out.glob("*.html")}
        for name, page in pages.items():
            for href in page.hrefs:
                target, fragment = urldefrag(href)
                target = target or name
                assert (out / target).is_file(), f"{name}: {href} leads nowhere"
                if fragment:
                    assert fragment in pages[target].ids, f"{name}: {href}: no #{fragment} in {target}"
        index_links = set(pages["index.html"].hrefs)
        anchors = {f"{name}#{i}" for name, page in pages.items() for i in page.ids if i.startswith("post-")}
        assert anchors, "no post in the archive"
        assert anchors <= index_links, f"posts not linked from the index: {sorted(anchors - index_links)[:5]}"
        if gm:
            assert all("<strong>GM's archive:</strong>" in (out / n).read_text() for n in pages), "the GM's archive says so on every page"
        else:
            assert not any("<strong>GM's archive:</strong>" in (out / n).read_text() for n in pages)
        assert "<script" not in "".join((out / n).read_text() for n in pages)


def test_posts_are_in_order_with_ids_that_never_change(game, tmp_path):
    campaign, table = game
    write_site(campaign, tmp_path / "a")
    rows = list(m.ArchivePost.select().order_by(m.ArchivePost.id))
    assert [r.at for r in rows] == sorted(r.at for r in rows), "oldest first"
    scene = (tmp_path / "a" / "scene-1.html").read_text()
    order = [int(n) for n in re.findall(r'<article class="post" id="post-(\d+)"', scene)]
    assert order == sorted(order) and len(order) > 20
    # a later post adds an entry; every earlier permalink stays where it was
    first = set(re.findall(r'href="([^"]+#post-\d+)"', (tmp_path / "a" / "index.html").read_text()))
    assert table.post("GM", '/scene start "The Morning After"').status == "applied"
    write_site(campaign, tmp_path / "b")
    again = set(re.findall(r'href="([^"]+#post-\d+)"', (tmp_path / "b" / "index.html").read_text()))
    assert first < again
    assert any(h.startswith("scene-2.html#") for h in again - first)


def test_a_scene_page_shows_text_commands_results_dice_and_turns(played, tmp_path):
    write_site(played, tmp_path, gm=False)
    page = (tmp_path / "scene-1.html").read_text()
    assert "The warehouse smells of brine and candle smoke." in page     # the GM's prose, as written
    assert "/attack" in page                                             # a player's command
    assert "Ruth attacks" in page or "Ruth" in page
    assert re.search(r"dice \[[-+0]\] \[[-+0]\] \[[-+0]\] \[[-+0]\]", page), "the dice"
    assert "turn." in page, "whose turn it was"
    assert "Recap" in page


# --------------------------------------------------------------------------- hidden things


def test_hidden_things_are_absent_for_players_and_present_for_the_gm(played, tmp_path):
    write_site(played, tmp_path / "players")
    write_site(played, tmp_path / "gm", gm=True)
    players = {**texts_of_site(tmp_path / "players"), "feed": atom(played),
               **texts_of_zip(export_zip(played))}
    gm = {**texts_of_site(tmp_path / "gm"), **texts_of_zip(export_zip(played, gm=True))}
    gm_text = "\n".join(gm.values())
    secrets = (GM_ONLY_ASPECT,                 # a hidden aspect the table never heard of
               "Shoot Fair",                   # the GM's /npc add line: a minor NPC's skills
               "Shoot +2, Athletics +1",       # the GM's copy of it
               "For the GM only", "gm@pbp.localhost", "ruth@pbp.localhost")
    for secret in secrets:
        leaks = [name for name, text in players.items() if secret.casefold() in text.casefold()]
        assert not leaks, f"{secret!r} reached the players in {leaks}"
        assert secret.casefold() in gm_text.casefold(), f"{secret!r} missing from the GM's archive"
    # NPCs' sheets (their skills): the GM's alone
    assert "character-ghoul.html" in gm and "character-ghoul.html" not in players
    assert "Stealth" in gm["character-ghoul.html"]
    assert not any(n.endswith("ghoul.toml") for n in players) and any(n.endswith("ghoul.toml") for n in gm)
    # the Ghoul's hidden aspect is named for the players only from the post where Ethan finds it
    for page in ("scene-1.html", "chicago/scene-1.md"):
        text = players[page]
        found = text.index("discovers Afraid of Fire")
        assert text.find(SECRET_ASPECT) >= text.rfind("post-", 0, found), page
        assert gm_text.count(SECRET_ASPECT) > text.count(SECRET_ASPECT)


# --------------------------------------------------------------------------- feed and export


def test_the_feed_is_valid_atom_with_one_entry_per_post_the_table_saw(played):
    import feedparser

    feed = feedparser.parse(atom(played, base_url="https://example.org/chicago/"))
    assert not feed.bozo, feed.get("bozo_exception")
    assert feed.version == "atom10"
    shown = m.ArchivePost.select().where(m.ArchivePost.shown != "").count()
    assert len(feed.entries) == shown > 20
    ids = [e.id for e in feed.entries]
    assert len(set(ids)) == len(ids)
    assert all(re.match(r"https://example\.org/chicago/(scene|between)-\d+\.html#post-\d+$", e.link)
               for e in feed.entries)
    assert [e.updated_parsed for e in feed.entries] == sorted((e.updated_parsed for e in feed.entries), reverse=True)


def test_the_markdown_export_renders_and_its_sheets_read_back(played):
    from markdown_it import MarkdownIt

    files = texts_of_zip(export_zip(played))
    scenes = [n for n in files if n.endswith(".md")]
    assert scenes
    md = MarkdownIt("commonmark")
    for name in scenes:
        tokens = md.parse(files[name])
        assert any(t.type == "heading_open" for t in tokens), name
        assert "<h1>" in md.render(files[name])
    sheets = [n for n in files if n.endswith(".toml")]
    assert {tomllib.loads(files[n])["name"] for n in sheets} >= {"Ruth", "Cassandra", "Ethan"}
    for n in (n for n in files if n.endswith(".fari.json")):
        assert json.loads(files[n])


# --------------------------------------------------------------------------- in a real browser


def _chromium(width: int, *args: str, console: list | None = None) -> str:
    """Chromium's output; the pages' console messages (an error in a page, a script's
    uncaught exception) are appended to ``console``."""
    from tests.play.test_html_screens import chromium

    import subprocess

    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--no-first-run", "--disable-extensions", "--allow-file-access-from-files",
                           "--enable-logging=stderr", "--v=0",
                           f"--window-size={width},1400", *args], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    if console is not None:
        console += [line for line in done.stderr.splitlines() if ":CONSOLE" in line]
    return done.stdout


def _widths(out: Path, names: list[str], width: int, console: list | None = None) -> dict[str, tuple[int, int]]:
    """(scroll width, client width) of each page laid out ``width`` pixels wide, each in an
    iframe of a probe page in the site's folder (so the pages' style sheet loads); the
    probe's script (the test's, not the archive's) writes the measures into its body."""
    import html

    frames = "".join(f'<iframe style="display:block;width:{width}px;height:60px;border:0" '
                     f'srcdoc="{html.escape((out / n).read_text(encoding="utf-8"))}"></iframe>' for n in names)
    probe = out / "probe.html"
    probe.write_text(
        f"<!DOCTYPE html><html><body style='margin:0'>{frames}<script>"
        "window.onload = function () { var out = [];"
        "  document.querySelectorAll('iframe').forEach(function (f) {"
        "    var d = f.contentDocument.documentElement; out.push([d.scrollWidth, d.clientWidth,"
        "      f.contentDocument.styleSheets.length]); });"
        "  var p = document.createElement('pre'); p.id = 'widths'; p.textContent = JSON.stringify(out);"
        "  document.body.appendChild(p); };</script></body></html>", encoding="utf-8")
    dom = _chromium(width, "--virtual-time-budget=5000", "--dump-dom", probe.as_uri(), console=console)
    probe.unlink()
    found = re.search(r'<pre id="widths">(.*?)</pre>', dom)
    assert found, dom[-2000:]
    measured = json.loads(html.unescape(found.group(1)))
    assert all(sheets == 1 for _, _, sheets in measured), "the style sheet did not load"
    return {n: (w[0], w[1]) for n, w in zip(names, measured)}


@pytest.mark.slow
@pytest.mark.parametrize("gm", [False, True], ids=["players", "gm"])
def test_the_archive_fits_a_phone_and_a_desktop_in_chromium(played, tmp_path, gm):
    import os

    from tests.play.test_html_screens import png_size

    out = tmp_path / "site"
    write_site(played, out, gm=gm)
    names = sorted(f.name for f in out.glob("*.html"))
    for width in (360, 1280):
        console: list[str] = []
        measured = _widths(out, names, width, console)
        assert not console, f"console messages at {width} px: {console}"
        wide = {n: w for n, w in measured.items() if w[0] > w[1]}
        assert not wide, f"pages that scroll sideways at {width} px: {wide}"
        assert all(client == width for _, client in measured.values()), measured
    keep = Path(os.environ["PBP_SCREENSHOTS"]) if os.environ.get("PBP_SCREENSHOTS") else tmp_path / "screens"
    keep.mkdir(parents=True, exist_ok=True)
    for name in ("index.html", "scene-1.html", "character-ruth.html", "ledger.html"):
        for width in (360, 1280):
            shot = keep / f"archive-{'gm' if gm else 'players'}-{name[:-5]}-{width}.png"
            _chromium(width, f"--screenshot={shot}", (out / name).as_uri())
            assert png_size(shot)[0] == width


@pytest.mark.slow
def test_the_probe_catches_a_wide_page_and_a_console_error(tmp_path):
    """The checks above can fail: a box wider than the screen is measured wider, and a
    page's uncaught error reaches the console list."""
    (tmp_path / "style.css").write_text("")
    (tmp_path / "wide.html").write_text('<link rel="stylesheet" href="style.css"><div style="width:700px">x</div>')
    (tmp_path / "bad.html").write_text('<link rel="stylesheet" href="style.css"><script>nosuch();</script>')
    console: list[str] = []
    measured = _widths(tmp_path, ["wide.html", "bad.html"], 360, console)
    assert measured["wide.html"][0] > 360
    assert any("nosuch" in line for line in console)


AXE = Path(os.environ.get("PBP_AXE", Path.home() / ".cache" / "pbp-test" / "axe-core" / "axe.min.js"))


@pytest.mark.slow
@pytest.mark.parametrize("gm", [False, True], ids=["players", "gm"])
def test_no_serious_accessibility_violation(played, tmp_path, gm):
    """axe-core (npm, MPL-2.0; scripts/install-test-services fetches it) run in Chromium on
    every page: no violation of WCAG 2 A or AA rated serious or critical."""
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed at {AXE}: run scripts/install-test-services", pytrace=False)
    import html
    import shutil

    out = tmp_path / "site"
    write_site(played, out, gm=gm)
    shutil.copy(AXE, out / "axe.min.js")
    run = ("<script src='axe.min.js'></script><script>"
           "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}).then(function (r) {"
           "  var p = document.createElement('pre'); p.id = 'axe';"
           "  p.textContent = JSON.stringify(r.violations.map(function (v) {"
           "    return [v.id, v.impact, v.nodes.length, v.nodes[0].html]; }));"
           "  document.body.appendChild(p); });</script></body>")
    # the check can fail: an image without a text alternative is a critical violation
    (out / "zz-broken.html").write_text('<!DOCTYPE html><html lang="en"><head><title>x</title></head>'
                                        '<body><main><img src="x.png"></main></body></html>')
    found = {}
    for page in sorted(out.glob("*.html")):
        probe = out / f"axe-{page.name}"
        probe.write_text(page.read_text(encoding="utf-8").replace("</body>", run), encoding="utf-8")
        dom = _chromium(1280, "--virtual-time-budget=20000", "--dump-dom", probe.as_uri())
        result = re.search(r'<pre id="axe">(.*?)</pre>', dom, re.S)
        assert result, f"axe did not run on {page.name}"
        found[page.name] = json.loads(html.unescape(result.group(1)))
    serious = {name: [v for v in vs if v[1] in ("serious", "critical")] for name, vs in found.items()}
    assert [v[0] for v in serious.pop("zz-broken.html")] == ["image-alt"]
    assert len(serious) >= 4 and not any(serious.values()), serious
