"""`pbp character import` as a GM uses it, and what reaches the table afterwards: every file
tried and reported, nothing half-imported, names the commands can reach, a player address
that cannot write a header. Posts go through the real pipeline; replies are read back as
mail."""
from __future__ import annotations

import email
import re
import tomllib
from email import policy

import pytest

from pbp.campaigns import import_character, import_sheets
from pbp.cli import main
from pbp.demo import sample_dir
from pbp.errors import SheetError
from pbp.parser import parse_command
from pbp.pipeline import process_message
from pbp.rules.sheets import RESERVED_NAMES
from pbp.rules.systems import FATE_CONDENSED as FC
from pbp.sheetfile import parse_sheet
from pbp.store import models as m
from pbp.store import repo
from tests import helpers
from tests.helpers import eml, make_ctx, plain_text

NORA = '''name = "Nora"
kind = "pc"
player = "nora@pbp.localhost"
refresh = 3

[aspects]
high_concept = "Night-Shift Nurse Who Has Seen Things"
trouble = "Never Says No to a Stray"

[skills]
Empathy = 3
Academics = 2
Will = 2
Notice = 1
Rapport = 1
Contacts = 1
'''


def write(folder, name: str, text: str | bytes):
    path = folder / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def stored():
    return ([(c.name, c.player) for c in m.Character.select().order_by(m.Character.id)],
            [(a.name, a.owner, a.active) for a in m.Aspect.select().order_by(m.Aspect.id)],
            [mb.email for mb in m.Member.select().order_by(m.Member.id)])


def mails(outcome):
    """Each reply of a post as the standard parser reads it back."""
    return [email.message_from_string(m.OutboxMail.get(m.OutboxMail.message_id == r["message_id"]).raw,
                                      policy=policy.default) for r in outcome.replies]


@pytest.fixture
def cli_table(tmp_path, monkeypatch):
    return helpers.cli_table(tmp_path, monkeypatch)


# ---------------------------------------------------------------------------- many files


def test_every_file_is_tried_and_reported(cli_table, capsys):
    """One bad file stops nothing: the good ones are imported, each bad one is reported
    with all its problems, and the exit status says that something failed."""
    d = cli_table
    files = [write(d, "nora.toml", NORA),
             write(d, "bad.toml", NORA.replace('"Nora"', '"Mira"').replace("refresh = 3", "refesh = 3")
                   .replace("Empathy = 3", "Empathy = 10000000000000000000")),
             str(d / "missing.toml"),
             write(d, "latin1.toml", NORA.replace("Nora", "Zoë").encode("latin-1")),
             write(d, "broken.toml", 'name = "Half\n'),
             str(d),
             str(sample_dir() / "ghoul.toml")]
    capsys.readouterr()
    assert main(["character", "import", *files, "--campaign", "chicago"]) == 3
    out = capsys.readouterr()
    assert out.out.splitlines() == [f"{files[0]}: imported Nora (pc) into chicago",
                                    f"{files[6]}: imported Ghoul (npc) into chicago"]
    err = out.err
    assert "Traceback" not in err
    assert f"error: {files[1]}: 2 problems" in err
    assert 'refesh: unknown key; did you mean "refresh"?' in err
    assert "skills.Empathy: 10000000000000000000 is out of range; expected -4 to 12; e.g. skills.Empathy = 2" in err
    assert f"error: {files[2]}: no such file" in err
    assert f"error: {files[3]}: is not UTF-8 text (byte 0xeb at offset 10); save it as UTF-8" in err
    assert f"error: {files[4]}: is not valid TOML" in err
    assert f"error: {files[5]}: is a directory" in err
    assert err.rstrip().endswith("2 of 7 sheets imported, 5 failed")
    assert sorted(c.name for c in m.Character.select()) == ["Ghoul", "Nora"]


def test_a_refused_sheet_leaves_nothing_behind(cli_table, capsys):
    """A sheet whose only problem shows at the last check (its stunts against refresh)
    adds no character, no aspect and no member: its player never joins the campaign."""
    capsys.readouterr()
    before = stored()
    stunts = "".join(f'[[stunts]]\nname = "Trick {i}"\nskill = "Empathy"\n' for i in range(4))
    path = write(cli_table, "nora.toml", NORA + stunts)
    assert main(["character", "import", path]) == 3
    err = capsys.readouterr().err
    assert ("refresh: Nora has refresh 3 with 4 stunts; the first 3 stunts are free and each further one costs "
            "1 refresh, starting from refresh 3, so refresh is 2, or count refresh gained at major milestones "
            "with milestone_refresh; e.g. refresh = 2") in err
    assert stored() == before
    assert "nora@pbp.localhost" not in stored()[2]


