"""The command grammar and parser: every form to its exact dataclass, the errors a player
meets, a property test that nothing but CommandSyntaxError escapes, and the docs examples."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp import parser as parser_module
from pbp.parser import grammar as grammar_module
from pbp.parser import spec as spec_module
from pbp.commands import (
    Absorb,
    Accept,
    Advantage,
    Again,
    Approve,
    AspectAdd,
    AspectRemove,
    AspectRename,
    Attack,
    Choice,
    Command,
    Compel,
    Concede,
    ConflictEnd,
    ConflictStart,
    Defend,
    Deny,
    Detail,
    Done,
    FpGive,
    FpShow,
    FpSpend,
    FpTake,
    GiveInvoke,
    ChallengeEnd,
    ChallengeStart,
    SheetSet,
    ContestEnd,
    ContestSide,
    ContestStart,
    ContestTwist,
    Threat,
    Task,
    Help,
    HelpAsk,
    Invoke,
    InvokeAfter,
    InvokeMode,
    Milestone,
    Move,
    Next,
    NpcCmd,
    Opposition,
    Overcome,
    Payment,
    Place,
    Refuse,
    Roll,
    Say,
    SceneEnd,
    SceneStart,
    SessionEnd,
    Sheet,
    StuntUse,
    Treat,
    Veto,
    Withdraw,
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
    ("/fp", FpShow, dict()),
    ("/fp show", FpShow, dict()),
    ("/fp Ruth", FpShow, dict(character="Ruth")),
    ("/fp spend", FpSpend, dict()),
    ('/fp spend "for the story detail"', FpSpend, dict(reason="for the story detail")),
    ("/fp give Ruth 1", FpGive, dict(character="Ruth", amount=1)),
    ("/fp give Ruth", FpGive, dict(character="Ruth", amount=1)),
    ("/fp take Ruth 2", FpTake, dict(character="Ruth", amount=2)),
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
        FpSpend(line=4, source="/fp spend"),
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
    ("/as Ghoul sheet", "an action (overcome, advantage, attack, defend or roll)", EXAMPLES["sheet"]),
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


# ---------------------------------------------------------------------------- play by post and the GM's table


def inv(aspect, **options):
    return Invoke(aspect, **options)


PLAY_FORMS = [
    # -- turns
    ("/next Ruth", Next, dict(character="Ruth")),
    ('/next "Masked Acolyte"', Next, dict(character="Masked Acolyte")),
    ("/as Ghoul next Ruth", Next, dict(character="Ruth", actor="Ghoul")),
    ("/done", Done, dict()),
    ("/as Ghoul done", Done, dict(actor="Ghoul")),
    ('/move "Back Yard"', Move, dict(zone="Back Yard")),
    ("/move Dock", Move, dict(zone="Dock")),
    ("/move to Dock", Move, dict(zone="Dock")),
    ("/as Ghoul move Dock", Move, dict(zone="Dock", actor="Ghoul")),
    # -- invokes after the dice
    ('/invoke "Deep Shadows"', InvokeAfter, dict(invoke=inv("Deep Shadows"))),
    ('/invoke "Deep Shadows" reroll', InvokeAfter, dict(invoke=inv("Deep Shadows", mode=InvokeMode.REROLL))),
    ("/invoke Distracted free", InvokeAfter, dict(invoke=inv("Distracted", payment=Payment.FREE))),
    ("/invoke Hungry fp", InvokeAfter, dict(invoke=inv("Hungry", payment=Payment.FATE_POINT))),
    ('/invoke "Deep Shadows" oppose on #142', InvokeAfter,
     dict(invoke=inv("Deep Shadows", mode=InvokeMode.OPPOSE), roll_id=142)),
    ("/invoke Distracted on #7", InvokeAfter, dict(invoke=inv("Distracted"), roll_id=7)),
    ("/invoke Distracted #7", InvokeAfter, dict(invoke=inv("Distracted"), roll_id=7)),
    ("/invoke Distracted free x2", InvokeAfter, dict(invoke=inv("Distracted", payment=Payment.FREE, times=2))),
    ("/invoke Distracted x3 reroll fp on #999999999", InvokeAfter,
     dict(invoke=inv("Distracted", mode=InvokeMode.REROLL, payment=Payment.FATE_POINT, times=3), roll_id=999999999)),
    ("/as Ghoul invoke Hungry free", InvokeAfter, dict(invoke=inv("Hungry", payment=Payment.FREE), actor="Ghoul")),
    # -- harm
    ("/absorb stress 2", Absorb, dict(stress=2)),
    ('/absorb stress 2 mild "Nasty Bite"', Absorb, dict(stress=2, consequences=(("mild", "Nasty Bite"),))),
    ('/absorb moderate "Gaping Chest Wound" stress 1', Absorb,
     dict(stress=1, consequences=(("moderate", "Gaping Chest Wound"),))),
    ('/absorb mild "Sprained Wrist" severe "Crushed Leg"', Absorb,
     dict(consequences=(("mild", "Sprained Wrist"), ("severe", "Crushed Leg")))),
    ('/absorb mild2 "Bruised Ribs"', Absorb, dict(consequences=(("mild2", "Bruised Ribs"),))),
    ('/absorb severe "Crushed Leg" mild "Sprained Wrist" mild2 Bruised', Absorb,
     dict(consequences=(("severe", "Crushed Leg"), ("mild", "Sprained Wrist"), ("mild2", "Bruised")))),
    ("/as Ghoul absorb stress 1", Absorb, dict(stress=1, actor="Ghoul")),
    ("/concede", Concede, dict()),
    ('/concede "I flee into the sewers"', Concede, dict(terms="I flee into the sewers")),
    ("/as Ghoul concede", Concede, dict(actor="Ghoul")),
    ("/again", Again, dict()),
    ('/AGAIN "the guards have gone"', Again, dict(changed="the guards have gone")),
    ('/treat Charles "Gaping Chest Wound" with Academics', Treat,
     dict(patient="Charles", consequence="Gaping Chest Wound", skill="Academics")),
    ('/treat me "Nasty Bite" with Academics as "Bandaged Arm" +invoke "First Aid Kit"', Treat,
     dict(patient="me", consequence="Nasty Bite", skill="Academics", rename="Bandaged Arm",
          invokes=(inv("First Aid Kit"),))),
    ('/treat Ruth Bruised with Medicine +invoke Calm free +invoke "Steady Hands" if needed', Treat,
     dict(patient="Ruth", consequence="Bruised", skill="Medicine",
          invokes=(inv("Calm", payment=Payment.FREE), inv("Steady Hands", if_needed=True)))),
    ('/as Ghoul treat Ghoul "Singed Fur" with Physique', Treat,
     dict(patient="Ghoul", consequence="Singed Fur", skill="Physique", actor="Ghoul")),
    # -- compels and answers
    ('/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"', Compel,
     dict(target="Ruth", aspect="Hair-Trigger Temper", kind="event", text="The bouncer's jibe sets you off")),
    ('/compel Ruth "Hair-Trigger Temper" decision "You tell the boss what you think"', Compel,
     dict(target="Ruth", aspect="Hair-Trigger Temper", kind="decision", text="You tell the boss what you think")),
    ('/compel me "Curiosity Will Be My Death" decision "I open the crate"', Compel,
     dict(target="me", aspect="Curiosity Will Be My Death", kind="decision", text="I open the crate")),
    ('/compel Ruth "Hair-Trigger Temper"', Compel, dict(target="Ruth", aspect="Hair-Trigger Temper")),
    ('/compel Ruth Temper "It happens"', Compel, dict(target="Ruth", aspect="Temper", text="It happens")),
    ("/compel Ruth Temper DECISION", Compel, dict(target="Ruth", aspect="Temper", kind="decision")),
    ('/as Ghoul compel Ruth "Hair-Trigger Temper" event "The ghoul taunts you"', Compel,
     dict(target="Ruth", aspect="Hair-Trigger Temper", text="The ghoul taunts you", actor="Ghoul")),
    ("/accept", Accept, dict()),
    ("/accept #12", Accept, dict(ref=12)),
    ("/refuse", Refuse, dict()),
    ("/refuse #12", Refuse, dict(ref=12)),
    ('/refuse #12 "not now"', Refuse, dict(ref=12, reason="not now")),
    ("/approve", Approve, dict()),
    ("/approve #12", Approve, dict(ref=12)),
    ('/deny #12 "off the mark"', Deny, dict(ref=12, reason="off the mark")),
    ("/deny", Deny, dict()),
    ("/withdraw #12", Withdraw, dict(ref=12)),
    ('/veto #142 "Distracted"', Veto, dict(ref=142, aspect="Distracted")),
    ('/veto #142 "Distracted" "a car cannot be distracted"', Veto,
     dict(ref=142, aspect="Distracted", reason="a car cannot be distracted")),
    ("/veto Distracted", Veto, dict(aspect="Distracted")),
    ('/detail "The guard is my cousin"', Detail, dict(text="The guard is my cousin")),
    ('/as Ghoul detail "The sewer grate is loose"', Detail, dict(text="The sewer grate is loose", actor="Ghoul")),
    ('/give "On Fire" Ruth', GiveInvoke, dict(aspect="On Fire", to="Ruth")),
    ('/give "On Fire" Ruth 2', GiveInvoke, dict(aspect="On Fire", to="Ruth", count=2)),
    ('/give "On Fire" to Ruth', GiveInvoke, dict(aspect="On Fire", to="Ruth")),
    ('/give Distracted to "Masked Acolyte" 3', GiveInvoke, dict(aspect="Distracted", to="Masked Acolyte", count=3)),
    ("/help Charles", Help, dict(ally="Charles")),
    ("/help Charles on #7", Help, dict(ally="Charles", roll_id=7)),
    ('/help "Masked Acolyte" #7', Help, dict(ally="Masked Acolyte", roll_id=7)),
    ("/as Ghoul help Acolyte", Help, dict(ally="Acolyte", actor="Ghoul")),
    ("/help from Cassandra, Ruth", HelpAsk, dict(helpers=("Cassandra", "Ruth"))),
    ("/challenge start Yacht tasks Burglary vs Good, Athletics vs +2", ChallengeStart,
     dict(name="Yacht", tasks=(Task("Burglary", rating=3), Task("Athletics", rating=2)))),
    ('/challenge start "The Vault" task Notice vs Ghoul for Ruth, Ethan hours 48', ChallengeStart,
     dict(name="The Vault", tasks=(Task("Notice", opponent="Ghoul"),), who=("Ruth", "Ethan"), hours=48)),
    ("/challenge end", ChallengeEnd, dict()),
    ("/sheet set Ruth fate_points=4 skills.Burglary=Average", SheetSet,
     dict(character="Ruth", values=("fate_points=4", "skills.Burglary=Average"))),
    ('/sheet set "Masked Acolyte" skills."Biting People"=3 aspects.trouble="Short Fuse"', SheetSet,
     dict(character="Masked Acolyte", values=("skills.Biting People=3", "aspects.trouble=Short Fuse"))),
    ('/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal" threat "Flooding Tunnel" Fair '
     'threat Ghoul with Fight victories 4 difficulty Fair hours 24', ContestStart,
     dict(name="Chase", sides=(ContestSide(("Ruth", "Charles"), "escape"), ContestSide(("Ghoul",), "a meal")),
          threats=(Threat("Flooding Tunnel", rating=2), Threat("Ghoul", skill="Fight")), victories=4,
          difficulty=2, hours=24)),
    ('/contest start Race Ruth "first" vs Ethan "first" vs Cassandra "first"', ContestStart,
     dict(name="Race", sides=(ContestSide(("Ruth",), "first"), ContestSide(("Ethan",), "first"),
                              ContestSide(("Cassandra",), "first")))),
    ('/contest twist "Loose Rubble"', ContestTwist, dict(aspect="Loose Rubble")),
    ("/contest end", ContestEnd, dict()),
    ('/as Ghoul give "Cornered" to Acolyte', GiveInvoke, dict(aspect="Cornered", to="Acolyte", actor="Ghoul")),
    # -- scenes
    ('/scene start "Warehouse"', SceneStart, dict(name="Warehouse")),
    ('/scene start "Warehouse" zones Dock, "Main Floor", Office borders Dock-"Main Floor", "Main Floor"-Office',
     SceneStart, dict(name="Warehouse", zones=("Dock", "Main Floor", "Office"),
                    borders=(("Dock", "Main Floor"), ("Main Floor", "Office")))),
    ("/scene start Warehouse zones Dock, Office borders Dock-Office", SceneStart,
     dict(name="Warehouse", zones=("Dock", "Office"), borders=(("Dock", "Office"),))),
    ("/scene start Warehouse zones Dock borders Dock - Office, Dock – Roof, Dock—Yard", SceneStart,
     dict(name="Warehouse", zones=("Dock",),
          borders=(("Dock", "Office"), ("Dock", "Roof"), ("Dock", "Yard")))),
    ('/scene start Warehouse zones "Half-Way", Office, Dock borders Half-Way-Office, Dock-Half-Way', SceneStart,
     dict(name="Warehouse", zones=("Half-Way", "Office", "Dock"),
          borders=(("Half-Way", "Office"), ("Dock", "Half-Way")))),
    ("/scene start Alley borders Alley-Street", SceneStart,
     dict(name="Alley", borders=(("Alley", "Street"),))),
    ("/scene end", SceneEnd, dict()),
    ("/session end", SessionEnd, dict()),
    ("/milestone minor", Milestone, dict(level="minor")),
    ("/milestone major", Milestone, dict(level="major")),
    ("/Milestone MAJOR", Milestone, dict(level="major")),
    # -- aspects
    ('/aspect add "Deep Shadows"', AspectAdd, dict(name="Deep Shadows")),
    ('/aspect add "Deep Shadows" on Office free 1', AspectAdd,
     dict(name="Deep Shadows", target="Office", free=1)),
    ('/aspect add "Afraid of Fire" on Ghoul hidden', AspectAdd,
     dict(name="Afraid of Fire", target="Ghoul", hidden=True)),
    ('/aspect add "Deep Shadows" free', AspectAdd, dict(name="Deep Shadows", free=1)),
    ('/aspect add "Deep Shadows" hidden free 2 on "Main Floor"', AspectAdd,
     dict(name="Deep Shadows", target="Main Floor", free=2, hidden=True)),
    ('/aspect remove "Deep Shadows"', AspectRemove, dict(name="Deep Shadows")),
    ('/aspect rename "Nasty Bite" to "Bandaged Bite"', AspectRename,
     dict(name="Nasty Bite", new_name="Bandaged Bite")),
    ('/aspects add "Deep Shadows"', AspectAdd, dict(name="Deep Shadows")),
    # -- conflicts
    ('/conflict start Ruth, Cassandra, Ghoul, "Masked Acolyte" first Cassandra', ConflictStart,
     dict(participants=("Ruth", "Cassandra", "Ghoul", "Masked Acolyte"), first="Cassandra")),
    ("/conflict start Charles, Ghoul first Ghoul mental", ConflictStart,
     dict(participants=("Charles", "Ghoul"), first="Ghoul", kind="mental")),
    ("/conflict start Charles, Ghoul physical first Charles", ConflictStart,
     dict(participants=("Charles", "Ghoul"), first="Charles", kind="physical")),
    ("/conflict start Charles", ConflictStart, dict(participants=("Charles",))),
    ("/conflict end", ConflictEnd, dict()),
    ("/place Ruth in Dock", Place, dict(character="Ruth", zone="Dock")),
    ('/place "Masked Acolyte" in "Main Floor"', Place,
     dict(character="Masked Acolyte", zone="Main Floor")),
    # -- NPCs
    ('/npc add Ghoul aspects "Hungry Ghoul", "Afraid of Fire" skills "Biting People" Great, Athletics 2 stress 2',
     NpcCmd, dict(name="Ghoul", aspects=("Hungry Ghoul", "Afraid of Fire"),
                  skills=(("Biting People", 4), ("Athletics", 2)), stress=2)),
    ('/npc add Thug aspects "Hired Muscle" skills Fight Fair stress 1 defend Athletics, Fight', NpcCmd,
     dict(name="Thug", aspects=("Hired Muscle",), skills=(("Fight", 2),), stress=1,
          defend_with=("Athletics", "Fight"))),
    ('/npc add Ghoul minor "Hungry Ghoul" skill "Biting People" Great stress 2', NpcCmd,
     dict(name="Ghoul", aspects=("Hungry Ghoul",), skills=(("Biting People", 4),), stress=2)),
    ("/npc add Rat stress 0 skills Sneak +1, Bite -1, Run Mediocre aspect Vermin", NpcCmd,
     dict(name="Rat", aspects=("Vermin",), skills=(("Sneak", 1), ("Bite", -1), ("Run", 0)), stress=0)),
    ("/npc add Ghost", NpcCmd, dict(name="Ghost")),
    # -- /as alone
    ("/as Ghoul", Say, dict(actor="Ghoul")),
    ('/as "Masked Acolyte"', Say, dict(actor="Masked Acolyte")),
]


@pytest.mark.parametrize("source,cls,fields", PLAY_FORMS, ids=[f[0] for f in PLAY_FORMS])
def test_each_play_form_gives_its_exact_dataclass(source, cls, fields):
    assert parse_command(source) == made(cls, source, **fields)


@pytest.mark.parametrize("command", [
    "next Ruth", "done", 'move "Back Yard"', 'invoke "Deep Shadows" oppose on #142',
    'absorb stress 2 mild "Nasty Bite"', 'concede "I flee"', 'treat me "Nasty Bite" with Academics as Bandaged',
    'compel Ruth "Hair-Trigger Temper" decision "x"', 'detail "The guard is my cousin"', 'give "On Fire" to Ruth 2',
])
def test_as_prefix_works_for_every_play_command(command):
    plain = parse_command("/" + command)
    gm = parse_command('/as "Masked Acolyte" ' + command)
    assert plain.actor is None and gm.actor == "Masked Acolyte"
    assert type(gm) is type(plain)
    assert {k: v for k, v in vars(gm).items() if k not in ("actor", "source")} == \
        {k: v for k, v in vars(plain).items() if k not in ("actor", "source")}


def test_play_keywords_are_case_insensitive_and_names_keep_their_case():
    assert parse_command('/ABSORB Stress 2 MILD "Nasty Bite"').consequences == (("mild", "Nasty Bite"),)
    assert parse_command('/Compel ruth temper EVENT "x"').kind == "event"
    assert parse_command("/SCENE Start warehouse ZONES dock").zones == ("dock",)
    assert parse_command("/Accept #3").verb == "accept"
    assert parse_command("/As ghoul NEXT ruth") == made(Next, "/As ghoul NEXT ruth", character="ruth", actor="ghoul")


def test_keywords_of_other_commands_are_plain_names():
    # Each name rule only reads its own command's keywords after a name: no "/as NAME" command
    # words after the skill of /advantage, no GM keywords after the patient of /treat.
    assert parse_command("/advantage Crafts Attack on Ghoul").aspect == "Attack"
    assert parse_command("/treat Ruth Free with Medicine").consequence == "Free"
    assert parse_command("/compel Ruth Hidden").aspect == "Hidden"
    assert parse_command("/next Stress").character == "Stress"
    assert parse_command("/give First Mild").to == "Mild"
    assert parse_command("/move In").zone == "In"


def test_play_commands_are_known_command_words():
    assert set(parser_module.COMMAND_NAMES) >= {
        "next", "done", "move", "invoke", "absorb", "concede", "treat", "compel", "accept", "refuse", "approve",
        "deny", "withdraw", "veto", "detail", "give", "scene", "session", "milestone", "aspect", "conflict",
        "place", "npc"}


@pytest.mark.parametrize("source,message,column,got,expected_part,example", [
    # /next, /done, /move
    ("/next", 'expected who goes next (a character name) after "next", but the line ended', 6, "",
     "who goes next", "/next Ruth"),
    ("/next Masked Acolyte", 'expected the end of the line after "Masked", got "Acolyte"; '
     'if "Masked Acolyte" is one name, put it in quotes', 14, "Acolyte", "the end of the line", "/next Ruth"),
    ("/done now", 'expected the end of the line after "done", got "now"; write anything else on its own line, '
     "not after the command", 7, "now", "the end of the line", "/done"),
    ("/move", 'expected a zone name after "move", but the line ended', 6, "", "a zone name", '/move "Back Yard"'),
    # /invoke
    ("/invoke Distracted if needed", '"if needed" only makes sense before the dice, on a +invoke written with the '
     "action; after the roll you can see whether the invoke is needed", 20, "if", 'without "if needed"',
     EXAMPLES["invoke"]),
    ("/invoke Distracted on 142", 'expected a roll id like #142 after "on", got "142"', 23, "142", "#142",
     EXAMPLES["invoke"]),
    ("/invoke Distracted on #0", "an id must be from 1 to 999999999, not 0", 23, "#0", "an id from 1 to 999999999",
     EXAMPLES["invoke"]),
    ("/invoke Distracted reroll oppose", "an invoke is either reroll or oppose, not both", 27, "oppose",
     "reroll or oppose", EXAMPLES["invoke"]),
    ("/invoke", 'expected an aspect name after "invoke", but the line ended', 8, "", "an aspect name",
     EXAMPLES["invoke"]),
    # /absorb
    ("/absorb", 'expected a consequence (mild, mild2, moderate or severe) and its name or "stress" and the number '
     'of boxes after "absorb", but the line ended', 8, "", "mild, mild2, moderate or severe", EXAMPLES["absorb"]),
    ("/absorb stress 0", "the number of stress boxes must be from 1 to 99, not 0", 16, "0", "from 1 to 99",
     EXAMPLES["absorb"]),
    ("/absorb stress 1 stress 2", "the stress is given twice; write it once", 18, "stress", "one stress amount",
     EXAMPLES["absorb"]),
    ("/absorb mild", 'expected a name for the consequence (in quotes if it has spaces) after "mild", but the line '
     "ended", 13, "", "a name for the consequence", EXAMPLES["absorb"]),
    ('/absorb extreme "Missing Eye"', 'expected a consequence (mild, mild2, moderate or severe) and its name or '
     '"stress" and the number of boxes after "absorb", got "extreme"', 9, "extreme", "a consequence",
     EXAMPLES["absorb"]),
    # /concede, /detail
    ("/again now", 'expected what has changed, in quotes or the end of the line after "again", got "now"; write '
     "anything else on its own line, not after the command", 8, "now", "what has changed, in quotes",
     EXAMPLES["again"]),
    ("/concede I flee", 'expected your terms in quotes or the end of the line after "concede", got "I"; write '
     "anything else on its own line, not after the command", 10, "I", "your terms in quotes", EXAMPLES["concede"]),
    ('/concede ""', "the terms in quotes cannot be empty", 10, '""', "the terms between the quotes",
     EXAMPLES["concede"]),
    ("/detail The guard", 'expected the story detail in quotes after "detail", got "The"', 9, "The",
     "the story detail in quotes", EXAMPLES["detail"]),
    # /treat
    ("/treat Ruth with Medicine", 'the consequence is missing: name who you treat, then the consequence, before '
     '"with"', 13, "with", "who you treat", EXAMPLES["treat"]),
    ('/treat Ruth "Nasty Bite"', 'expected "with" and the skill you treat with after "Nasty Bite", but the line '
     "ended", 25, "", '"with"', EXAMPLES["treat"]),
    ('/treat Ruth "Nasty Bite" with Medicine +stunt Surgeon', 'expected "invoke" and an aspect name after "+", got '
     '"stunt"', 41, "stunt", '"invoke"', EXAMPLES["treat"]),
    # /compel
    ("/compel Ruth", 'expected the aspect to compel after "Ruth", but the line ended', 13, "", "the aspect to compel",
     EXAMPLES["compel"]),
    ('/compel Ruth event "x"', 'the aspect is missing: name the aspect you compel before "event"', 14, "event",
     "the aspect to compel", EXAMPLES["compel"]),
    ('/compel Ruth Temper event because', 'expected what happens, in quotes or the end of the line after "event", '
     'got "because"; write anything else on its own line, not after the command', 27, "because",
     "what happens, in quotes", EXAMPLES["compel"]),
    # answers
    ("/accept 12", 'expected an id like #12, a reason in quotes or the end of the line after "accept", got "12"; '
     "write anything else on its own line, not after the command", 9, "12", "an id like #12", "/accept #12"),
    ("/deny #12 off the mark", 'expected a reason in quotes or the end of the line after "#12", got "off"; write '
     "anything else on its own line, not after the command", 11, "off", "a reason in quotes", EXAMPLES["deny"]),
    ("/veto #142", 'expected the aspect of the invoke you veto after "#142", but the line ended', 11, "",
     "the aspect of the invoke you veto", EXAMPLES["veto"]),
    ("/withdraw #x", 'expected an id like #12, a reason in quotes or the end of the line after "withdraw", got "#x"; '
     "write anything else on its own line, not after the command", 11, "#x", "an id like #12", "/withdraw #12"),
    # /give
    ('/give "On Fire" Ruth 0', "the number of free invokes must be from 1 to 99, not 0", 22, "0", "from 1 to 99",
     EXAMPLES["give"]),
    ("/give to Ruth", 'the aspect is missing: name the aspect whose free invokes you give before "to"', 7, "to",
     "the aspect whose free invokes you give", EXAMPLES["give"]),
    ('/give "On Fire"', 'expected who gets them (a character name) after "On Fire", but the line ended', 16, "",
     "who gets them", EXAMPLES["give"]),
    # scenes
    ("/scene", 'expected "start" or "end" after "scene", but the line ended', 7, "", '"start" or "end"',
     EXAMPLES["scene"]),
    ("/scene end now", 'expected the end of the line after "end", got "now"; write anything else on its own line, '
     "not after the command", 12, "now", "the end of the line", "/scene end"),
    ("/scene start W zones Dock Office", 'expected "," and another zone, "with" and the NPCs in the scene (with '
     'Ghoul), "borders" and the borders (borders '
     'Dock-Office) or the end of the line after "Dock", got "Office"; if "Dock Office" is one name, put it in '
     "quotes", 27, "Office", '"," and another zone', EXAMPLES["scene"]),
    ("/scene start W borders Dock", 'a border joins two zones with "-" (Dock-Office), not just "Dock"', 24, "Dock",
     'two zones joined by "-"', EXAMPLES["scene"]),
    ("/scene start W borders A-B-C", '"A-B-C" can be cut into zones in more than one place; put a zone whose name '
     'has a hyphen in quotes ("Half-Way"-Office)', 24, "A-B-C", "quotes", EXAMPLES["scene"]),
    ("/session", 'expected "end" after "session", but the line ended', 9, "", '"end"', "/session end"),
    ("/milestone big", 'expected "minor" or "major" after "milestone", got "big"', 12, "big", '"minor" or "major"',
     "/milestone minor"),
    # aspects
    ("/aspect delete X", 'expected "add", "remove" or "rename" after "aspect", got "delete"', 9, "delete",
     '"add", "remove" or "rename"', EXAMPLES["aspect"]),
    ("/aspect rename X Y", 'expected "to" and the new name after "X", got "Y"; if "X Y" is one name, put it in '
     "quotes", 18, "Y", '"to" and the new name', '/aspect rename "Nasty Bite" to "Bandaged Bite"'),
    ("/aspect add X free 0", "the number of free invokes must be from 1 to 99, not 0", 20, "0", "from 1 to 99",
     EXAMPLES["aspect"]),
    ("/aspect add X on A on B", 'an aspect goes in one place: write "on" once', 23, "B", '"on" and one zone',
     EXAMPLES["aspect"]),
    ("/aspect remove X on Office", 'expected the end of the line after "X", got "on"; write anything else on its '
     "own line, not after the command", 18, "on", "the end of the line", '/aspect remove "Deep Shadows"'),
    # conflicts
    ("/conflict start", 'expected a character who takes part after "start", but the line ended', 16, "",
     "a character who takes part", EXAMPLES["conflict"]),
    ("/conflict start Ruth, Ghoul social", 'expected "," and another character, "first" and who acts first, '
     '"physical", "mental", "health" or "composure" or the end of the line after "Ghoul", got "social"; if "Ghoul '
     'social" is one name, put it in quotes', 29, "social", '"physical", "mental", "health" or "composure"',
     EXAMPLES["conflict"]),
    # without a campaign, every system's kinds (early Fate's health and composure); a campaign's
    # post lists its own system's (tests/test_parser_words.py)
    ("/conflict start A mental physical", "a conflict is either physical, mental, health or composure, not both", 26,
     "physical", "physical, mental, health or composure, not both", EXAMPLES["conflict"]),
    ("/conflict start A first A first B", '"first" names two characters; only one acts first', 27, "first",
     '"first" once', EXAMPLES["conflict"]),
    ("/place Ruth Dock", 'expected "in" and a zone name after "Ruth", got "Dock"; if "Ruth Dock" is one name, put it '
     "in quotes", 13, "Dock", '"in" and a zone name', EXAMPLES["place"]),
    # NPCs
    ("/npc Ghoul", 'expected "add" after "npc", got "Ghoul"', 6, "Ghoul", '"add"', EXAMPLES["npc"]),
    ("/npc add Ghoul major", "/npc add makes minor NPCs; a major NPC comes from a sheet file", 16, "major",
     '"minor", or leave it out', EXAMPLES["npc"]),
    ("/npc add Ghoul skills Fight", 'expected a rating (a ladder word like Fair or a number like +2) after "Fight", '
     "but the line ended", 28, "", "a rating", EXAMPLES["npc"]),
    ("/npc add Ghoul skills Fight 100", "a number must be from -99 to +99, not 100", 29, "100", "from -99 to +99",
     EXAMPLES["npc"]),
    ("/npc add Ghoul stress 100", "the number of stress boxes must be from 0 to 99, not 100", 23, "100",
     "from 0 to 99", EXAMPLES["npc"]),
    ("/npc add Ghoul minor A aspects B", "the aspects are given twice; list them once", 24, "aspects",
     "one list of aspects", EXAMPLES["npc"]),
    ("/npc add Ghoul aspects A skills", 'expected a skill name after "skills", but the line ended', 32, "",
     "a skill name", EXAMPLES["npc"]),
    ("/npc add Ghoul aspects A B", 'expected "," and another aspect, another part (aspects, skills, stress or '
     'defend) or the end of the line after "A", got "B"; if "A B" is one name, put it in quotes', 26, "B",
     "another part", EXAMPLES["npc"]),
])
def test_play_command_errors(source, message, column, got, expected_part, example):
    error = error_of(source, line=2)
    assert error.message == message
    assert (error.line, error.column, error.got) == (2, column, got)
    assert expected_part in error.expected
    assert error.example == example
    assert not re.search(r"\b_?[A-Z]{2,}\b|\$END", error.expected), error.expected  # no raw terminal names
    assert isinstance(parse_command(error.example), Command)


@pytest.mark.parametrize("source,suggested", [
    ("/nxt Ruth", "next"), ("/absorv stress 2", "absorb"), ("/concide", "concede"), ("/compell Ruth X", "compel"),
    ("/acept", "accept"), ("/refuze #12", "refuse"), ("/aprove #12", "approve"), ("/withdrew #12", "withdraw"),
    ("/vetoo #1 X", "veto"), ("/detial", "detail"), ("/giv X Ruth", "give"), ("/scne end", "scene"),
    ("/sesion end", "session"), ("/milestones minor", "milestone"), ("/aspcet add X", "aspect"),
    ("/conflit end", "conflict"), ("/plase Ruth in Dock", "place"), ("/npcs add X", "npc"), ("/moove Dock", "move"),
    ("/treet me X with Y", "treat"), ("/invok X", "invoke"), ("/dnoe", "done"),
])
def test_did_you_mean_covers_the_play_commands(source, suggested):
    error = error_of(source)
    assert error.message.endswith(f"did you mean /{suggested}?")
    assert error.column == 2
    assert error.example == EXAMPLES[suggested]


@pytest.mark.parametrize("source,suggestion,example", [
    ("/start Warehouse", "/scene start, /conflict start, /challenge start or /contest start", EXAMPLES["scene"]),
    ("/end", "/scene end, /session end, /conflict end, /challenge end or /contest end", "/scene end"),
    ("/add X", "/aspect add or /npc add", EXAMPLES["aspect"]),
])
def test_a_part_word_in_command_position_names_its_command(source, suggestion, example):
    error = error_of(source)
    assert error.message.endswith(f"did you mean {suggestion}?")
    assert error.example == example


def test_unknown_command_after_as_suggests_a_play_command():
    error = error_of("/as Ghoul nxt Ruth")
    assert error.message == 'unknown action "nxt" after /as NAME — did you mean next?'
    assert (error.column, error.got, error.example) == (11, "nxt", "/as Ghoul next Ruth")
    assert "next" in error.expected and "give" in error.expected


@pytest.mark.parametrize("source,command,example", [
    ("/as Ghoul accept #12", "accept", "/accept #12"),
    ("/as Ghoul scene end", "scene", "/scene end"),
    ('/as Ghoul aspect add "Slimy"', "aspect", EXAMPLES["aspect"]),
    ("/as Ghoul npc add Rat", "npc", EXAMPLES["npc"]),
    ("/as Ghoul fp give Ruth", "fp", "/fp give Ruth 1"),
])
def test_commands_without_an_actor_cannot_follow_as(source, command, example):
    error = error_of(source)
    assert error.message == f"/{command} cannot come after /as NAME: write it on its own line, without /as"
    assert (error.column, error.got) == (11, command)
    assert "another command for that character" in error.expected
    assert error.example == example


def test_as_alone_needs_nothing_more_but_says_what_may_follow():
    error = error_of("/as Ghoul +2")
    assert error.expected.startswith(
        "an action (overcome, advantage, attack, defend or roll), another command for that character (next, done, "
        "move, invoke, absorb, concede, treat, compel, detail, give or help) or the end of the line")


def test_repeating_the_same_option_is_harmless():
    assert parse_command("/absorb stress 1 stress 1").stress == 1
    assert parse_command("/aspect add X free 2 free 2 hidden hidden").free == 2
    assert parse_command("/conflict start A mental mental first A first A").kind == "mental"


def test_the_grammar_has_no_conflicts():
    import logging

    from lark import Lark, logger

    records: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    handler, level = Keep(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        Lark(grammar_module.grammar(), parser="lalr", lexer="contextual", maybe_placeholders=True, debug=True)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert not [r for r in records if "conflict" in r.lower()], records


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


@pytest.mark.parametrize("example", sorted(
    set(EXAMPLES.values()) | set(spec_module.GM_EXAMPLES.values())
    | {example for part in spec_module.PART_EXAMPLES.values() for example in part.values()}))
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


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fragment_lines)
def test_random_token_sequences_only_give_commands_or_syntax_errors(text):
    outcome(text)
    outcome("/" + text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_posts_never_raise_anything_else(text):
    commands, errors = parse_post_all(text)
    assert all(isinstance(c, Command) for c in commands)
    assert all(isinstance(e, CommandSyntaxError) for e in errors)
    assert len(commands) + len(errors) == len(find_commands(text))


PLAY_FRAGMENTS = [
    "/", "/", "/", "next", "done", "move", "invoke", "absorb", "concede", "treat", "compel", "accept", "refuse",
    "approve", "deny", "withdraw", "veto", "detail", "give", "scene", "session", "milestone", "aspect", "aspects",
    "conflict", "place", "npc", "as", "stress", "mild", "mild2", "moderate", "severe", "extreme", "me", "with", "to",
    "event", "decision", "start", "end", "zones", "borders", "minor", "major", "add", "remove", "rename", "on",
    "free", "hidden", "first", "mental", "physical", "in", "skills", "skill", "defend", "reroll", "oppose", "fp",
    "if", "needed", "x2", "x0", "+invoke", "+", "-", "–", ",", "#12", "#0", "#", "#99999999999", "0", "2", "100",
    "+2", "-1", "Fair", "Great", "Ghoul", "Ruth", "Dock-Office", "A-B-C", "Half-Way", '"Main Floor"', "“On Fire”",
    '""', '"', "'", "x", ".", "\t", " ", "\u00a0", "é", "🎲",
]
play_lines = st.lists(st.sampled_from(PLAY_FRAGMENTS), max_size=14).flatmap(
    lambda parts: st.lists(st.sampled_from(["", " ", "  "]), min_size=len(parts), max_size=len(parts)).map(
        lambda seps: "".join(p + s for p, s in zip(parts, seps))))


def pieces(line: str) -> list[str]:
    """The words of a working command line after its "/" (quoted names stay whole)."""
    return [line[t.start_pos:t.end_pos] for t in grammar_module.tokens(line)[1:]]


# A working line with up to three words dropped, repeated or replaced: mostly near misses,
# often still commands, so the builder's checks are exercised.
near_misses = st.tuples(
    st.sampled_from([source for source, _, _ in PLAY_FORMS]),
    st.lists(st.tuples(st.sampled_from(["drop", "repeat", "replace"]), st.integers(0, 30),
                       st.sampled_from(PLAY_FRAGMENTS)), max_size=3),
).map(lambda case: mutate(*case))


def mutate(source: str, changes: list[tuple[str, int, str]]) -> str:
    words = pieces(source)
    for how, at, fragment in changes:
        if not words:
            break
        at %= len(words)
        if how == "drop":
            del words[at]
        elif how == "repeat":
            words.insert(at, words[at])
        else:
            words[at] = fragment
    return "/" + " ".join(words)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_misses)
def test_near_misses_of_play_commands(line):
    outcome(line)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(play_lines)
def test_random_play_token_sequences_only_give_commands_or_syntax_errors(text):
    outcome(text)
    outcome("/" + text)


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
    assert words >= set(parser_module.COMMAND_NAMES)
    with_actor = {type(parse_command(line)) for line in DOC_COMMANDS if line.lower().startswith("/as ")}
    assert with_actor == {Overcome, Advantage, Attack, Defend, Roll, Next, Done, Move, InvokeAfter, Absorb, Concede,
                          Treat, Compel, Detail, GiveInvoke, Say}
    assert len(DOC_COMMANDS) > 120


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


def test_the_grammar_ladder_is_the_rules_ladder():
    """The ladder lives once (pbp.rules.ladder); the grammar's LADDER token is made from it."""
    from pbp.resources import resource_path
    from pbp.rules.ladder import LADDER as RULES_LADDER
    grammar = resource_path("grammar", "commands.lark").read_text(encoding="utf-8")
    assert "LADDER.2: /(?:@LADDER@)" in grammar
    from pbp.parser import LADDER as PARSER_LADDER
    assert PARSER_LADDER == {w.casefold(): v for v, w in RULES_LADDER.items()}


