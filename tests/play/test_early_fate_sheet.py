"""Early Fate's consequences take the whole hit (002_3a4e52a093e280aa.txt, "Consequences":
a consequence taken instead of stress absorbs the entire hit), so its sheets say so in words,
not with the bookkeeping number behind it (``WHOLE_HIT``): the player's /sheet and
``pbp sheet`` show "mild (free), takes the whole hit"; Fate Condensed's sheet keeps its
shifts ("mild 2: (free)")."""
from __future__ import annotations

from pbp.cli import main
from pbp.demo import create_sample_campaign, sample_dir
from tests.play.table import MailTable


def test_the_players_sheet_says_the_consequence_takes_the_whole_hit(db, config):
    create_sample_campaign("early-fate")
    t = MailTable(config)
    step = t.post("Jet", "/sheet")
    assert step.status == "applied", step.text
    assert "mild         (free), takes the whole hit" in step.text
    assert "severe       (free), takes the whole hit" in step.text
    assert "99" not in step.text


def test_a_filled_early_fate_slot_shows_its_aspect(db, config):
    create_sample_campaign("early-fate")
    t = MailTable(config)
    t.post("GM", '/scene start "Pier 9"\n/conflict start Jet, Brute first Brute')
    # the Brute's attack beats Jet's defence: a hit Jet absorbs with a consequence
    t.post("GM", "/as Brute attack Jet with Fists", dice="+++0")
    t.post("Jet", "/defend Athletics", dice="--00")
    step = t.post("Jet", '/absorb mild "Split Lip"')
    sheet = t.post("Jet", "/sheet")
    assert "mild         Split Lip" in sheet.text, step.text
    assert "moderate     (free), takes the whole hit" in sheet.text


def test_pbp_sheet_prints_it_in_words(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "docks", "--system", "early-fate", "--gm", "gm@pbp.localhost"]) == 0
    assert main(["character", "import", str(sample_dir("early-fate") / "jet.toml"), "--campaign", "docks"]) == 0
    capsys.readouterr()
    assert main(["sheet", "Jet", "--campaign", "docks"]) == 0
    text = capsys.readouterr().out
    assert "mild         (free), takes the whole hit" in text and "99" not in text


def test_fate_condensed_sheets_keep_their_shifts(db, config):
    create_sample_campaign()
    step = MailTable(config).post("Ruth", "/sheet")
    assert "mild         2: (free)" in step.text and "severe       6: (free)" in step.text
