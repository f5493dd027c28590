"""What a new GM and their players tripped over in their first games (issue 27, item 3),
each checked from the side that met it: the replies they read, the CLI's output and exit."""
from __future__ import annotations

from pbp.store import models as m


# ---------------------------------------------------------------- the GM's plain roll

def test_the_gm_makes_a_plain_roll_for_the_weather(mt, chicago):
    step = mt.post("GM", "The wind turns.\n/roll 4dF\n", dice="+0-+")
    assert step.status == "applied", step.text
    assert "GM rolls 4dF" in step.text
    assert "[+] [0] [-] [+]" in step.text and "+1 Average" in step.text
    assert m.RollRecord.select().count() == 1


def test_the_gms_skill_roll_still_names_a_character_with_an_example_of_this_campaign(mt, chicago):
    step = mt.post("GM", "/roll Fight\n", dice="+0-+")
    assert step.status == "rejected"
    assert "a plain /roll of dice needs none" in step.text
    npc = min((c.name for c in m.Character.select() if not c.player), key=str.casefold)
    written = f'"{npc}"' if " " in npc else npc
    assert f"example:  /as {written} roll Fight" in step.text


# ---------------------------------------------------------------- a sheet's tracks keep their places

def test_stress_tracks_keep_the_systems_order_after_the_sheet_is_saved(mt, chicago):
    """issue 27: the tracks swapped places once a sheet was saved (the store writes keys
    sorted): physical comes first on the sheet and in every "Sheets:" line."""
    first = mt.post("Ruth", "/sheet\n")
    assert first.text.index("physical") < first.text.index("mental")
    spent = mt.post("Ruth", '/overcome Athletics vs Great +invoke "Knife Up My Sleeve"\n', dice="0000")
    assert spent.status == "applied", spent.text
    line = next(x for x in spent.text.splitlines() if x.lstrip("\u2503 ").startswith("Ruth: FP"))   # relay marks
    assert line.index("physical") < line.index("mental"), line
    again = mt.post("Ruth", "/sheet\n")
    assert again.text.index("physical") < again.text.index("mental")


# ---------------------------------------------------------------- the table's thread keeps its subject

def test_an_approve_sent_with_in_reply_to_alone_leaves_the_tables_subject(mt, chicago):
    """issue 27: a GM's client wrote In-Reply-To and no References on its /approve; every
    later table mail was "Re: [...] Compel #4 needs your approval"."""
    from tests.play.table import Step

    first = mt.post("Cassandra", '/compel Ruth "Hair-Trigger Temper" event "The bouncer sets her off."\n',
                    subject="[Chicago Nights] The Bar")
    assert first.status == "applied", first.text
    ask = next(r for r in first.replies if r.subject.endswith("Compel #1 needs your approval"))
    approved = mt.post("GM", "/approve\n", reply_to=Step(None, [ask]), references=False)
    assert approved.status == "applied", approved.text
    table = [r for r in approved.replies if len(r.to) > 1]
    assert [r.subject for r in table] == ["Re: [Chicago Nights] The Bar"]
    later = mt.post("Ruth", "/overcome Athletics vs Fair\n", dice="0000", reply_to=approved)
    assert later.replies[0].subject == "Re: [Chicago Nights] The Bar"
    assert not any("approval" in r.subject for r in later.replies)


# ---------------------------------------------------------------- /sheet set as the README writes it

def test_the_gm_sets_a_consequence_by_mail_with_the_readmes_shell_quoting(mt, chicago):
    """issue 27: the README's `pbp character set Ruth "consequences.mild=Bruised Ribs"`,
    copied into a mail as /sheet set, got a generic parse error."""
    step = mt.post("GM", '/sheet set Ruth "consequences.mild=Bruised Ribs" fate_points=2\n')
    assert step.status == "applied", step.text
    assert 'consequences.mild: (none) -> "Bruised Ribs"' in step.text and "fate_points: 3 -> 2" in step.text


# ---------------------------------------------------------------- said once

def test_a_request_for_help_is_said_once_in_the_tables_mail(mt, chicago):
    """issue 27: the help notice was in the table's mail twice ("Ruth asks Cassandra for
    help ..." and "Ruth asks Cassandra to help with ..."): the note says who asked whom,
    the request under it what to reply."""
    step = mt.post("Ruth", "/help from Cassandra\n")
    assert step.status == "applied", step.text
    table = step.replies[0].text
    assert table.count("asks Cassandra") == 1, table
    assert "Cassandra, to help Ruth's next roll reply /help Ruth by " in table


# ---------------------------------------------------------------- nothing said twice in one reply

def test_an_advancement_request_is_said_once_in_the_tables_reply(config, chicago):
    """issue 27: the table's reply said Ruth's advancement twice, as the note and again in the
    GM's ask; the ask now says only who answers and how (advancement golden, Ruth's /advance)."""
    from tests.play import golden

    table, _ = golden.play("advancement", config)
    replies = [r.text for step in table.steps for r in step.replies if "Advancement #1" in r.text
               and "(once the GM approves)" in r.text]
    assert replies, "the advancement golden asks for advancement #1"
    for text in replies:
        assert text.count("switch ranks") == 1, text
        assert "Advancement #1 waits for the GM. Reply /approve or /deny" in text


def test_the_turn_handoff_is_asked_once(db, config):
    """issue 27: "name who opens exchange 4" was said twice in one reply, by the handoff ask
    and by the turn line; a reply that asks for the handoff has no turn line besides (early
    Fate's conflict golden, where the Knifeman closes exchange 3; 002_3a4e52a093e280aa.txt)."""
    from pbp.demo import create_sample_campaign
    from tests.play import golden

    create_sample_campaign("early-fate")
    table, _ = golden.play("early_fate_conflict", config)
    asked = [r.text for step in table.steps for r in step.replies
             if "name who opens exchange" in r.text or "hand the turn on to one of" in r.text]
    assert asked
    for text in asked:
        assert text.count("opens exchange") <= 1 and "hands off next (/next NAME)" not in text, text
