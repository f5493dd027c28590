"""Golden error replies: every field of the error a player gets for the common mistakes.

A wrong keyword, a missing part, an unknown command with a suggestion (and a part of a
command written as if it were one), and a GM-only command from a player. The parser's are
compared field by field, so a change to the explainer or to a command's row in
:mod:`pbp.parser.spec` that changes what a player reads fails here first.
"""
from __future__ import annotations

import pytest

from pbp.errors import CommandSyntaxError
from pbp.parser import EXAMPLES, parse_command
from tests.helpers import eml, make_ctx

COMMANDS = ", ".join("/" + word for word in EXAMPLES)

GOLDEN = [
    # a wrong keyword
    ("/attack Ghoul using Fight", dict(
        message='expected "with" and a skill name after "Ghoul", got "using"', column=15, got="using",
        expected='"with" and a skill name after "Ghoul"', example='/attack Ghoul with Fight +invoke "Distracted" free')),
    ('/scene strat "Warehouse"', dict(
        message='expected "start" or "end" after "scene", got "strat"', column=8, got="strat",
        expected='"start" or "end" after "scene"',
        example='/scene start "Warehouse" zones Dock, Office borders Dock-Office')),
    # a missing part
    ("/overcome Athletics vs", dict(
        message='expected a difficulty (a ladder word like Fair or a number like +2) or an opposing character '
                'after "vs", but the line ended', column=23, got="",
        expected='a difficulty (a ladder word like Fair or a number like +2) or an opposing character after "vs"',
        example="/overcome Investigate vs Fair")),
    ('/give "On Fire" to', dict(
        message='expected who gets them (a character name) after "to", but the line ended', column=19, got="",
        expected='who gets them (a character name) after "to"', example='/give "On Fire" to Ruth')),
    # an unknown command, with a suggestion
    ("/atack Ghoul with Fight", dict(
        message='unknown command "atack" — did you mean /attack?', column=2, got="atack",
        expected="a command: " + COMMANDS, example='/attack Ghoul with Fight +invoke "Distracted" free')),
    ("/as Ghoul atack Charles with Fight", dict(
        message='unknown action "atack" after /as NAME — did you mean attack?', column=11, got="atack",
        expected="a command for that character: roll, overcome, advantage, create, attack, defend, next, done, "
                 "move, invoke, absorb, concede, treat, compel, detail, give, help",
        example="/as Ghoul attack Charles with Fight")),
    # a part written as a command (these suggested /attack and /scene before the parts were rows)
    ("/take Ruth 1", dict(
        message='unknown command "take" — did you mean /fp take?', column=2, got="take",
        expected="a command: " + COMMANDS, example="/fp take Ruth 1")),
    ("/spend", dict(
        message='unknown command "spend" — did you mean /fp spend?', column=2, got="spend",
        expected="a command: " + COMMANDS, example='/fp spend "for the story detail"')),
    ("/end", dict(
        message='unknown command "end" — did you mean /scene end, /session end, /conflict end, /challenge end or /contest end?', column=2,
        got="end", expected="a command: " + COMMANDS, example="/scene end")),
]


@pytest.mark.parametrize("line, want", GOLDEN, ids=[line for line, _ in GOLDEN])
def test_parser_error_golden(line, want):
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command(line)
    error = caught.value
    assert {key: getattr(error, key) for key in want} == want


@pytest.mark.parametrize("line, what, example", [
    ("/scene end", "/scene", "/table"),     # a player is never shown a GM's command (issue 21)
    ('/aspect add "Deep Shadows"', "/aspect add", '/advantage Notice "Deep Shadows" vs Fair'),
    ("/fp give Ruth 1", "/fp give", '/fp spend "to declare a story detail"'),
])
def test_a_gm_only_command_from_a_player_is_refused_golden(chicago, config, line, what, example):
    from pbp.pipeline import process_message

    out = process_message(eml(line + "\n", sender="ruth@pbp.localhost", message_id="gm-only@t"), make_ctx(config))
    assert out.status == "rejected"
    [error] = out.errors
    assert (error["type"], error["message"], error["expected"], error["example"]) == (
        "NotAllowedError", f"{what} is for the GM", "a GM address", example)


def test_who_in_each_row_is_what_the_handlers_allow(chicago, config):
    """A player sending a ``who="gm"`` row's example is refused (as "for the GM", or, for
    /as, /approve and /deny, because nothing there is the player's), and no ``who="anyone"``
    row is refused as "for the GM": the spec and the handlers must not drift apart."""
    from pbp.parser import SPECS
    from pbp.pipeline import process_message

    wrong = []
    for n, spec in enumerate(SPECS):
        out = process_message(eml(spec.example + "\n", sender="ruth@pbp.localhost", message_id=f"who-{n}@t"),
                              make_ctx(config))
        gm_only = any(e["type"] == "NotAllowedError" and "for the GM" in e["message"] for e in out.errors)
        if (out.status != "rejected") if spec.who == "gm" else gm_only:
            wrong.append((spec.word, spec.who, out.status, [e["message"] for e in out.errors]))
    assert not wrong
