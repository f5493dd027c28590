"""Issue 8, item 5: the reader never loses or resurrects a command. Each test is a post from
a player through the real pipeline (mail in, replies and state out): the command the author
wrote runs exactly once, the command in the quoted older mail never does, and a line that
only looks like a command is named in the reply."""
from __future__ import annotations

from datetime import timedelta

import pytest

from pbp.copies import COPY_WINDOW
from pbp.store import models as m
from tests.play.table import MailTable

NEW = "/roll 4dF"
OLD = "/attack Ghoul with Fight"

ATTRIBUTIONS = {
    "gmail": "On Mon, Jun 3, 2024 at 10:00 AM GM <gm@pbp.localhost> wrote:",
    "gmail-uk": "On Mon, 3 Jun 2024 at 10:00, GM <gm@pbp.localhost> wrote:",
    "apple-mail": "On 3 Jun 2024, at 10:00, GM <gm@pbp.localhost> wrote:",
    "apple-mail-us": "On Jun 3, 2024, at 10:00 AM, GM <gm@pbp.localhost> wrote:",
    "thunderbird": "On 03/06/2024 10:00, GM wrote:",
    "thunderbird-new": "On 6/3/24 10:00, GM wrote:",
    "outlook-ios": "On Mon, Jun 3, 2024 at 10:00 AM, GM <gm@pbp.localhost> wrote:",
    "bare": "GM <gm@pbp.localhost> wrote:",
    "german-gmail": "Am Mo., 3. Juni 2024 um 10:00 Uhr schrieb GM <gm@pbp.localhost>:",
    "german-apple": "Am 03.06.2024 um 10:00 schrieb GM <gm@pbp.localhost>:",
    "german-thunderbird": "Am 03.06.24 um 10:00 schrieb GM:",
    "french-gmail": "Le lun. 3 juin 2024 à 10:00, GM <gm@pbp.localhost> a écrit :",
    "french-apple": "Le 3 juin 2024 à 10:00, GM <gm@pbp.localhost> a écrit :",
    "spanish": "El lun, 3 jun 2024 a las 10:00, GM (<gm@pbp.localhost>) escribió:",
    "dutch": "Op ma 3 jun 2024 om 10:00 schreef GM <gm@pbp.localhost>:",
    "danish": "Den man. 3. jun. 2024 kl. 10.00 skrev GM <gm@pbp.localhost>:",
    "norwegian": "man. 3. jun. 2024 kl. 10:00 skrev GM <gm@pbp.localhost>:",
    "swedish": "Den mån 3 juni 2024 kl 10:00 skrev GM <gm@pbp.localhost>:",
    "italian-gmail": "Il giorno lun 3 giu 2024 alle ore 10:00 GM <gm@pbp.localhost> ha scritto:",
    "italian-apple": "Il giorno 3 giu 2024, alle ore 10:00, GM <gm@pbp.localhost> ha scritto:",
    "portuguese": "Em seg., 3 de jun. de 2024 às 10:00, GM <gm@pbp.localhost> escreveu:",
    "polish": "pon., 3 cze 2024 o 10:00 GM <gm@pbp.localhost> napisał(a):",
    "russian-gmail": "пн, 3 июн. 2024 г. в 10:00, GM <gm@pbp.localhost>:",
    "russian-old": "3 июня 2024 г., 10:00 пользователь GM <gm@pbp.localhost> написал:",
    "chinese": "GM <gm@pbp.localhost> 于2024年6月3日周一 10:00写道：",
    "japanese": "2024年6月3日(月) 10:00 GM <gm@pbp.localhost>:",
    "czech": "po 3. 6. 2024 v 10:00 odesílatel GM <gm@pbp.localhost> napsal:",
    "finnish": "ma 3. kesäk. 2024 klo 10.00 GM (gm@pbp.localhost) kirjoitti:",
    "gmail-wrapped": "On Mon, Jun 3, 2024 at 10:00 AM Chicago Nights Game Master <\ngm@pbp.localhost> wrote:",
    "gmail-wrapped-name": "On Mon, 3 Jun 2024 at 10:00, Chicago Nights Game Master\n<gm@pbp.localhost> wrote:",
    "german-wrapped": "Am Mo., 3. Juni 2024 um 10:00 Uhr schrieb Chicago Nights Game Master <\ngm@pbp.localhost>:",
}
#: prose of the kinds that the joiner used to take for the start of a wrapped attribution
PROSE = ["On the dock Ruth waits", "On it.", "12 ghouls come out of the dark.", "2024 was a bad year",
         "Write to ruth@pbp.localhost if you need me", "Am Ende kommt sie", "Le chien aboie.",
         "Den hund gøer", "El perro ladra", "Op de kade", "Il cane", "Em casa", "10:00 sharp, she says:",
         "Ruth <ruth@pbp.localhost> says hi:", "pon., 3 cze she hides"]
