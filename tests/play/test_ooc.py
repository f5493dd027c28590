"""In and out of character (issue 24, item 6): a line or a post marked out of character
(``((...))``, ``/ooc``) is relayed to the table, apart from the story, and never read for
commands; the archive shows it apart too. Played by mail through the pipeline and read from
the players' side: the table's mail, the ledger, the play state and the archive."""
from __future__ import annotations

import pytest

from pbp.archive.export import export_zip
from pbp.archive.view import Reader, build
from pbp.ooc import ooc_lines, ooc_text
from pbp.render import MARK
from pbp.store import models as m
from tests.play.table import MailTable


def test_which_lines_are_out_of_character():
    text = "\n".join([
        "Ruth kicks the door.",          # 1
        "((brb, dinner))",               # 2 one line
        "(( a block that",               # 3 opens a block
        "/roll 4dF",                     # 4 inside it
        "ends here ))",                  # 5 closes it
        "/ooc can we move this along?",  # 6 one line
        "/overcome Athletics vs Fair",   # 7 in character
        "/ooc",                          # 8 the rest of the post
        "/fp spend",                     # 9
    ])
    assert ooc_lines(text) == {2, 3, 4, 5, 6, 8, 9}
    assert ooc_text("((brb, dinner))") == "brb, dinner"
    assert ooc_text("/OOC can we move on?") == "can we move on?"
    assert ooc_text("/ooc") == "" and ooc_text("/oocult") == "/oocult"    # only the word
    assert ooc_lines("/oocult rites\n(not ooc)") == frozenset()


@pytest.fixture
def table(config, chicago):
    return MailTable(config)


def _rolls(chicago) -> int:
    return m.RollRecord.select().where(m.RollRecord.campaign == chicago).count()


def test_commands_inside_out_of_character_lines_are_never_run(table, chicago):
    fp_before = m.Character.get(m.Character.name == "Ruth").fate_points
    step = table.post("Ruth", "\n".join([
        "Ruth eyes the chapel door.",
        "((/fp spend — just kidding, I know that spends a point))",
        "((",
        "/roll 4dF",
        "/attack Ghoul with Fight",
        "))",
        "/ooc /fp spend",
    ]))
    assert step.status == "applied" and step.outcome.results == []
    assert _rolls(chicago) == 0
    assert m.Character.get(m.Character.name == "Ruth").fate_points == fp_before
    (mail,) = step.replies
    lines = mail.text.splitlines()
    assert "Ruth eyes the chapel door." in lines
    # apart, after the story, under pbp's own (marked) heading, the marks taken off
    head = lines.index(f"{MARK} Out of character:")
    assert lines[head + 1:head + 5] == ["  /fp spend — just kidding, I know that spends a point", "  /roll 4dF",
                                        "  /attack Ghoul with Fight", "  /fp spend"]
    assert lines.index("Ruth eyes the chapel door.") < head
    assert "((" not in mail.text and "not applied" not in mail.subject
    assert "Out of character" in mail.html and "/attack Ghoul with Fight" in mail.html


def test_a_whole_post_out_of_character_and_a_command_beside_ooc_lines(table, chicago):
    whole = table.post("GM", "/ooc\nFolks, no game on Friday.\n/scene end\n/aspect add \"Trap\" hidden")
    assert whole.status == "applied" and whole.outcome.results == []
    assert "Folks, no game on Friday." in whole.replies[0].text
    assert m.Aspect.select().where(m.Aspect.name == "Trap").count() == 0

    mixed = table.post("Ruth", "Ruth shoulders the door.\n/overcome Athletics vs Fair\n((sorry for the delay))",
                       dice="++00")
    assert mixed.status == "applied" and [r["action"] for r in mixed.outcome.results] == ["overcome"]
    text = mixed.replies[0].text
    assert text.index("Ruth overcomes with Athletics") < text.index("Out of character:") < text.index(
        "sorry for the delay")


def test_a_bare_approve_out_of_character_is_not_an_answer(table, chicago):
    from tests.play.table import Step

    offer = table.post("Cassandra", '/compel Ruth "Hair-Trigger Temper" event "The jibe sets her off"')
    assert offer.status == "applied", offer.outcome.errors
    to_gm = next(r for r in offer.replies if r.to == ["gm@pbp.localhost"])
    answer = table.post("GM", "((approve))\nlet me think about it", reply_to=Step(None, [to_gm]))
    assert answer.status == "applied" and answer.outcome.results == []
    assert "compel:1" in str((m.Campaign.get_by_id(chicago.id).play or {}).get("threads"))  # still waiting
    approved = table.post("GM", "approve", reply_to=Step(None, [to_gm]))    # the same answer in character
    assert [r["action"] for r in approved.outcome.results] == ["approve"]


def test_the_archive_shows_out_of_character_words_apart(table, chicago):
    table.post("Ruth", "Ruth waits by the car.\n((back on Monday))\n/ooc /roll 4dF")
    archive = build(chicago, Reader(gm=False))
    (entry,) = [e for s in archive.scenes for e in s.entries]
    assert [line for line, _ in entry.lines] == ["Ruth waits by the car."]
    assert entry.ooc == ["back on Monday", "/roll 4dF"]
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(export_zip(chicago))) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".md") and "/sheets/" not in n]
        page = z.read(name).decode()
    assert "### Out of character\n\n> back on Monday\n> /roll 4dF" in page