def test_absorb_box_keeps_the_word_for_the_system_to_check():
    """``/absorb box 2``: the grammar accepts the word, the campaign's system judges it."""
    assert parse_command("/absorb box 2").unit == "box"
    assert parse_command("/absorb stress 2").unit == "stress"


def test_a_roll_says_whether_its_dice_were_written():
    """A system with dice of its own (the d10 hack's pool) rolls them for ``/roll Fight`` and
    refuses written dice it does not use, so the command keeps whether dice were written;
    under Fate ``/roll Fight`` is ``/roll 4dF+Fight`` (the field is not compared)."""
    assert parse_command("/roll 6d10").dice_written and parse_command("/roll 4dF+Fight").dice_written
    assert not parse_command("/roll Fight").dice_written and not parse_command("/roll").dice_written
    assert parse_command("/roll Fight") == made(Roll, "/roll Fight", skill="Fight")


@pytest.mark.parametrize("source, fields", [
    ('/cost #142 minor "the alarm goes off"', dict(ref=142, severity="minor", text="the alarm goes off")),
    ("/cost #142 minor", dict(ref=142, severity="minor")),
    ('/COST #3 Severe "reinforcements"', dict(ref=3, severity="severe", text="reinforcements")),
])
def test_cost_forms(source, fields):
    from pbp.commands import Cost
    assert parse_command(source) == made(Cost, source, **fields)