QUOTES = {"quoted": f"> The ghoul lunges.\n> {OLD}\n", "unquoted": f"The ghoul lunges.\n{OLD}\n",
          "tab": f"\tThe ghoul lunges.\n\t{OLD}\n"}


@pytest.fixture
def table(chicago, config):
    """Ruth's posts a day and a minute apart: the tests send the same words and command in
    many new mails, each meant to run, and inside the copy window (pbp.copies) a repeat
    with the same words is taken for a copy."""
    return MailTable(config, step=COPY_WINDOW + timedelta(minutes=1))


def rolls() -> int:
    return m.RollRecord.select().count()


def assert_only_new_ran(step, before: int) -> None:
    assert step.status == "applied", step.outcome.errors
    assert len(step.outcome.results) == 1, step.outcome.results
    assert "Ghoul" not in str(step.outcome.results)  # the old /attack never ran
    assert rolls() == before + 1
    assert sorted(step.replies[0].to) == sorted({mb.email for mb in m.Member.select()})


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(ATTRIBUTIONS))
def test_prose_above_a_command_above_any_attribution(table, name):
    """Prose beginning with "On", a number, or holding an @, right above the command that
    sits right above the attribution: the command runs, once, in every client's form."""
    attribution = ATTRIBUTIONS[name]
    for prose in PROSE:
        for gap in ("", "\n"):
            for style, quote in QUOTES.items():
                before = rolls()
                step = table.post("Ruth", f"{prose}\n{NEW}\n{gap}{attribution}\n{quote}", dice="0+-0")
                assert_only_new_ran(step, before)
                assert "[0] [+] [-] [0]" in step.text, (prose, style, step.text)


def test_tab_indented_quotes_after_an_attribution_are_quoted(table):
    """mailx and s-nail quote with a tab: the quoted command never rolls again, also where
    the quote resumes between inline answers; the author's answers run."""
    body = (f"On Mon, 3 Jun 2024 at 10:00, GM wrote:\n\tThe ghoul lunges.\n\t{OLD}\n\n"
            f"Ruth answers.\n{NEW}\n\n\tThe shoggoth waits.\n\t/overcome Athletics vs Fair\n")
    before = rolls()
    step = table.post("Ruth", body, dice="0+-0")
    assert_only_new_ran(step, before)
    assert "Athletics" not in step.text


@pytest.mark.parametrize("marker", [
    "-----Original Message-----", "-----Ursprüngliche Nachricht-----", "----- Antwort Nachricht -----",
    "-----Oprindelig meddelelse-----", "-----Message d'origine-----", "-----Mensaje original-----",
    "-----Oorspronkelijk bericht-----", "-----Ursprungligt meddelande-----", "-----Originalmeddelande-----",
    "-----Messaggio originale-----", "-----Mensagem original-----", "-----Opprinnelig melding-----",
    "-----Oryginalna wiadomość-----", "-----Исходное сообщение-----", "-----Původní zpráva-----",
    "-----Alkuperäinen viesti-----", "-----原始邮件-----", "-----元のメッセージ-----",
])
def test_original_message_markers_in_the_clients_languages(table, marker):
    before = rolls()
    step = table.post("Ruth", f"Ruth runs.\n{NEW}\n\n{marker}\nThe ghoul lunges.\n{OLD}\n", dice="0+-0")
    assert_only_new_ran(step, before)


@pytest.mark.parametrize("block", [
    "From: GM <gm@pbp.localhost>\nDate: Mon, 3 Jun 2024 10:00",
    "Date: Mon, 3 Jun 2024 10:00\nTo: ruth@pbp.localhost",
    "Von: GM <gm@pbp.localhost>\nGesendet: Montag, 3. Juni 2024 10:00",
])
def test_header_blocks_of_two_lines(table, block):
    before = rolls()
    step = table.post("Ruth", f"Ruth runs.\n{NEW}\n\n{block}\n\nThe ghoul lunges.\n{OLD}\n", dice="0+-0")
    assert_only_new_ran(step, before)