def test_case_twins_in_one_import_and_against_the_campaign(cli_table, capsys):
    """Commands match names case-insensitively, so "NORA" beside "Nora" is one name twice:
    both files of one import are refused (which was meant is the GM's call), and a later
    "NORA" is refused against the stored Nora unless --replace says to replace her."""
    d = cli_table
    a = write(d, "a.toml", NORA)
    b = write(d, "b.toml", NORA.replace('name = "Nora"', 'name = "NORA"'))
    capsys.readouterr()
    assert main(["character", "import", a, b]) == 3
    err = capsys.readouterr().err
    assert f'name: "Nora" is also the name in {b} (names are matched case-insensitively)' in err
    assert f'name: "NORA" is also the name in {a}' in err
    assert m.Character.select().count() == 0

    assert main(["character", "import", a]) == 0
    capsys.readouterr()
    assert main(["character", "import", b]) == 3
    err = capsys.readouterr().err
    assert 'name: chicago already has the character "NORA" as "Nora" (names are matched case-insensitively)' in err
    assert "hint: add --replace to overwrite it" in err
    assert main(["character", "import", b, "--replace"]) == 0
    assert [c.name for c in m.Character.select()] == ["NORA"]
    assert {a.owner for a in m.Aspect.select().where(m.Aspect.active == True)} == {"NORA"}  # noqa: E712


def test_a_twin_of_a_sample_character_is_refused_in_python_too(chicago):
    """The library path (import_character) refuses a twin as a SheetError naming the file."""
    sheet = parse_sheet({**_npc("RUTH")}, FC)
    with pytest.raises(SheetError) as exc:
        import_character(chicago, sheet, source="ruth-again.toml")
    assert str(exc.value) == "ruth-again.toml: 1 problem"
    assert exc.value.problems == ['name: chicago already has the character "RUTH" as "Ruth" '
                                  "(names are matched case-insensitively)"]


def problems(data: dict) -> str:
    """The problems parse_sheet finds in ``data``, one a line."""
    with pytest.raises(SheetError) as exc:
        parse_sheet(data, FC)
    return "\n".join(exc.value.problems)


def test_the_table_address_is_not_a_player(chicago):
    """A PC played by the table's own address would have pbp mail its replies to itself."""
    sheet = parse_sheet(tomllib.loads(NORA.replace("nora@pbp.localhost", "table+chicago@pbp.localhost")), FC)
    with pytest.raises(SheetError) as exc:
        import_character(chicago, sheet, source="nora.toml")
    assert exc.value.problems == ["player: table+chicago@pbp.localhost is the table's own address; "
                                  "a player's address is where their replies go"]


def _npc(name: str, **extra) -> dict:
    return {"name": name, "kind": "npc", "aspects": {"high_concept": "Hired Muscle"}, "skills": {"Fight": 2}, **extra}


# ---------------------------------------------------------------------------- what reaches mail


def test_a_player_address_cannot_write_a_header(chicago, config, tmp_path):
    """`player` goes into To and Cc of every table reply: a sheet with a line break in it is
    refused, and the table's replies afterwards carry no header it tried to add."""
    evil = NORA.replace('player = "nora@pbp.localhost"', 'player = "mallory@x\\r\\nReply-To: evil@x"')
    ((path, outcome),) = import_sheets(chicago, [write(tmp_path, "mallory.toml", evil)])
    assert isinstance(outcome, SheetError)
    assert outcome.problems == ['player: "mallory@x\\u000D\\u000AReply-To: evil@x" is not a mail address '
                                '(local@domain only: no name, spaces or line breaks); e.g. player = "ruth@example.org"']
    for address in ["Mallory <mallory@x.org>", "mallory@x.org, evil@x.org", "mallory@x.org\n", "mallory"]:
        bad = NORA.replace('"nora@pbp.localhost"', f'"{address.encode("unicode_escape").decode()}"')
        assert "is not a mail address" in problems(tomllib.loads(bad)), address
    # A real address, written untidily, is kept tidy.
    ((_, row),) = import_sheets(chicago, [write(tmp_path, "nora.toml", NORA.replace('"nora@pbp.localhost"',
                                                                                    '" Nora@PBP.localhost "'))])
    assert row.player == "nora@pbp.localhost"

    out = process_message(eml("/overcome Empathy vs Fair\n", sender="nora@pbp.localhost"), make_ctx(config, "00++"))
    assert out.status == "applied", out.errors
    for mail in mails(out):
        assert "Reply-To" not in mail and "evil" not in str(mail) and "mallory" not in str(mail)
        assert all(len(line) <= 998 for line in str(mail).splitlines())
        recipients = {a.addr_spec for h in ("To", "Cc") for a in getattr(mail[h], "addresses", ())}
        assert "nora@pbp.localhost" in recipients