@pytest.mark.parametrize("source, message", [
    ("/cost 142 minor", "expected the roll's id (#142) after \"cost\", got \"142\""),
    ("/cost #142 big", 'expected "minor" or "severe" after "#142", got "big"'),
    ("/cost #142 major", 'expected "minor" or "severe" after "#142", got "major"'),
    ("/cost #142", 'expected "minor" or "severe" after "#142", but the line ended'),
])
def test_cost_errors(source, message):
    with pytest.raises(CommandSyntaxError) as info:
        parse_command(source)
    assert info.value.message == message
    assert info.value.example == '/cost #142 minor "the alarm goes off"'
    parse_command(info.value.example)


def test_on_tie_cost_still_reads_cost_as_the_outcome_choice():
    """"cost" is also an outcome choice's word: the contextual lexer reads it as such there."""
    assert parse_command("/overcome Fight vs 2 on tie cost").choices == (Choice("tie", "cost"),)


# ---------------------------------------------------------------------------- a closing full stop
# A phone adds "." after a double space: the line means what it meant without it (issue 27).

def same_command(a: Command, b: Command) -> bool:
    return {**vars(a), "source": ""} == {**vars(b), "source": ""}


every_form = [source for source, _, _ in FORMS + PLAY_FORMS]


@pytest.mark.parametrize("source", every_form)
def test_a_closing_full_stop_changes_nothing_in_any_form(source):
    plain = parse_command(source)
    for closed in (source + ".", source + "  .", source + ". "):
        assert same_command(parse_command(closed), plain), closed


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(near_misses, play_lines.map(lambda t: "/" + t), fragment_lines.map(lambda t: "/" + t)),
       st.sampled_from([".", " .", "  .", ". "]))