def test_a_letter_in_the_story_is_no_header_block(table):
    """Two header-like lines without a clock time are prose (a letter the player quotes)."""
    before = rolls()
    step = table.post("Ruth", f"The letter reads:\nFrom: Ruth\nDate: 12 June 1925\nDear Charles,\n{NEW}\n",
                      dice="0+-0")
    assert_only_new_ran(step, before)


def test_an_html_rule_then_a_from_date_block(chicago, config):
    from pbp.flow.context import Context
    from pbp.pipeline import process_message
    from pbp.rules.dice import FixedDice
    from tests.helpers import FIXED_NOW

    html = (f"<html><body><div>Ruth runs.</div><div>{NEW}</div>"
            "<hr><b>From:</b> GM &lt;gm@pbp.localhost&gt;<br><b>Date:</b> Mon, 3 Jun 2024 10:00<br><br>"
            f"<div>The ghoul lunges.</div><div>{OLD}</div></body></html>")
    raw = ("From: ruth@pbp.localhost\nTo: table+chicago@pbp.localhost\nSubject: Re: The warehouse\n"
           "Message-ID: <html-hr@pbp.test>\nDate: Sun, 29 Nov 2026 18:00:00 +0000\nMIME-Version: 1.0\n"
           "Content-Type: text/html; charset=utf-8\n\n" + html).encode()
    out = process_message(raw, Context(config=config, dice=FixedDice("0+-0"), clock=lambda: FIXED_NOW))
    assert out.status == "applied" and len(out.results) == 1 and rolls() == 1


def test_sent_from_my_phone_is_a_footer_only_where_it_ends_the_new_text(table):
    before = rolls()
    step = table.post("Ruth", f"Ruth runs.\n\nSent from my iPhone\n{NEW}\n", dice="0+-0")
    assert_only_new_ran(step, before)
    before = rolls()
    step = table.post("Ruth", f"Ruth runs.\n{NEW}\n\nSent from my iPhone\n\n{ATTRIBUTIONS['gmail']}\n"
                      f"The ghoul lunges.\n{OLD}\n", dice="0+-0")
    assert_only_new_ran(step, before)
    assert "Sent from my iPhone" not in step.text


@pytest.mark.parametrize("invisible", ["\ufeff", "\u200b", "\u2060", "\u200e", "\u200f", "\u00ad"])
def test_invisible_characters_before_the_slash_or_inside_the_word(table, invisible):
    for line in (f"{invisible}/roll 4dF", f"/ro{invisible}ll 4dF", f"{invisible} /roll{invisible} 4dF"):
        before = rolls()
        step = table.post("Ruth", f"Ruth runs.\n{line}\n", dice="0+-0")
        assert_only_new_ran(step, before)
    before = rolls()  # nor may one turn a quote into the author's text
    step = table.post("Ruth", f"Ruth runs.\n{NEW}\n\n{ATTRIBUTIONS['gmail']}\n{invisible}> {OLD}\n", dice="0+-0")
    assert_only_new_ran(step, before)


@pytest.mark.parametrize("line, why", [
    ("／roll 4dF", "a fullwidth slash (U+FF0F)"),
    ("∕roll 4dF", "a division slash (U+2215)"),
    ("/ roll 4dF", "a space follows the /"),
    ("\\roll 4dF", "a backslash"),
])
def test_a_line_that_only_looks_like_a_command_is_never_silent(table, line, why):
    """Nothing runs and nothing changes, and the reply says which line was not read, why,
    and how to write it."""
    before = rolls()
    step = table.post("Ruth", f"Ruth runs.\n{line}\n")
    assert step.status == "applied" and step.outcome.results == []
    assert rolls() == before
    assert step.replies and "ruth@pbp.localhost" in step.replies[0].to
    assert f'line 2, "{line}", was not read as a command' in step.text, step.text
    assert why in step.text and "write it as /roll 4dF" in step.text


def test_the_note_comes_beside_the_results_of_a_post_that_ran(table):
    step = table.post("Ruth", f"{NEW}\n／overcome Athletics vs Fair\n", dice="0+-0")
    assert len(step.outcome.results) == 1
    assert 'line 2, "／overcome Athletics vs Fair", was not read as a command' in step.text
    assert "write it as /overcome Athletics vs Fair" in step.text


def test_prose_alone_gets_no_note(table):
    step = table.post("Ruth", "Ruth waits / watches, 1/2 asleep.\n/ and then nothing.\n")
    assert step.outcome.results == [] and "Note:" not in step.text
