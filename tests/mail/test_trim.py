"""The reply trimmer against 64 real replies, with planted commands, and against the
mails a Fate table writes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbp.mail.trim import split_reply, trim_reply
from .datasets import (
    NEW_COMMAND,
    OLD_COMMAND,
    REPLY_TRIMMER,
    case_names,
    command_lines,
    normalise,
    plant_commands,
    read_case,
)

CASES = case_names()
if not CASES:  # missing data fails the run at collection: a clone without it must not pass
    raise RuntimeError(f"reply-trimmer test data not found at {REPLY_TRIMMER}: "
                       "it is part of the repository (tests/data/): restore it with git checkout")


def test_the_shared_data_is_all_there():
    assert len(CASES) == 64


# --------------------------------------------------------------------------- the 64 cases


@pytest.mark.parametrize("name", CASES)
def test_keeps_what_the_author_wrote(name):
    assert normalise(trim_reply(read_case(name, "emails"))) == normalise(read_case(name, "trimmed"))


@pytest.mark.parametrize("name", CASES)
def test_split_reply_loses_no_line(name):
    text = read_case(name, "emails")
    kept, elided = split_reply(text)
    assert kept == trim_reply(text)
    assert sorted(line for line in (kept + "\n" + elided).split("\n") if line.strip()) == sorted(
        line for line in text.split("\n") if line.strip()
    )


@pytest.mark.parametrize("where", ["head", "tail"])
@pytest.mark.parametrize("name", CASES)
def test_only_the_new_command_runs(name, where):
    """The README's fairness measure: a command in the kept part runs, one in the elided
    part never does (and, planted bare, does not even reach the new text)."""
    planted = plant_commands(name, where)
    new_text = trim_reply(planted.text)
    assert command_lines(new_text) == [NEW_COMMAND]
    assert OLD_COMMAND not in new_text


def test_the_old_command_is_planted_in_nearly_every_case():
    """Guards the fairness test itself: it must not skip its way to green."""
    missing = {
        (name, where): planted.why_not
        for name in CASES
        for where in ("head", "tail")
        if not (planted := plant_commands(name, where)).old_planted and planted.why_not != "nothing is elided"
    }
    # 17 and 18 elide only "On ... wrote:" lines above the author's text; forwarded_message
    # elides a forward header that ends right above the forwarded text it keeps
    assert set(missing) <= {
        ("embedded_email_17", "head"), ("embedded_email_17", "tail"),
        ("embedded_email_18", "head"), ("embedded_email_18", "tail"),
        ("forwarded_message", "tail"),
    }, missing


# --------------------------------------------------------------------------- table mail


GMAIL = """\
Ruth vaults the railing.

/overcome Athletics vs Fair

On Mon, 3 Jun 2024 at 10:00, Chicago Nights (pbp) <table+chicago@pbp.localhost>
wrote:

> Charles rolls Investigate.
> /attack Ghoul with Fight
"""

OUTLOOK_PLAIN = """\
Charles checks the door.
/overcome Investigate vs Good

________________________________
From: Chicago Nights (pbp) <table+chicago@pbp.localhost>
Sent: Monday, June 3, 2024 10:00 AM
To: Charles <charles@outlook.com>
Subject: Charles' turn

/attack Ghoul with Fight
"""

OUTLOOK_HEADERS_ONLY = """\
/overcome Investigate vs Good

{}: Chicago Nights <table@pbp.localhost>
{}: Montag, 3. Juni 2024 10:00
{}: Charles <charles@outlook.com>
{}: The warehouse

