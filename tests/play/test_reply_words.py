"""Replies in player words (issue 14, item 5), across the golden conversations: no
internals ("taken out False -> True", "the pcs win", "1 shifts", "none -> created",
"modifiermodifier"), and a scene's end that fits on a phone screen. The transcripts are
what the golden tests compare pbp's replies with, so reading them reads the replies."""
from __future__ import annotations

import pytest

from pbp.render import flow
from tests.play import golden

INTERNAL = ["False -> True", "True -> False", "the pcs", "the npcs", " 1 shifts", "none -> created", "none -> ",
            "modifiermodifier", "modifier", " escrow ", "(physical) stress", "character none"]
CASES = sorted(p.name for p in golden.GOLDEN.iterdir() if (p / "expected.txt").exists())


@pytest.mark.parametrize("case", CASES)
def test_no_internal_words_in_the_replies(case):
    text = (golden.GOLDEN / case / "expected.txt").read_text(encoding="utf-8")
    found = {word: text.count(word) for word in INTERNAL if word in text}
    assert not found, f"{case}: {found}"


@pytest.mark.slow
def test_a_scenes_end_fits_on_a_phone_screen(chicago, config):
    table, _ = golden.play("whole_conflict", config)
    (end,) = [r for step in table.steps for r in step.replies if "ends: stress clears" in r.text]
    # a phone shows about 40 characters a line: the reply, reflowed, in under 20 lines
    lines = flow(end.text, width=40).splitlines()
    assert len(lines) <= 20, "\n".join(lines)
    assert "physical stress cleared: Cassandra, Ethan, Ghoul, Ruth, Shoggoth" in end.text
    assert "Sheets changed: " in end.text and "Sheets:\n" not in end.text
