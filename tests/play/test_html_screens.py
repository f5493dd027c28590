"""The HTML replies as a phone shows them: every HTML part of a golden conversation is laid
out by headless Chromium (Debian's ``chromium``, installed by scripts/install-test-services)
400 pixels wide and must not scroll sideways (its scroll width equals its width); a few are
screenshotted, so a person can look at them (``PBP_SCREENSHOTS=DIR`` keeps the PNGs).

The plain text parts of the same conversations are checked as they are read
(:func:`tests.helpers.plain_text`: ``format=flowed``, no line over 78 characters)."""
from __future__ import annotations

import html
import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from tests.play import golden

WIDTH = 400
#: Each golden case, with the fixture that makes its campaign.
CASES = {"whole_conflict": "chicago", "invoke_after_dice": "chicago", "compel_player_approved": "chicago",
         "harbour_lights": "harbour"}
#: The replies screenshotted, by step of whole_conflict: the scene set up, a roll against an
#: NPC's defence with sheets, an error, the scene's end.
SHOTS = {"whole_conflict": [1, 3, 5, 58],
         # a new GM's session: a player's /table, a compel approved from a phone, the
         # attack that ends the conflict with /next skipped, the scene's end
         "harbour_lights": [6, 8, 26, 28]}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    assert found, "headless Chromium is needed: run scripts/install-test-services (Debian package chromium)"
    return found