/attack Ghoul with Fight
"""


@pytest.mark.parametrize("mail", [GMAIL, OUTLOOK_PLAIN], ids=["gmail-wrapped-attribution", "outlook-separator"])
def test_table_replies(mail):
    assert command_lines(trim_reply(mail)) == [line for line in command_lines(mail) if "Ghoul" not in line]


@pytest.mark.parametrize("names", [
    ("From", "Sent", "To", "Subject"),
    ("Von", "Gesendet", "An", "Betreff"),
    ("De", "Envoyé", "À", "Objet"),
    ("De", "Enviado", "Para", "Asunto"),
    ("Da", "Inviato", "A", "Oggetto"),
    ("Van", "Verzonden", "Aan", "Onderwerp"),
    ("Från", "Skickat", "Till", "Ämne"),
], ids=lambda names: names[0])
def test_an_unquoted_outlook_header_block_starts_the_old_mail(names):
    assert trim_reply(OUTLOOK_HEADERS_ONLY.format(*names)) == "/overcome Investigate vs Good"


@pytest.mark.parametrize("opening", [
    "-----Original Message-----\nFrom: GM\nSent: Monday\n",
    "From: GM <gm@example.com>\nSent: Monday, June 3, 2024 10:00 AM\nTo: Ruth\nSubject: The warehouse\n",
    "On Mon, 3 Jun 2024 at 10:00, GM <gm@example.com> wrote:\n",
], ids=["original-message", "outlook-headers", "attribution"])
def test_a_reply_sent_without_a_word_runs_nothing(opening):
    """Outlook's plain text quotes without ``>``: an empty reply must not re-run the old mail."""
    quote = "> " if opening.startswith("On ") else ""
    mail = f"\n\n{opening}\n{quote}Ruth rolls.\n{quote}{OLD_COMMAND}\n"
    assert command_lines(trim_reply(mail)) == []


def test_a_forward_with_nothing_above_keeps_the_forwarded_text():
    """As the test data wants (forwarded_message): the forward's header goes, its text
    stays. Running its commands again is for duplicate detection to stop, not the trimmer."""
    mail = ("---------- Forwarded message ---------\nFrom: GM <gm@example.com>\n"
            "Date: Mon, Jun 3, 2024 at 10:00 AM\nSubject: The warehouse\nTo: <ruth@example.com>\n\n\nHello.")
    assert trim_reply(mail) == "Hello."


@pytest.mark.parametrize("marker", [
    "-----Original Message-----",
    "---------- Forwarded message ---------",
    "-----Ursprüngliche Nachricht-----",
    "Begin forwarded message:",
    "-- ",
    "________________________________",
    "Sent from my iPhone",
    "Von meinem iPad gesendet",
    "Get Outlook for Android",
    "On 3 Jun 2024, at 10:00, Ruth <ruth@example.com> wrote:",
    "Le 3 juin 2024 à 10:00, Ruth <ruth@example.com> a écrit :",
    "Am 03.06.2024 um 10:00 schrieb Ruth <ruth@example.com>:",
    "El lun, 3 jun 2024 a las 10:00, Ruth (<ruth@example.com>) escribió:",
    "Op ma 3 jun 2024 om 10:00 schreef Ruth <ruth@example.com>:",
    "2024-06-03 10:00 GMT+02:00 Ruth <ruth@example.com>:",
])
def test_below_a_marker_nothing_runs(marker):
    mail = f"Ruth goes first.\n/overcome Athletics vs Fair\n\n{marker}\n\nRuth goes first.\n{OLD_COMMAND}\n"
    assert trim_reply(mail) == "Ruth goes first.\n/overcome Athletics vs Fair"


@pytest.mark.parametrize("prose", [
    "On the bridge the old man said:",
    "On the third night, Ruth wrote:",
    "At the docks, the ghoul writes in the sand:",
    "Sent by the Council to find the missing professor, Ruth arrives at dawn.",
    "From my hiding place behind the crates I can see the whole dock.",
    "To: whoever finds this letter",
    "A: the ghoul is hungry",
    "* * *",
    "| Skill | Rating |",
])
def test_prose_that_looks_like_mail_furniture_is_kept(prose):
    mail = f"Ruth waits.\n\n{prose}\n\n/overcome Athletics vs Fair\n\nShe runs."
    assert trim_reply(mail) == mail


def test_a_dialogue_is_not_a_header_block():
    mail = "A: You there!\nB: Me?\nA: Yes, you.\nB: No.\nA: Stop!\n\n/attack Ghoul with Fight"
    assert trim_reply(mail) == mail


