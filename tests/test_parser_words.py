"""One command language: tracks, severities and the stress unit are the campaign's system's.

The grammar accepts the words of every registered system (``pbp.rules.systems.vocabulary``,
filled into grammar/commands.lark like the ladder); ``parse_command(words=System.words)``
reads a line as the campaign's system does: another system's word is refused with this
system's list and an example in its words, and syntax errors list this system's words.
(issue 9, item 3; docs/commands.md "Each system's words".)
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from pbp.commands import Absorb, ConflictStart
from pbp.errors import CommandSyntaxError
from pbp.parser import parse_command
from pbp.rules.systems import FATE_CONDENSED, FATE_CORE, SYSTEMS, StressTable, Words, vocabulary

DOCS = Path(__file__).resolve().parent.parent / "docs" / "commands.md"

# A system with fewer words than Fate's: one track, no extra mild slot.
NARROW = Words(tracks=("physical",), severities=("mild", "moderate", "severe"), units=("stress",), title="Narrow Fate")


def test_a_systems_words_come_from_its_data():
    assert FATE_CONDENSED.words == Words(("physical", "mental"), ("mild", "mild2", "moderate", "severe"),
                                         ("stress",), "Fate Condensed")
    assert FATE_CORE.words.units == ("box",) and FATE_CORE.words.severities == FATE_CONDENSED.words.severities
    no_extra = replace(FATE_CONDENSED, name="no-extra", stress=StressTable(steps=((-99, 3),)))
    assert no_extra.words.severities == ("mild", "moderate", "severe")     # no Superb+ extra mild slot


def test_the_grammar_reads_every_registered_systems_words():
    every = vocabulary()
    for system in SYSTEMS.values():
        assert set(system.words.tracks) <= set(every.tracks)
        assert set(system.words.severities) <= set(every.severities)
        assert set(system.words.units) <= set(every.units)
    assert parse_command('/absorb box 2 mild2 "Bruised Ribs"') == Absorb(
        line=1, source='/absorb box 2 mild2 "Bruised Ribs"', stress=2, consequences=(("mild2", "Bruised Ribs"),))


@pytest.mark.parametrize("system", [FATE_CONDENSED, FATE_CORE], ids=lambda s: s.name)
def test_fate_reads_its_own_words_as_before(system):
    line = '/conflict start Charles, Ghoul first Ghoul mental'
    assert parse_command(line, words=system.words) == parse_command(line)
    assert parse_command(line, words=system.words).kind == "mental"
    line = '/absorb stress 1 MILD2 "Bruised Ribs" severe "Crushed Leg"'
    assert parse_command(line, words=system.words).consequences == (("mild2", "Bruised Ribs"), ("severe", "Crushed Leg"))


def test_another_systems_track_is_refused_with_this_systems_list():
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/conflict start Charles, Ghoul first Ghoul mental", words=NARROW)
    error = caught.value
    assert error.message == '"mental" is not a kind of conflict in Narrow Fate: physical'
    assert (error.column, error.got, error.expected) == (44, "mental", "physical")
    # the author's own line, put right (issue 21: an example names the table's own characters)
    assert error.example == "/conflict start Charles, Ghoul first Ghoul physical"
    parse_command(error.example, words=NARROW)          # the example is in this system's words


def test_another_systems_severity_is_refused_with_this_systems_list():
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command('/absorb stress 1 mild2 "Bruised Ribs"', words=NARROW)
    error = caught.value
    assert error.message == '"mild2" is not a consequence in Narrow Fate: mild, moderate or severe'
    assert (error.column, error.got, error.expected) == (18, "mild2", "mild, moderate or severe")
    assert error.example == '/absorb stress 1 severe "Bruised Ribs"'   # the author's own line, put right
    parse_command(error.example, words=NARROW)


def test_syntax_errors_list_this_systems_words():
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/absorb", words=NARROW)
    assert "a consequence (mild, moderate or severe) and its name" in caught.value.message
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/conflict start Ruth, Ghoul social", words=NARROW)
    assert '"physical" or the end of the line' in caught.value.message
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/conflict start A physical mental", words=replace(NARROW, tracks=("physical", "mental")))
    assert caught.value.message == "a conflict is either physical or mental, not both"


def test_a_fate_condensed_post_lists_only_fate_condensed_words():
    """What a Fate Condensed table is told is what it was told before early Fate existed."""
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/conflict start Ruth, Ghoul social", words=FATE_CONDENSED.words)
    assert caught.value.message == ('expected "," and another character, "first" and who acts first, "physical" or '
                                    '"mental" or the end of the line after "Ghoul", got "social"; if "Ghoul social" '
                                    'is one name, put it in quotes')
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/conflict start A mental physical", words=FATE_CONDENSED.words)
    assert caught.value.message == "a conflict is either physical or mental, not both"
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command("/conflict start A, B first A health", words=FATE_CONDENSED.words)
    assert caught.value.message == '"health" is not a kind of conflict in Fate Condensed: physical or mental'
    # the one change since: the example is the author's own line put right (issue 21)
    assert caught.value.example == "/conflict start A, B first A mental"


def _docs_words() -> dict[str, tuple[str, str, str]]:
    text = DOCS.read_text(encoding="utf-8")
    section = text.split("### Each system's words", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for raw in section.splitlines():
        cells = [c.strip() for c in raw.strip().strip("|").split("|")]
        if raw.startswith("|") and len(cells) == 4 and cells[0] not in ("System", "---"):
            rows[cells[0]] = tuple(", ".join(re.findall(r"`([^`]+)`", c)) for c in cells[1:])
    return rows


def test_docs_show_each_registered_systems_words():
    rows = _docs_words()
    for system in SYSTEMS.values():
        words = system.words
        assert rows[system.title] == (", ".join(words.tracks), ", ".join(words.severities),
                                      ", ".join(f"{u} N" for u in words.units)), system.name


def _examples(path: Path) -> list[str]:
    found, column = [], None
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.startswith("|"):
            column = None
            continue
        cells = [c.strip() for c in raw.strip().strip("|").split("|")]
        if column is None:
            column = cells.index("Example") if "Example" in cells else -1
        elif 0 <= column < len(cells):
            found += [s for s in re.findall(r"`([^`]+)`", cells[column]) if s.startswith("/")]
    return found


def test_the_early_fate_page_examples_read_in_early_fate():
    from pbp.rules.systems import EARLY_FATE

    examples = _examples(DOCS.parent / "early-fate.md")
    assert len(examples) >= 4
    for line in examples:
        parse_command(line, words=EARLY_FATE.words)


def test_the_dresden_files_condensed_page_examples_read_in_it():
    """Every example of docs/dresden-files-condensed.md's tables parses with its words, and
    a condition's kind is refused in Fate Condensed with that system's list."""
    from pbp.rules.systems import DRESDEN_FILES_CONDENSED, FATE_CONDENSED

    examples = _examples(DOCS.parent / "dresden-files-condensed.md")
    assert len(examples) >= 5
    for line in examples:
        parse_command(line, words=DRESDEN_FILES_CONDENSED.words)
    cmd = parse_command('/absorb stress 1 lasting "Door-Burned"', words=DRESDEN_FILES_CONDENSED.words)
    assert cmd.consequences == (("lasting", "Door-Burned"),) and cmd.stress == 1
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command('/absorb lasting "Door-Burned"', words=FATE_CONDENSED.words)
    assert caught.value.message.startswith('"lasting" is not a consequence in Fate Condensed: mild, mild2')


def test_scale_is_named_with_the_action():
    """``+scale`` (before the roll), ``+scale after``, ``+scale invokes``; "invoke" stays /invoke's."""
    from pbp.commands import ScaleUse

    assert parse_command("/attack Ghoul with Fight +scale").scale == ScaleUse("before")
    assert parse_command("/overcome Lore vs Ghoul +scale after +1").scale == ScaleUse("after")
    assert parse_command('/advantage Lore "Circle" vs Ghoul +scale invokes').scale == ScaleUse("invokes")
    assert parse_command('/attack Ghoul with Fight +scale +invoke "Distracted"').invokes[0].aspect == "Distracted"
    with pytest.raises(CommandSyntaxError):
        parse_command("/attack Ghoul with Fight +scale after +scale")