UNSAFE = {"CR": "\r", "LF": "\n", "NUL": "\x00", "ESC": "\x1b", "DEL": "\x7f", "RLO": "\u202e", "LRI": "\u2066",
          "ZWSP": "\u200b", "ZWJ": "\u200d", "BOM": "\ufeff", "LINE SEPARATOR": "\u2028"}
FIELDS = {
    "name": lambda v: {"name": v},
    "aspects.high_concept": lambda v: {"aspects": {"high_concept": v, "trouble": "T"}},
    "aspects.trouble": lambda v: {"aspects": {"high_concept": "H", "trouble": v}},
    "aspects.other[2]": lambda v: {"aspects": {"high_concept": "H", "trouble": "T", "other": ["Fine", v]}},
    "aspects.hidden[1]": lambda v: {"aspects": {"high_concept": "H", "trouble": "T", "hidden": [v]}},
    "stunts[1].name": lambda v: {"stunts": [{"name": v, "skill": "Fight"}]},
    "stunts[1].circumstance": lambda v: {"stunts": [{"name": "S", "skill": "Fight", "circumstance": v}]},
    "stunts[1].description": lambda v: {"stunts": [{"name": "S", "skill": "Fight", "description": v}]},
    'skills."Bit': lambda v: {"skills": {f"Bit{v}ing": 2}},
}


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("char", UNSAFE)
def test_names_aspects_and_stunts_refuse_invisible_and_line_breaking_characters(field, char):
    data = {"name": "Tess", "kind": "npc", "skills": {"Fight": 2},
            "aspects": {"high_concept": "H", "trouble": "T"}}
    data.update(FIELDS[field](f"Te{UNSAFE[char]}ss"))
    with pytest.raises(SheetError) as exc:
        parse_sheet(data, FC, source="tess.toml")
    (problem,) = exc.value.problems
    assert problem.startswith(field), problem
    assert f"U+{ord(UNSAFE[char]):04X}" in problem and "not allowed" in problem


def test_a_description_may_hold_line_breaks_but_nothing_invisible(chicago, tmp_path):
    """The description is prose for the GM: paragraphs are fine (CRLF is kept as LF), control,
    bidi and zero-width characters are not."""
    text = 'description = """\nFirst paragraph.\r\n\r\nSecond,\twith a tab."""\n' + NORA
    ((_, row),) = import_sheets(chicago, [write(tmp_path, "nora.toml", text)])
    assert row.description == "First paragraph.\n\nSecond,\twith a tab."
    for char in ("\r", "\x00", "\u202e", "\u200b", "\x0b"):
        assert problems({**_npc("Tess"), "description": f"One{char}two"}).startswith(
            f"description: the text holds U+{ord(char):04X}")
    assert problems({**_npc("Tess"), "description": "x" * 4001}).startswith(
        "description: the text is 4,001 characters long; at most 4000 are allowed")


def test_names_are_kept_as_players_type_them(chicago, config, tmp_path):
    """The parser reads ’ as ' and runs of spaces as one, so a sheet's names are stored that
    way too and a player's /sheet "Jack O’Malley" finds him."""
    sheet = parse_sheet({**_npc("Jack  O’Malley"), "aspects": {"high_concept": "Bookie   With a Heart"}}, FC)
    assert sheet.character.name == "Jack O'Malley" and sheet.aspects[0].name == "Bookie With a Heart"
    import_character(chicago, sheet)
    out = process_message(eml('/sheet "Jack O’Malley"\n'), make_ctx(config))
    assert out.status == "applied", out.errors
    assert "Jack O'Malley" in plain_text(mails(out)[0])
    assert "holds a quote character, so no command could name it" in problems(_npc('Jack "The Knife"'))


# ---------------------------------------------------------------------------- reserved names

#: Where a character's name goes in a command, and where the parsed command keeps it.
CHARACTER_SLOTS = [
    ("/sheet X", lambda c: c.character), ("/fp X", lambda c: c.character), ("/fp give X", lambda c: c.character),
    ("/fp take X 2", lambda c: c.character), ("/attack X with Fight", lambda c: c.target),
    ("/overcome Athletics vs X", lambda c: c.opposition.character),
    ("/defend Athletics vs X", lambda c: c.opposition.character),
    ('/advantage Notice "Open Window" on X', lambda c: c.target),
    ("/as X overcome Athletics vs Fair", lambda c: c.actor), ("/as X", lambda c: c.actor),
    ("/next X", lambda c: c.character), ('/compel X "Hungry" "a meal"', lambda c: c.target),
    ('/give "Boost" X', lambda c: c.to), ('/give "Boost" X 1', lambda c: c.to),
    ('/treat X "Broken Arm" with Academics', lambda c: c.patient),
    ("/conflict start X", lambda c: c.participants[0]), ("/conflict start Ruth, X", lambda c: c.participants[1]),
    ("/conflict start Ruth first X", lambda c: c.first), ("/place X in Dock", lambda c: c.character),
    ("/as Ghoul attack X with Fight", lambda c: c.target),
]


