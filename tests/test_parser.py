"""The command grammar and parser: every form to its exact dataclass, the errors a player
meets, a property test that nothing but CommandSyntaxError escapes, and the docs examples."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp import parser as parser_module
from pbp.commands import (
    Advantage,
    Attack,
    Choice,
    Command,
    Defend,
    FatePoints,
    Invoke,
    InvokeMode,
    Opposition,
    Overcome,
    Payment,
    Roll,
    Sheet,
    StuntUse,
)
from pbp.errors import CommandError, CommandSyntaxError
from pbp.parser import EXAMPLES, find_commands, get_parser, parse_command, parse_post, parse_post_all
from pbp.resources import resource_path

DOCS = Path(__file__).resolve().parent.parent / "docs" / "commands.md"

FAIR, GOOD = Opposition(rating=2), Opposition(rating=3)


def made(cls, source, **fields):
    return cls(line=1, source=source, **fields)


FORMS = [
    # -- rolls
    ("/roll 4dF+2", Roll, dict(count=4, sides="F", modifier=2)),
    ("/roll 4df", Roll, dict(count=4, sides="F")),
    ("/roll dF", Roll, dict(count=1, sides="F")),
    ("/roll", Roll, dict()),
    ("/roll Fight", Roll, dict(skill="Fight")),
    ("/roll Fight+1", Roll, dict(skill="Fight", modifier=1)),
    ("/roll Fight-1", Roll, dict(skill="Fight", modifier=-1)),
    ("/roll 4dF+Fight", Roll, dict(skill="Fight")),
    ("/roll 4dF+Fight+1", Roll, dict(skill="Fight", modifier=1)),
    ("/roll 3d6", Roll, dict(count=3, sides="6")),
    ("/roll 2d10+1", Roll, dict(count=2, sides="10", modifier=1)),
    ("/roll 2d10 - 1", Roll, dict(count=2, sides="10", modifier=-1)),
    ("/roll 4dF+2-1", Roll, dict(modifier=1)),
    ("/roll 100d1000", Roll, dict(count=100, sides="1000")),
    ("/roll 1d2", Roll, dict(count=1, sides="2")),
    ("/roll 3d06", Roll, dict(count=3, sides="6")),
    # -- overcome
    ("/overcome Investigate vs Fair", Overcome, dict(skill="Investigate", opposition=FAIR)),
    ("/overcome Athletics vs +3", Overcome, dict(skill="Athletics", opposition=Opposition(rating=3))),
    ("/overcome Athletics vs 3", Overcome, dict(skill="Athletics", opposition=Opposition(rating=3))),
    ("/overcome Athletics vs -1", Overcome, dict(skill="Athletics", opposition=Opposition(rating=-1))),
    ("/overcome Athletics vs Ghoul", Overcome, dict(skill="Athletics", opposition=Opposition(character="Ghoul"))),
    ("/overcome Athletics vs Ghoul using Physique", Overcome,
     dict(skill="Athletics", opposition=Opposition(character="Ghoul", skill="Physique"))),
    ("/overcome Athletics vs \"Fair\"", Overcome, dict(skill="Athletics", opposition=Opposition(character="Fair"))),
    ("/overcome Athletics", Overcome, dict(skill="Athletics")),
    ("/overcome Athletics vs. Horrifying", Overcome, dict(skill="Athletics", opposition=Opposition(rating=-4))),
    ("/overcome Athletics versus Legendary", Overcome, dict(skill="Athletics", opposition=Opposition(rating=8))),
    ("/overcome Athletics vs Catastrophic", Overcome, dict(skill="Athletics", opposition=Opposition(rating=-3))),
    ("/overcome Athletics vs Mediocre", Overcome, dict(skill="Athletics", opposition=Opposition(rating=0))),
    ("/overcome Athletics vs Fair +1", Overcome, dict(skill="Athletics", opposition=FAIR, modifier=1)),
    ("/overcome Athletics vs Fair-1", Overcome, dict(skill="Athletics", opposition=FAIR, modifier=-1)),
    # -- create an advantage
    ('/advantage Crafts "On Fire" on Shoggoth vs Good', Advantage,
     dict(skill="Crafts", aspect="On Fire", target="Shoggoth", opposition=GOOD)),
    ('/advantage Notice "Loose Floorboard" vs Fair', Advantage,
     dict(skill="Notice", aspect="Loose Floorboard", opposition=FAIR)),
    ("/advantage Notice discover on Ghoul", Advantage, dict(skill="Notice", discover=True, target="Ghoul")),
    ("/advantage Notice discover", Advantage, dict(skill="Notice", discover=True)),
    ('/advantage Empathy "Hungry for Flesh" on Ghoul', Advantage,
     dict(skill="Empathy", aspect="Hungry for Flesh", target="Ghoul")),
    ('/create Crafts "On Fire" on Shoggoth vs Good', Advantage,
     dict(skill="Crafts", aspect="On Fire", target="Shoggoth", opposition=GOOD)),
    ("/advantage Notice Distracted on Ghoul vs Ghoul using Will", Advantage,
     dict(skill="Notice", aspect="Distracted", target="Ghoul", opposition=Opposition(character="Ghoul", skill="Will"))),
    ('/advantage Crafts "On Fire" on tie boost', Advantage,
     dict(skill="Crafts", aspect="On Fire", choices=(Choice("tie", "boost"),))),
    # -- attack
    ("/attack Ghoul with Fight", Attack, dict(target="Ghoul", skill="Fight")),
    ('/attack "Masked Acolyte" with Shoot +invoke Distracted free', Attack,
     dict(target="Masked Acolyte", skill="Shoot", invokes=(Invoke("Distracted", payment=Payment.FREE),))),
    ("/attack Fair with Fight", Attack, dict(target="Fair", skill="Fight")),
    # -- defend
    ("/defend Athletics", Defend, dict(skill="Athletics")),
    ("/defend Athletics vs Great", Defend, dict(skill="Athletics", opposition=Opposition(rating=4))),
    ("/defend Will vs Ghoul", Defend, dict(skill="Will", opposition=Opposition(character="Ghoul"))),
    # -- GM prefix
    ("/as Ghoul attack Charles with Fight", Attack, dict(actor="Ghoul", target="Charles", skill="Fight")),
    ('/as "Masked Acolyte" overcome Athletics vs Fair', Overcome,
     dict(actor="Masked Acolyte", skill="Athletics", opposition=FAIR)),
    ('/as Ghoul advantage Deceive "Feint" on Charles', Advantage,
     dict(actor="Ghoul", skill="Deceive", aspect="Feint", target="Charles")),
    ("/as Ghoul defend Athletics", Defend, dict(actor="Ghoul", skill="Athletics")),
    ("/as Ghoul roll 4dF+Fight", Roll, dict(actor="Ghoul", skill="Fight")),
    ("/as Ghoul roll 3d6", Roll, dict(actor="Ghoul", count=3, sides="6")),
    # -- sheets and fate points
    ("/sheet", Sheet, dict()),
    ("/sheet Ruth", Sheet, dict(character="Ruth")),
    ('/sheet "Masked Acolyte"', Sheet, dict(character="Masked Acolyte")),
    ("/fp", FatePoints, dict(op="show")),
    ("/fp show", FatePoints, dict(op="show")),
    ("/fp Ruth", FatePoints, dict(op="show", character="Ruth")),
    ("/fp spend", FatePoints, dict(op="spend")),
    ('/fp spend "for the story detail"', FatePoints, dict(op="spend", reason="for the story detail")),
    ("/fp give Ruth 1", FatePoints, dict(op="give", character="Ruth", amount=1)),
    ("/fp give Ruth", FatePoints, dict(op="give", character="Ruth", amount=1)),
    ("/fp take Ruth 2", FatePoints, dict(op="take", character="Ruth", amount=2)),
]


@pytest.mark.parametrize("source,cls,fields", FORMS, ids=[f[0] for f in FORMS])
def test_each_form_gives_its_exact_dataclass(source, cls, fields):
    assert parse_command(source) == made(cls, source, **fields)


INVOKES = [
    ('+invoke "Distracted"', Invoke("Distracted")),
    ('+invoke "Distracted" reroll', Invoke("Distracted", mode=InvokeMode.REROLL)),
    ('+invoke "Distracted" oppose', Invoke("Distracted", mode=InvokeMode.OPPOSE)),
    ('+invoke "Distracted" free', Invoke("Distracted", payment=Payment.FREE)),
    ('+invoke "Distracted" fp', Invoke("Distracted", payment=Payment.FATE_POINT)),
    ('+invoke "Distracted" if needed', Invoke("Distracted", if_needed=True)),
    ('+invoke "Distracted" free x2', Invoke("Distracted", payment=Payment.FREE, times=2)),
    ('+invoke "Distracted" x2 free', Invoke("Distracted", payment=Payment.FREE, times=2)),
    ('+invoke "Distracted" ×3', Invoke("Distracted", times=3)),
    ("+invoke Hungry reroll fp if needed",
     Invoke("Hungry", mode=InvokeMode.REROLL, payment=Payment.FATE_POINT, if_needed=True)),
    ("+invoke Hungry if needed fp reroll",
     Invoke("Hungry", mode=InvokeMode.REROLL, payment=Payment.FATE_POINT, if_needed=True)),
    ("+ invoke Hungry", Invoke("Hungry")),
    ("+INVOKE Hungry FREE", Invoke("Hungry", payment=Payment.FREE)),
    ("+invoke Hungry free free", Invoke("Hungry", payment=Payment.FREE)),
]


@pytest.mark.parametrize("text,invoke", INVOKES, ids=[i[0] for i in INVOKES])
def test_invoke_options(text, invoke):
    source = f"/attack Ghoul with Fight {text}"
    assert parse_command(source).invokes == (invoke,)


def test_modifiers_in_any_order_and_repeated():
    source = ('/attack Ghoul with Fight on tie boost +invoke "Distracted" free -2 +stunt "Killer Instinct" '
              "+invoke Hungry if needed + 3 on style boost +stunt Brawler on fail cost")
    assert parse_command(source) == made(
        Attack, source, target="Ghoul", skill="Fight",
        invokes=(Invoke("Distracted", payment=Payment.FREE), Invoke("Hungry", if_needed=True)),
        stunts=(StuntUse("Killer Instinct"), StuntUse("Brawler")),
        modifier=1,
        choices=(Choice("tie", "boost"), Choice("style", "boost"), Choice("fail", "cost")),
    )


@pytest.mark.parametrize("text,outcome,take", [
    ("on tie boost", "tie", "boost"), ("on fail cost", "fail", "cost"),
    ("on style boost", "style", "boost"), ("on failure cost", "fail", "cost"), ("ON TIE BOOST", "tie", "boost"),
])
def test_outcome_choices(text, outcome, take):
    assert parse_command(f"/overcome Athletics vs Good {text}").choices == (Choice(outcome, take),)


@pytest.mark.parametrize("action", [
    "overcome Athletics vs Fair +invoke Slick free on tie boost",
    'advantage Crafts "On Fire" on Shoggoth vs Good +1',
    "attack Charles with Fight +stunt Claws",
    "defend Athletics vs Ghoul using Fight",
    "roll 4dF+Fight+1",
])
def test_as_prefix_works_for_every_action_and_roll(action):
    plain = parse_command("/" + action)
    gm = parse_command('/as "Masked Acolyte" ' + action)
    assert gm.actor == "Masked Acolyte"
    assert type(gm) is type(plain)
    assert {k: v for k, v in vars(gm).items() if k not in ("actor", "source")} == \
        {k: v for k, v in vars(plain).items() if k not in ("actor", "source")}


def test_keywords_are_case_insensitive_and_names_keep_their_case():
    assert parse_command("/OVERCOME athletics VS fair") == made(
        Overcome, "/OVERCOME athletics VS fair", skill="athletics", opposition=FAIR)
    assert parse_command("/Roll 4DF+2").sides == "F"
    assert parse_command("/AS ghoul ATTACK charles WITH fight").actor == "ghoul"


@pytest.mark.parametrize("quoted", ['"On Fire"', "“On Fire”", "„On Fire“", "«On Fire»", "'On Fire'", "‘On Fire’",
                                    '"On Fire”', '"  On   Fire "', '"On\u00a0Fire"'])
def test_every_kind_of_quote(quoted):
    assert parse_command(f"/advantage Crafts {quoted} on Shoggoth").aspect == "On Fire"


@pytest.mark.parametrize("text,name", [
    ("O'Malley", "O'Malley"), ("O’Malley", "O'Malley"), ("Hair-Trigger", "Hair-Trigger"),
    ("Agent47", "Agent47"), ("Zoë", "Zoë"), ("Zoe\u0308", "Zoë"),
    ("'O'Malley's Pub'", "O'Malley's Pub"), ("‘O’Malley’s Pub’", "O'Malley's Pub"),
])
def test_bare_and_quoted_names(text, name):
    assert parse_command(f"/attack {text} with Fight").target == name


def test_keywords_are_names_where_no_keyword_is_allowed():
    assert parse_command("/attack With with Fight").target == "With"
    assert parse_command("/sheet vs").character == "vs"
    assert parse_command("/overcome Athletics vs Fairy").opposition == Opposition(character="Fairy")
    assert parse_command("/overcome Athletics vs Good-Natured").opposition == Opposition(character="Good-Natured")


def test_line_and_source_and_surrounding_blanks():
    command = parse_command("   /roll 4dF  \r", line=7)
    assert (command.line, command.source) == (7, "/roll 4dF")
    assert command.name == "roll"


# ---------------------------------------------------------------------------- finding commands


def test_find_commands_takes_slash_letter_lines_only():
    post = "\n".join([
        "Ruth ducks.",                      # 1
        "/attack Ghoul with Fight",         # 2
        "  /defend Athletics  ",            # 3
        "/ roll",                           # 4: a space: prose
        "// a comment",                     # 5
        "/2 is a fraction",                 # 6
        "/usr/bin/env python",              # 7: a path
        "see /roll in the text",            # 8: not first
        "/Roll 4dF",                        # 9
        "> /attack quoted",                 # 10
        "/atack Ghoul",                     # 11: a command, even if a wrong one
    ])
    assert find_commands(post) == [
        (2, "/attack Ghoul with Fight"), (3, "/defend Athletics"), (9, "/Roll 4dF"), (11, "/atack Ghoul"),
    ]


def test_find_commands_counts_crlf_lines():
    assert find_commands("a\r\nb\r\n/fp\r\n") == [(3, "/fp")]


def test_parse_post_returns_every_command_with_its_line():
    post = "The ghoul lunges.\n/defend Athletics\n\n/fp spend\nprose"
    assert parse_post(post) == [
        Defend(line=2, source="/defend Athletics", skill="Athletics"),
        FatePoints(line=4, source="/fp spend", op="spend"),
    ]


def test_parse_post_raises_the_first_error():
    post = "hello\n/attack Ghoul\n/atack Ghoul with Fight\n"
    with pytest.raises(CommandSyntaxError) as caught:
        parse_post(post)
    assert caught.value.line == 2


def test_parse_post_all_returns_every_error():
    post = "/roll 4dF\n/attack Ghoul\nprose\n/atack Ghoul with Fight\n/sheet"
    commands, errors = parse_post_all(post)
    assert [c.line for c in commands] == [1, 5]
    assert [(e.line, e.source) for e in errors] == [(2, "/attack Ghoul"), (4, "/atack Ghoul with Fight")]
    assert all(isinstance(e, CommandSyntaxError) for e in errors)


# ---------------------------------------------------------------------------- errors


def error_of(source: str, line: int = 1) -> CommandSyntaxError:
    with pytest.raises(CommandSyntaxError) as caught:
        parse_command(source, line)
    return caught.value


def test_typo_in_command_suggests_the_command():
    error = error_of("/atack Ghoul with Fight", line=4)
    assert error.message == 'unknown command "atack" — did you mean /attack?'
    assert (error.line, error.column, error.got) == (4, 2, "atack")
    assert error.source == "/atack Ghoul with Fight"
    assert error.example == EXAMPLES["attack"]
    assert "/attack" in error.expected and "/roll" in error.expected
    assert isinstance(error, CommandError)


@pytest.mark.parametrize("source,suggested", [
    ("/overcom Athletics", "overcome"), ("/advantge Notice discover", "advantage"), ("/sheeet", "sheet"),
    ("/rol 4dF", "roll"), ("/attackGhoul with Fight", "attack"), ("/creat Notice discover", "create"),
])
def test_did_you_mean(source, suggested):
    error = error_of(source)
    assert error.message.endswith(f"did you mean /{suggested}?")
    assert error.example == EXAMPLES[suggested]


def test_unknown_command_without_a_close_match():
    error = error_of("/xyzzy plugh")
    assert error.message == 'unknown command "xyzzy"'
    assert error.column == 2 and error.got == "xyzzy"
    assert error.example


def test_unknown_action_after_as():
    error = error_of("/as Ghoul atack Charles with Fight")
    assert error.message == 'unknown action "atack" after /as NAME — did you mean attack?'
    assert (error.column, error.got) == (11, "atack")
    assert error.example == "/as Ghoul attack Charles with Fight"


def test_attack_without_with_says_what_is_missing():
    error = error_of("/attack Ghoul")
    assert error.message == 'expected "with" and a skill name after "Ghoul", but the line ended'
    assert (error.column, error.got) == (14, "")
    assert error.expected == '"with" and a skill name after "Ghoul"'
    assert error.example == EXAMPLES["attack"]


def test_attack_with_no_skill():
    error = error_of("/attack Ghoul with")
    assert error.expected == 'a skill name after "with"'
    assert error.column == 19


def test_attack_skill_without_with_hints_at_quotes():
    error = error_of("/attack Masked Acolyte with Fight")
    assert (error.column, error.got) == (16, "Acolyte")
    assert error.expected == '"with" and a skill name after "Masked"'
    assert 'if "Masked Acolyte" is one name, put it in quotes' in error.message


def test_unterminated_quote():
    error = error_of('/advantage Crafts "On Fire on Shoggoth', line=3)
    assert error.message.startswith("unterminated quote")
    assert (error.line, error.column, error.got) == (3, 19, '"On Fire on Shoggoth')
    assert error.expected == "a closing quote after the name"
    assert error.example == EXAMPLES["advantage"]


def test_empty_quotes():
    error = error_of('/attack "" with Fight')
    assert error.message == "a name in quotes cannot be empty"
    assert (error.column, error.got) == (9, '""')


@pytest.mark.parametrize("source,column,got,expected_part", [
    ("/overcome Athletics vs", 23, "", "a difficulty (a ladder word like Fair or a number like +2)"),
    ("/overcome Athletics vs 2.5", 25, ".5", "the end of the line"),
    ("/overcome Athletics vs +100", 25, "100", "a number from -99 to +99"),
    ("/overcome Athletics vs -100", 25, "100", "a number from -99 to +99"),
    ("/defend Athletics vs +", 23, "", "a number"),
    ("/overcome Athletics vs Fair Good", 29, "Good", "the end of the line"),
])
def test_bad_difficulty(source, column, got, expected_part):
    error = error_of(source)
    assert (error.column, error.got) == (column, got)
    assert expected_part in error.expected
    assert error.example == EXAMPLES[source.split()[0][1:]]


@pytest.mark.parametrize("source,message,got", [
    ("/roll 0d6", "a roll may use 1 to 100 dice, not 0", "0d6"),
    ("/roll 101dF", "a roll may use 1 to 100 dice, not 101", "101dF"),
    ("/roll 3d1", "dice may have 2 to 1000 sides (or F), not 1", "3d1"),
    ("/roll 3d1001", "dice may have 2 to 1000 sides (or F), not 1001", "3d1001"),
    ("/roll 99999999999999999999d6", "a roll may use 1 to 100 dice, not 99999999999999999999",
     "99999999999999999999d6"),
    ("/roll 4d" + "9" * 5000, "dice may have 2 to 1000 sides (or F), not " + "9" * 19 + "…", "4d" + "9" * 57 + "…"),
])
def test_roll_limits(source, message, got):
    error = error_of(source)
    assert error.message == message
    assert (error.column, error.got) == (7, got)
    assert error.expected == "1 to 100 dice with F or 2 to 1000 sides, e.g. 4dF or 3d6"
    assert error.example == EXAMPLES["roll"]


def test_long_text_is_shortened_in_errors():
    error = error_of("/" + "x" * 5000)
    assert error.message == f'unknown command "{"x" * 39}…"'
    error = error_of("/attack " + "y" * 5000)
    assert len(error.message) < 200 and len(error.got) <= 60


def test_roll_limits_under_as_use_the_gm_example():
    error = error_of("/as Ghoul roll 500d6")
    assert error.column == 16
    assert error.example == "/as Ghoul roll Fight"


def test_trailing_prose_is_an_error():
    error = error_of("/overcome Athletics vs Fair and then I run")
    assert (error.column, error.got) == (29, "and")
    assert "the end of the line" in error.expected
    assert "own line" in error.message


@pytest.mark.parametrize("source,message_part", [
    ("/attack Ghoul with Fight +invoke X reroll oppose", "either reroll or oppose"),
    ("/attack Ghoul with Fight +invoke X free fp", "either free or fp"),
    ("/attack Ghoul with Fight +invoke X x2 x3", "one count"),
    ("/attack Ghoul with Fight +invoke X x0", "the number of invokes must be from 1 to 99"),
    ("/fp give Ruth 0", "the number of fate points must be from 1 to 99"),
    ("/overcome Athletics vs Fair +60 +60", "add up to +120"),
    ("/roll 4dF+60+60", "add up to +120"),
])
def test_values_the_grammar_reads_but_refuses(source, message_part):
    assert message_part in error_of(source).message


@pytest.mark.parametrize("source,expected,example", [
    ("/", "a command", EXAMPLES["roll"]),
    ("roll 4dF", '"/" and a command', EXAMPLES["roll"]),
    ("/attack Ghoul with Fight +", '"invoke", "stunt" or a number after "+"', EXAMPLES["attack"]),
    ("/attack Ghoul with Fight +invoke", 'an aspect name after "invoke"', EXAMPLES["attack"]),
    ("/attack Ghoul with Fight +invoke X if", '"needed"', EXAMPLES["attack"]),
    ("/attack Ghoul with Fight on tie", '"boost" or "cost" after "tie"', EXAMPLES["attack"]),
    ("/advantage Notice on Ghoul", 'an aspect name (in quotes if it has spaces) or "discover"', EXAMPLES["advantage"]),
    ("/fp spend for the story", 'a reason in quotes or the end of the line after "spend"', '/fp spend "for the story detail"'),
    ("/fp give", 'a character name after "give"', "/fp give Ruth 1"),
    ("/as Ghoul sheet", "an action (overcome, advantage, attack, defend or roll)", EXAMPLES["as"]),
    ("/roll 4dF+2 for Fight", "a modifier (+2, -1) or the end of the line", EXAMPLES["roll"]),
    ("/overcome Athletics vs Ghoul using", 'a skill name after "using"', EXAMPLES["overcome"]),
])
def test_expected_is_said_in_words(source, expected, example):
    error = error_of(source)
    assert expected in error.expected
    assert error.example == example
    assert not re.search(r"\b_?[A-Z]{2,}\b|\$END", error.expected), error.expected  # no raw terminal names


def test_error_fields_are_serialisable():
    data = error_of("/attack Ghoul").to_dict()
    assert data["type"] == "CommandSyntaxError"
    assert set(data) >= {"message", "line", "column", "source", "expected", "example"}


# ---------------------------------------------------------------------------- the parser itself


def test_parser_is_built_once_with_lalr():
    parser = get_parser()
    assert parser is get_parser()
    assert parser.options.parser == "lalr"
    assert parser.options.lexer == "contextual"


def test_grammar_is_found_by_resource_path():
    path = resource_path("grammar", "commands.lark")
    assert path.name == "commands.lark" and path.is_file()
    with pytest.raises(FileNotFoundError):
        resource_path("grammar", "missing.lark")
    with pytest.raises(ValueError):
        resource_path("fonts", "x")


@pytest.mark.parametrize("example", sorted(set(EXAMPLES.values()) | set(parser_module._GM_EXAMPLES.values())
                                            | set(parser_module._FP_EXAMPLES.values())))
def test_every_example_given_with_an_error_parses(example):
    assert isinstance(parse_command(example), Command)


def test_resource_path_prefers_the_installed_package_folder(tmp_path, monkeypatch):
    import pbp

    package = tmp_path / "site" / "pbp"
    (package / "grammar").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "grammar" / "commands.lark").write_text("// installed")
    (tmp_path / "site" / "grammar").mkdir()
    (tmp_path / "site" / "grammar" / "commands.lark").write_text("// checkout")
    (tmp_path / "site" / "grammar" / "only_here.lark").write_text("// checkout")
    monkeypatch.setattr(pbp, "__file__", str(package / "__init__.py"))
    assert resource_path("grammar", "commands.lark") == (package / "grammar" / "commands.lark").resolve()
    assert resource_path("grammar", "only_here.lark") == (tmp_path / "site" / "grammar" / "only_here.lark").resolve()
    assert resource_path("grammar", "") == (package / "grammar").resolve()


def test_resource_path_gives_the_templates_folder():
    assert resource_path("templates", "").is_dir()


def test_fast_path_is_in_use():
    assert parser_module._fast_parser() is not None


# ---------------------------------------------------------------------------- properties

FRAGMENTS = [
    "/", "/", "/", "roll", "overcome", "advantage", "create", "attack", "defend", "sheet", "fp", "as",
    "with", "vs", "vs.", "versus", "using", "on", "discover", "+invoke", "+ invoke", "+stunt", "invoke", "stunt",
    "reroll", "oppose", "free", "fp", "if", "needed", "x2", "×3", "x0", "tie", "fail", "style", "boost", "cost",
    "spend", "give", "take", "show", "Fair", "Good", "Legendary", "Horrifying", "+", "-", "+2", "-1", "3", "0",
    "100", "4dF", "dF", "3d6", "0d6", "2d1001", "101dF", "Ghoul", "Fight", "O'Malley", "Hair-Trigger",
    '"On Fire"', "“On Fire”", "'O'Malley's'", '""', '"', "“", "'", "‘", "«", "x", "_", ".", ",", "(", ")", "#",
    "\t", " ", "\u00a0", "\n", "é", "Zoë", "e\u0308", "٣", "🎲", "\x00", "\ud800",
]
fragment_lines = st.lists(st.sampled_from(FRAGMENTS), max_size=14).flatmap(
    lambda parts: st.lists(st.sampled_from(["", " ", "  "]), min_size=len(parts), max_size=len(parts)).map(
        lambda seps: "".join(p + s for p, s in zip(parts, seps))))


def outcome(text: str):
    """Parse; only a Command or a CommandSyntaxError may come out."""
    try:
        result = parse_command(text)
    except CommandSyntaxError as error:
        assert isinstance(error.message, str) and error.message
        assert error.line == 1
        assert error.column is None or 1 <= error.column <= len(text.strip()) + 1
        assert isinstance(error.got, str) and isinstance(error.expected, str) and error.example.startswith("/")
        return ("error", error.message, error.column)
    assert isinstance(result, Command)
    return ("ok", result)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80))
def test_random_unicode_only_gives_commands_or_syntax_errors(text):
    outcome(text)
    outcome("/" + text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragment_lines)
def test_random_token_sequences_only_give_commands_or_syntax_errors(text):
    outcome(text)
    outcome("/" + text)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragment_lines)
def test_fast_path_agrees_with_lark(text):
    """The fast driver must accept exactly what Lark accepts, with the same result."""
    line = "/" + text.strip()
    fast = parser_module._fast_parser()
    try:
        via_lark = ("ok", get_parser().parse(line))
    except Exception as error:  # noqa: BLE001 - compared by kind only
        via_lark = ("error", type(error).__name__ == "_Invalid")
    try:
        via_fast = fast.parse(line)
        via_fast = ("ok", via_fast) if via_fast is not None else ("error", False)
    except Exception as error:  # noqa: BLE001
        via_fast = ("error", type(error).__name__ == "_Invalid")
    assert via_fast == via_lark


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_posts_never_raise_anything_else(text):
    commands, errors = parse_post_all(text)
    assert all(isinstance(c, Command) for c in commands)
    assert all(isinstance(e, CommandSyntaxError) for e in errors)
    assert len(commands) + len(errors) == len(find_commands(text))


# ---------------------------------------------------------------------------- the docs


def doc_blocks() -> list[tuple[str, list[str]]]:
    """(info string, lines) of every fenced code block in docs/commands.md."""
    blocks, info, lines = [], None, []
    for raw in DOCS.read_text(encoding="utf-8").splitlines():
        if raw.startswith("```"):
            if info is None:
                info, lines = raw[3:].strip(), []
            else:
                blocks.append((info, lines))
                info = None
        elif info is not None:
            lines.append(raw)
    return blocks


def doc_commands() -> list[str]:
    found = []
    for info, lines in doc_blocks():
        if info in ("", "text"):
            found += [line.strip() for line in lines if line.strip().startswith("/")]
    example_column = None
    for raw in DOCS.read_text(encoding="utf-8").splitlines():
        if not raw.startswith("|"):
            example_column = None
            continue
        cells = [cell.strip() for cell in raw.strip().strip("|").split("|")]
        if example_column is None:
            example_column = cells.index("Example") if "Example" in cells else -1
        elif example_column >= 0 and example_column < len(cells):
            found += [span for span in re.findall(r"`([^`]+)`", cells[example_column]) if span.startswith("/")]
    return found


DOC_COMMANDS = doc_commands()


def test_the_docs_have_examples_for_every_command():
    words = {line.split()[0].lstrip("/").lower() for line in DOC_COMMANDS}
    assert words >= {"roll", "overcome", "advantage", "create", "attack", "defend", "sheet", "fp", "as"}
    assert len(DOC_COMMANDS) > 60


@pytest.mark.parametrize("line", DOC_COMMANDS)
def test_every_docs_example_parses(line):
    assert isinstance(parse_command(line), Command)


def render_error(error: CommandSyntaxError) -> list[str]:
    return [
        error.source,
        f"  message:  {error.message}",
        f"  column:   {error.column}",
        f"  got:      {error.got or '(end of line)'}",
        f"  expected: {error.expected}",
        f"  example:  {error.example}",
    ]


ERROR_BLOCKS = [lines for info, lines in doc_blocks() if info == "error"]


def test_the_docs_show_errors():
    assert len(ERROR_BLOCKS) >= 3


@pytest.mark.parametrize("lines", ERROR_BLOCKS, ids=[b[0] for b in ERROR_BLOCKS])
def test_every_docs_error_is_the_real_error(lines):
    error = error_of(lines[0])
    assert render_error(error) == lines
    assert isinstance(parse_command(error.example), Command)