def test_delimiters_inside_a_code_fence_are_code():
    mail = "Here is my sheet:\n\n```\nFight  +2\n-----\nNotice +1\n```\n\n/overcome Notice vs Fair"
    assert trim_reply(mail) == mail


def test_a_reply_below_the_quote_is_kept():
    mail = "On Mon, 3 Jun 2024 at 10:00, GM <gm@example.com> wrote:\n> /attack Ghoul with Fight\n\n/defend Athletics"
    assert trim_reply(mail) == "/defend Athletics"


def test_inline_answers_keep_the_authors_lines_and_run_none_of_the_quoted():
    mail = ("On Mon, 3 Jun 2024 at 10:00, GM <gm@example.com> wrote:\n"
            "> The ghoul attacks you.\n> /attack Ruth with Fight\n\n/defend Athletics\n\n"
            "> And the floor creaks.\n\nRuth ignores it.\n" + "More.\n" * 8)
    assert command_lines(trim_reply(mail)) == ["/defend Athletics"]


def test_windows_and_old_mac_line_endings():
    assert trim_reply("a\r\nb\rc\n\n> q") == "a\nb\nc"


def test_nothing_but_an_attributed_quote_is_no_new_text():
    assert trim_reply("On Mon, 3 Jun 2024 at 10:00, GM <gm@x.org> wrote:\n> /attack Ghoul with Fight\n") == ""


# --------------------------------------------------------------------------- properties

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=9)
_PROSE = st.lists(_WORD, min_size=1, max_size=12).map(" ".join).map(lambda s: s.capitalize() + ".")
_COMMAND = st.sampled_from(["/overcome Athletics vs Fair", "/roll 4dF+2", "/defend Athletics", "/fp",
                            '/advantage Crafts "On Fire" on Shoggoth vs Good', "/next Ruth"])
_AUTHOR_LINE = st.one_of(_PROSE, _COMMAND, st.just(""))
_OLD_TAILS = [
    "On Mon, 3 Jun 2024 at 10:00, GM <gm@example.com> wrote:\n\n{quoted}",
    "On Mon, 3 Jun 2024 at 10:00, Chicago Nights (pbp) <table+chicago@pbp.localhost>\nwrote:\n\n{quoted}",
    "> On 3 Jun 2024, at 10:00, GM <gm@example.com> wrote:\n>\n{quoted}",
    "________________________________\nFrom: GM <gm@example.com>\nSent: Monday, June 3, 2024 10:00 AM\n"
    "To: Ruth <ruth@example.com>\nSubject: The warehouse\n\n{plain}",
    "-----Original Message-----\nFrom: GM\nSent: Monday\n\n{plain}",
    "From: GM <gm@example.com>\nSent: Monday, June 3, 2024 10:00 AM\nTo: Ruth <ruth@example.com>\n"
    "Subject: The warehouse\n\n{plain}",
    "-- \nRuth\n\n{quoted}",
    "Sent from my iPhone\n\n{quoted}",
]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(author=st.lists(_AUTHOR_LINE, max_size=25), old=st.lists(_AUTHOR_LINE, max_size=20),
       tail=st.sampled_from(_OLD_TAILS))
def test_a_quoted_older_mail_never_changes_which_commands_run(author, old, tail):
    old = old + ["/attack Ghoul with Fight"]
    quoted = "\n".join("> " + line if line else ">" for line in old)
    mail = "\n".join(author) + "\n\n" + tail.format(quoted=quoted, plain="\n".join(old))
    assert command_lines(trim_reply(mail)) == command_lines("\n".join(author))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_AUTHOR_LINE, st.sampled_from(
    ["> quoted", "On Mon, 3 Jun 2024 at 10:00, GM <gm@x.org> wrote:", "From: a <a@x.org>", "Sent: 3 June 2024",
     "To: b", "Subject: c", "--", "Sent from my iPhone", "```", "wrote:", "Ruth <ruth@x.org>"]),
    st.text(max_size=40)), max_size=40))
def test_trimming_only_removes_whole_lines(lines):
    text = "\n".join(lines)
    kept = trim_reply(text)
    source = iter(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    assert all(any(line == candidate for candidate in source) for line in kept.split("\n") if kept)
