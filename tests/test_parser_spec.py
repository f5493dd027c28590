"""The command rows of :mod:`pbp.parser.spec` agree with the grammar, the docs and the ladder."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbp.commands import Command
from pbp.parser import LADDER, SPECS, parse_command
from pbp.parser.grammar import get_parser, grammar
from pbp.parser.spec import GM_ONLY, PART_OF
from pbp.resources import resource_path
from pbp.rules import ladder as rules_ladder

DOCS = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


def _sections() -> dict[str, str]:
    """Heading text -> the text under it, for every ## and ### of docs/commands.md."""
    found, title = {}, None
    for raw in DOCS.read_text(encoding="utf-8").splitlines():
        if raw.startswith("#"):
            title = raw.lstrip("#").strip()
            found[title] = ""
        elif title is not None:
            found[title] += raw + "\n"
    return found


@pytest.mark.parametrize("spec", SPECS, ids=[spec.word for spec in SPECS])
def test_each_row_matches_the_grammar_and_its_docs(spec):
    terminals = {str(t.name) for t in get_parser().terminals}
    assert spec.terminal in terminals
    assert {k for k in (*spec.parts, *spec.roles, *spec.lists, *spec.says) if k not in terminals} == set()
    command = parse_command(spec.example)
    assert isinstance(command, Command) and spec.example.split()[0] == "/" + spec.word
    if spec.gm_example:
        assert parse_command(spec.gm_example).actor == "Ghoul"
    for example in spec.parts.values():
        assert example.startswith("/" + spec.word + " ") or example == "/" + spec.word
        parse_command(example)
    section = _sections()[spec.doc]
    assert f"/{spec.word}" in section, f"/{spec.word} is not documented under {spec.doc!r}"
    assert spec.who in ("anyone", "gm")


def test_the_gm_only_rows():
    assert set(GM_ONLY) == {"as", "approve", "deny", "veto", "cost", "scene", "reveal", "hold", "session", "milestone", "aspect",
                            "conflict", "place", "npc", "challenge", "contest", "pace"}


def test_a_part_written_as_a_command_names_every_command_it_belongs_to():
    assert PART_OF["_END"] == ("/scene end, /session end, /conflict end, /challenge end or /contest end", "/scene end")
    assert PART_OF["_ADD"][0] == "/aspect add or /npc add"


def test_the_ladder_is_the_rules_ladder():
    """The parser's ladder words (the LADDER terminal and the builder's values) come from
    pbp.rules.ladder: a word added there is read by the grammar with its value."""
    assert LADDER == {name.lower(): value for value, name in rules_ladder.LADDER.items()}
    raw = resource_path("grammar", "commands.lark").read_text(encoding="utf-8")
    assert "@LADDER@" in raw and not re.search(r"legendary|horrifying", raw, re.I)
    assert "@LADDER@" not in grammar()
    for value, name in rules_ladder.LADDER.items():
        assert parse_command(f"/overcome Athletics vs {name}").opposition.rating == value
        assert parse_command(f"/npc add Ghoul skills Fight {name.upper()}").skills == (("Fight", value),)


_OTHER_LANGUAGES = [code for code in __import__("pbp.i18n", fromlist=["LANGUAGES"]).LANGUAGES if code != "en"]


@pytest.mark.parametrize("code", _OTHER_LANGUAGES)
@pytest.mark.parametrize("spec", SPECS, ids=[spec.word for spec in SPECS])
def test_each_row_has_its_words_and_example_in_every_language(spec, code):
    """A new command cannot miss its words (issue 29): every row names its words and a
    working example in every language pbp speaks; the example starts with the first word,
    parses to the same command type as the English example, and so does the word without
    its accents ("/forcar" as "/forçar")."""
    from pbp.i18n import fold
    from pbp.rules.systems import FATE_CONDENSED
    from pbp.rules.systems.speaking import speaking

    words = speaking(FATE_CONDENSED, code).words
    assert spec.words.get(code), f"/{spec.word} has no words in {code} (Spec.words)"
    example = spec.examples.get(code)
    assert example and example.split()[0] == "/" + spec.words[code][0]
    english = type(parse_command(spec.example))
    assert type(parse_command(example, words=words)) is english
    assert type(parse_command(fold(example.split()[0]) + example[len(example.split()[0]):], words=words)) is english
    # English keeps working in the campaign of another language
    assert type(parse_command(spec.example, words=words)) is english