def test_a_closing_full_stop_reads_as_the_line_without_it(text, stop):
    if text.strip().endswith(".") or "\n" in text:
        # A command is one line (find_commands splits a post into lines before parsing), so
        # text with a line break inside is no line a post can hold: '/sheet\n' + '.' is two
        # lines, the second a lone full stop, not a line that ends in one.
        return
    plain, closed = outcome(text), outcome(text + stop)
    assert plain[0] == closed[0], (text, plain, closed)
    if plain[0] == "ok":
        assert same_command(plain[1], closed[1])


@pytest.mark.parametrize("source,field,value", [
    ("/overcome Athletics vs Good.", "opposition", Opposition(rating=3)),
    ("/overcome Athletics vs. Good.", "opposition", Opposition(rating=3)),
    ('/overcome Athletics vs "Dr."', "opposition", Opposition(character="Dr.")),
    ('/attack Ghoul with Fight +invoke "Dr.".', "invokes", (inv("Dr."),)),
    ("/accept #4.", "ref", 4),
    ("/sheet set Ruth fate_points=4.", "values", ("fate_points=4",)),
    ('/sheet set Ruth aspects.high="Dr."', "values", ("aspects.high=Dr.",)),
])
def test_a_full_stop_inside_quotes_stays_and_one_closing_the_line_goes(source, field, value):
    assert getattr(parse_command(source), field) == value


def test_a_full_stop_inside_the_line_is_still_an_error():
    with pytest.raises(CommandSyntaxError):
        parse_command("/overcome Athletics. vs Good")