def grammar_keywords() -> set[str]:
    """Every whole word the grammar's keyword terminals match."""
    from pbp.parser.grammar import grammar

    text = grammar()          # the ladder's words filled in (the file holds @LADDER@)
    words: set[str] = set()

    def expand(body: str) -> list[str]:
        group = re.search(r"\(\?:([^()]*)\)(\??)", body)
        if not group:
            return [body.replace("\\.", "")]
        options = group.group(1).split("|") + ([""] if group.group(2) else [])
        return [w for o in options for w in expand(body[:group.start()] + o + body[group.end():])]

    for match in re.finditer(r"^[A-Z_]+\.2: /(.*?)\(\?!", text, re.M):
        words |= {w for w in expand(match.group(1)) if re.fullmatch(r"[a-z]+", w)}
    return words


def test_reserved_names_are_exactly_the_words_a_character_slot_misreads():
    """A bare word the grammar reads as something else where a character's name goes would
    name a character no command could reach unquoted; the reserved list is exactly those
    words (from the grammar, so a new keyword that collides fails here), plus GM and me."""
    keywords = grammar_keywords()
    assert {"versus", "overcome", "fair", "show"} <= keywords
    misread = set()
    for word in keywords | {"ruth"}:
        name = word.capitalize()
        for template, where in CHARACTER_SLOTS:
            try:
                got = where(parse_command(template.replace("X", name)))
            except Exception:    # noqa: BLE001 - a syntax error is a misreading too
                got = None
            if got != name:
                misread.add(word)
    assert misread == set(RESERVED_NAMES) - {"gm", "me"}


@pytest.mark.parametrize("name", ["GM", "gm", "Me", "Good", "LEGENDARY", "spend", "Tie", "to", "Event"])
def test_a_reserved_name_is_refused_with_the_reason(name):
    with pytest.raises(SheetError) as exc:
        parse_sheet(_npc(name), FC, source="x.toml")
    (problem,) = exc.value.problems
    assert problem.startswith(f'name: "{name}" cannot be a character\'s name: it ')


def test_names_with_reserved_words_inside_are_fine(chicago):
    for name in ["Good Cop", "Gmork", "Meredith", "Tie Fighter"]:
        import_character(chicago, parse_sheet(_npc(name), FC))
    assert {"Good Cop", "Gmork", "Meredith", "Tie Fighter"} <= set(repo.load_table(chicago).characters)


# ---------------------------------------------------------------------------- keys and files


@pytest.mark.parametrize("data, problem", [
    ({"refesh": 3}, 'refesh: unknown key; did you mean "refresh"?'),
    ({"skils": {}}, 'skils: unknown key; did you mean "skills"?'),
    ({"aspects": {"high_concept": "H", "hight_concept": "H"}}, 'aspects.hight_concept: unknown key; did you mean "high_concept"?'),
    ({"stunts": [{"name": "S", "bonnus": 1}]}, 'stunts[1].bonnus: unknown key; did you mean "bonus"?'),
    ({"kind": "minor", "aspects": {"other": ["A"]}, "stress": {"box": 1}}, 'stress.box: unknown key; did you mean "boxes"?'),
    ({"colour": "red"}, "colour: unknown key; the keys here are name, aliases, kind, player, refresh, milestone_refresh, "
                        "fate_points, description, aspects, skills, stunts, stress"),
    ({"Fight ": 1}, '"Fight ": unknown key; the keys here are'),
])
def test_unknown_keys_anywhere_are_named_with_a_suggestion(data, problem):
    base = _npc("Tess")
    base.update(data)
    with pytest.raises(SheetError) as exc:
        parse_sheet(base, FC)
    assert any(p.startswith(problem) for p in exc.value.problems), exc.value.problems


def test_a_file_that_cannot_be_read_is_one_line(cli_table, capsys):
    cases = {
        "deep.toml": (b"x = " + b"[" * 3000 + b"]" * 3000, "is not a usable TOML sheet (values nested too deep)"),
        "dots.toml": (b"a." * 20_000 + b"b = 1\n", "line 1: a key of more than 8 dotted parts"),
        "big.toml": (NORA.encode() + b"#" * 70_000, "is over 64 KiB"),
        "digits.toml": (NORA.encode() + b"fate_points = " + b"9" * 5000, "is not a usable TOML sheet (Exceeds the limit"),
    }
    paths = [write(cli_table, name, content) for name, (content, _) in cases.items()]
    capsys.readouterr()
    assert main(["character", "import", *paths]) == 3
    err = capsys.readouterr().err.splitlines()
    for path, (_, message) in zip(paths, cases.values()):
        (line,) = [x for x in err if x.startswith(f"error: {path}")]
        assert message in line, line
    assert len(err) == len(paths) + 1       # one line each, and the count
