"""A player's /sheet under Dresden Files Condensed, by mail, on the sample table of ``pbp demo
--system dfc``: the relationship aspect is labelled "relationship" (000_7ba3f797fc1d45d3.txt,
"Summary of Character Creation", step 9, "Create your Relationship Aspect and any remaining
Free Aspects"), the free aspects "character"."""
from __future__ import annotations

from pbp.demo import create_sample_campaign
from tests.play.table import MailTable


def test_a_players_sheet_labels_the_relationship_aspect(db, config):
    create_sample_campaign("dfc")
    step = MailTable(config).post("Marcus", "/sheet")
    assert step.status == "applied", step.text
    assert "  relationship Nora Dragged Me Into This\n" in step.text
    assert "  character    Knows Every Back Alley on the South Side\n" in step.text
    assert "  character    Ex-Marine\n" in step.text
    assert "character    Nora Dragged Me Into This" not in step.text