def run_chromium(*args: str) -> str:
    done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--no-first-run", "--disable-extensions", f"--window-size={WIDTH},900", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def widths(pages: list[str], tmp_path: Path) -> list[tuple[int, int]]:
    """(scroll width, client width) of each page laid out WIDTH pixels wide: the pages go
    into iframes of one probe page, whose script writes their measures into its body."""
    frames = "".join(f'<iframe style="display:block;width:{WIDTH}px;height:50px;border:0" srcdoc="{html.escape(p)}">'
                     "</iframe>" for p in pages)
    probe = tmp_path / "probe.html"
    probe.write_text(
        f"<!DOCTYPE html><html><body style='margin:0'>{frames}<script>"
        "window.onload = function () {"
        "  var out = [];"
        "  document.querySelectorAll('iframe').forEach(function (f) {"
        "    var d = f.contentDocument.documentElement; out.push([d.scrollWidth, d.clientWidth]); });"
        "  var p = document.createElement('pre'); p.id = 'widths'; p.textContent = JSON.stringify(out);"
        "  document.body.appendChild(p); };"
        "</script></body></html>", encoding="utf-8")
    dom = run_chromium("--virtual-time-budget=3000", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="widths">(.*?)</pre>', dom)
    assert found, dom[-2000:]
    return [tuple(w) for w in json.loads(html.unescape(found.group(1)))]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_html_replies_fit_400_pixels(request, config, case, tmp_path):
    request.getfixturevalue(CASES[case])
    table, _ = golden.play(case, config)
    replies = [(n, r) for n, step in enumerate(table.steps, start=1) for r in step.replies]
    for n, r in replies:
        assert 'name="viewport"' in r.html, f"step {n}: no viewport meta tag"
        assert "<pre>" not in r.html, f"step {n}: a <pre> box that cannot wrap"
        assert "pre-line" not in r.html, f"step {n}: nested lines flattened (pre-line drops indentation)"
    measured = widths([r.html for _, r in replies], tmp_path)
    assert len(measured) == len(replies)
    wide = [(n, r.subject, w) for (n, r), w in zip(replies, measured) if w[0] > w[1]]
    assert not wide, f"replies that scroll sideways at {WIDTH} px (step, subject, (scroll, client)): {wide}"
    assert all(client == WIDTH for _, client in measured), measured

    keep = Path(os.environ["PBP_SCREENSHOTS"]) if os.environ.get("PBP_SCREENSHOTS") else tmp_path
    keep.mkdir(parents=True, exist_ok=True)
    for n in SHOTS.get(case, []):
        page = tmp_path / f"{case}-{n}.html"
        page.write_text(table.steps[n - 1].replies[0].html, encoding="utf-8")
        shot = keep / f"{case}-{n}.png"
        run_chromium(f"--screenshot={shot}", page.as_uri())
        assert png_size(shot)[0] == WIDTH


def test_a_too_wide_page_is_caught(tmp_path):
    """The probe itself: a page with an unbreakable box wider than the screen is measured
    wider than it is, one that wraps is not."""
    wide = '<html><body><div style="width:700px">x</div></body></html>'
    narrow = '<html><head><meta name="viewport" content="width=device-width"></head><body><p>' + "word " * 300
    (too, _), (fits, width) = widths([wide, narrow], tmp_path)
    assert too > WIDTH and fits == width == WIDTH


def _shoot(html_page: str, name: str, tmp_path: Path) -> Path:
    keep = Path(os.environ["PBP_SCREENSHOTS"]) if os.environ.get("PBP_SCREENSHOTS") else tmp_path
    keep.mkdir(parents=True, exist_ok=True)
    page = tmp_path / f"{name}.html"
    page.write_text(html_page, encoding="utf-8")
    shot = keep / f"{name}.png"
    run_chromium(f"--screenshot={shot}", page.as_uri())
    assert png_size(shot)[0] == WIDTH
    return shot


def test_a_sheet_is_a_card_on_a_phone_with_fate_cores_box_values(db, config, tmp_path):
    """issue 27: /sheet in HTML was a wrapping monospace block, and Fate Core's escalating
    boxes showed as [ ][x][ ] without what each absorbs. Now a card: a labelled row per
    part, skills a row per rating, the boxes drawn with their values, in the system's track
    order; it fits 400 px (the PNG is for a person to look at)."""
    from pbp.campaigns import create_campaign, import_character
    from tests.play.table import MailTable

    campaign = create_campaign("crypt", "The Crypt", system="fate-core", address="table+crypt@pbp.localhost",
                               gms=["gm@pbp.localhost"])
    for sheet in sorted((golden.GOLDEN / "fate_core_conflict" / "sheets").glob("*.toml")):
        import_character(campaign, str(sheet))
    mt = MailTable(config)
    step = mt.post("Ruth", "/sheet\n")
    assert step.status == "applied", step.text
    page = step.replies[0].html
    assert "<pre" not in page and "font-family:monospace" not in page
    card = page[page.index("border-radius:8px"):]
    assert "physical stress" in card and card.index("physical stress") < card.index("mental stress")
    assert re.search(r'</span><span style="font-size:12px; color:#444;">1</span>.*?'
                     r'<span style="font-size:12px; color:#444;">2</span>', card), card[:3000]
    assert "(boxes of 1, 2" in step.text                      # the plain text says the values too
    assert ">+4</span> " in card or ">+3</span> " in card     # skills by rating
    (scroll, client), = widths([page], tmp_path)
    assert scroll <= client == WIDTH
    _shoot(page, "fate-core-sheet", tmp_path)


def test_a_contest_board_is_a_card_not_a_wall_of_bold(chicago, config, tmp_path):
    """issue 27: a contest's tally was a bold paragraph per line in HTML, and in Markdown
    "**  Ruth and Charles ...**", which a forum shows with the asterisks. Now the heading is
    bold and each side a plain line under it, in a box; Markdown lists the sides."""
    from pbp.render import status_blocks

    table, _ = golden.play("contest_chase", config)
    reply = table.steps[2].replies[0]
    page = reply.html
    head = 'Contest &#34;The Chase&#34;, exchange 1' if "&#34;" in page else "Contest &quot;The Chase&quot;, exchange 1"
    at = page.index(head)
    board = page[page.rindex("<div", 0, at - 30):]
    assert board.count("font-weight:bold") == 1, board[:1500]
    assert "0 victories; this exchange: owes an overcome</div>" in board
    blocks = status_blocks(["Contest \"X\":", "  A: 0 victories", "  B: 1 victory", "Turn: Ruth"])
    assert blocks == [('Contest "X":', ["A: 0 victories", "B: 1 victory"]), ("Turn: Ruth", [])]
    from pbp.render import Renderer

    status = ['Contest "The Chase", exchange 1, first to 3 victories:', "  Ruth and Charles: 0 victories",
              "  Ghoul: 1 victory"]
    markdown = Renderer()._markdown("result", campaign="Chicago Nights", blocks=[], changes=[], ledger={},
                                    sheets=[], relay=False, asks=[], status=status, notes=[], max_sheets=8,
                                    proof=[])
    assert "**  " not in markdown and "- Ruth and Charles: 0 victories" in markdown
    assert markdown.count("**") == 2
    (scroll, client), = widths([page], tmp_path)
    assert scroll <= client == WIDTH
    _shoot(page, "contest-board", tmp_path)
