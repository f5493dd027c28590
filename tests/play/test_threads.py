"""Threads stay together (issue 14, item 4): every mail pbp sends the table carries the
subject the thread began with. Deadlines are said in the body; private matters (a compel
offered to Ruth, the GM's approval) go in mails of their own and never rename the table's
thread, even when a player answers the private mail."""
from __future__ import annotations

TABLE = "Re: [Chicago Nights] The conflict"


def test_an_attack_waiting_for_a_defence_keeps_the_thread_subject(mt):
    mt.post("GM", '/scene start "Dank Basement"\n/conflict start Ruth, Ghoul first Ghoul\n')
    attack = mt.post("GM", "/as Ghoul attack Ruth with Fight\n", dice="00++")
    assert attack.status == "applied", attack.outcome.errors
    (table,) = attack.replies
    assert table.subject == TABLE
    assert "Ruth, Ghoul's attack" in table.text and "If you have not answered by" in table.text
    defence = mt.post("Ruth", "/defend Fight\n", dice="0000", reply_to=attack)
    assert defence.replies[0].subject == TABLE


def test_answering_a_private_compel_mail_does_not_rename_the_table_thread(mt):
    offer = mt.post("Cassandra", '/compel Ruth "Hair-Trigger Temper" event "The jibe sets her off"\n')
    table, to_gm = offer.replies
    assert table.subject == TABLE and to_gm.subject == "[Chicago Nights] Compel #1 needs your approval"
    approved = mt.post("GM", "approve\n", reply_to=_only(to_gm))
    assert approved.status == "applied", approved.outcome.errors
    subjects = {r.subject: r.to for r in approved.replies}
    assert TABLE in subjects
    private = next(r for r in approved.replies if r.subject != TABLE)
    assert private.to == ["ruth@pbp.localhost"] and "accept or refuse by" in private.subject
    # Ruth answers the private mail: the whole table reads the answer in the table's thread
    accepted = mt.post("Ruth", "Ruth swings anyway.\n/accept\n", reply_to=_only(private))
    assert accepted.status == "applied", accepted.outcome.errors
    assert [r.subject for r in accepted.replies] == [TABLE]
    assert len(accepted.replies[0].to) == 5 and "Compel" not in accepted.replies[0].subject


def test_an_edited_subject_mid_thread_keeps_the_thread_and_a_new_thread_its_own(mt):
    first = mt.post("Ruth", "Ruth looks around.\n", subject="The docks — part 2")
    assert first.replies[0].subject == "Re: [Chicago Nights] The docks — part 2"
    edited = mt.post("Ethan", "Ethan follows.\n", reply_to=first, subject="Re: Ethan's bit (was: the docks)")
    assert edited.replies[0].subject == "Re: [Chicago Nights] The docks — part 2"
    fresh = mt.post("Ethan", "Meanwhile, at the office.\n", subject="The office")
    assert fresh.replies[0].subject == "Re: [Chicago Nights] The office"


def _only(reply):
    from tests.play.table import Step

    return Step(None, [reply])
