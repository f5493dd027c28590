"""A whole campaign played in Portuguese through the pipeline (issue 29): every system the
issue covers beside the conflict of test_conflito.py (compels offered by the GM and by a
player, approved, denied, refused and accepted at their deadline; errors; /ficha, /mesa,
/resumo; a challenge with its deadline; a contest with a threat and a twist; a short
conflict with a consequence and someone taken out; settings, away and back; a free scene's
pace with its reminders and deadline; a milestone and advancement), by mail, with the
daemon's deadline job in between (tests/golden/campanha_em_portugues).

It reads every mail pbp sent and fails on English: the words of :data:`ENGLISH_WORDS` that
pbp's English sentences use and no Portuguese sentence has, looked for in what pbp wrote,
with the players' own words (their posts, quoted names) and the sample sheets' English
aspects and stunts taken out first. The transcript is the review: read it when it changes.
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from tests.play import golden

CASE = "campanha_em_portugues"
SAMPLE = Path(__file__).resolve().parents[2] / "pbp" / "samples" / "chicago"

#: English words of pbp's sentences that Portuguese does not write ("a", "as", "no", "do",
#: "post", "mental" are Portuguese words too, and left out)
ENGLISH_WORDS = frozenset("""
the and with by for from your you is are was has have not yes of to in on at or
this that these those what which who when where until after before
turn round next posts posted waiting waits wait still left due deadline remind reminder reminders
stress consequence consequences mild moderate severe physical
invoke invokes invoked compel compels compelled accept accepts accepted refuse refuses refused
approve approves approved deny denies denied approval
challenge challenges task tasks contest contests victory victories twist threat exchange
overcome overcomes advantage create creates attack attacks defend defends defended
absorb absorbs absorbed taken out concede concedes conceded
success succeeds fail fails failure tie style shift shifts effort boost cost
milestone milestones advance advancement refresh skill skills aspect aspects stunt stunts
scene scenes conflict begins ends over done free held holds
away back pass passes passed order pace stall
sheet sheets table changed nothing line expected example error could did
player players fate points point GM nobody anyone everyone
""".split())
_WORD = re.compile(r"[A-Za-zÀ-ÿ'’]+")


#: What is still English in a Portuguese campaign, each the opening of one of pbp's sentences
#: (docs/jogar-em-portugues.md, "O que ainda está em inglês"): a line with one of them is not
#: counted. The list only shrinks; a sentence of pbp's not in it fails the test.
STILL_ENGLISH = (
    # contests: a forfeit's reason and a boost's name as stored, a cost's ask, refusals
    "advantage failed)", "Boost", "gains a boost", "succeeds at a minor cost", "side has rolled", "no twist is owed",
    "the next exchange, or help", "(the threat's attack in",
    # scenes: a consequence that may begin its recovery
    "may begin recovery",
    # a roll's summary is kept in the play state as it was written, in English
    "'s attack on ", "'s defence with ",
    # advancement: what a change does, kept in the request as written, and the GM's requests
    "switch ranks", "do not fit the milestone", "changes this milestone allows", "approve or deny advancement",
    # errors: the refusals' own words
    "expected the name", "the name of who you attack", "tasks of the challenge", "one of Ethan",
    "a situation aspect added", "/avançar skills.",
)


def english_in(text: str, allowed: set[str]) -> list[str]:
    """The lines of ``text`` with an English word (:data:`ENGLISH_WORDS`) in what pbp wrote
    (``allowed``: the players' and the sheets' words, taken out first)."""
    words = {w.casefold() for w in ENGLISH_WORDS}
    found = []
    for line in text.splitlines():
        if line.startswith(("=== ", "--- to:")) or any(still in line for still in STILL_ENGLISH):
            continue
        said = line
        for phrase in sorted(allowed, key=len, reverse=True):
            said = said.replace(phrase, " ")
        hits = [w for w in _WORD.findall(said) if w.casefold().strip("'’") in words
                or w.casefold().removesuffix("'s") in words]
        if hits:
            found.append(f"{hits}: {line.strip()}")
    return found


def _sheet_words() -> set[str]:
    """The sample sheets' own English: names, aspects, stunts and their circumstances."""
    found: set[str] = set()

    def walk(value):
        if isinstance(value, str):
            found.add(value)
        elif isinstance(value, dict):
            for key, v in value.items():
                if key not in ("player", "kind", "skill", "action"):
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in SAMPLE.glob("*.toml"):
        walk(tomllib.loads(path.read_text(encoding="utf-8")))
    return {w for w in found if len(w) > 2}


def _players_words() -> set[str]:
    script = golden.GOLDEN / CASE / "mails.txt"
    allowed = set(re.findall(r'"([^"\n]+)"', script.read_text(encoding="utf-8")))
    for entry in golden.read_script(script):
        allowed.update(line.strip() for line in entry.body.splitlines() if line.strip())
    # the golden scripts' default subject (tests/play/golden.py), and the game's name
    return allowed | {"The conflict", "(Fate:", '"on fail cost"'}


def test_the_word_list_finds_english_and_not_portuguese():
    """The heuristic can fail: it finds pbp's English sentences, and passes Portuguese ones."""
    assert english_in("┃   Compel #1: The GM compels Ruth's aspect (event):", set())
    assert english_in("If nobody answers by Wed 2 Dec 09:00 UTC, the compel is accepted.", set())
    assert not english_in("┃   Forçar #1: o MJ força o aspecto de Ruth (evento):", set())
    assert not english_in("Nada do seu post foi aplicado, porque a linha 2 não pôde ser lida:", set())
    assert english_in("┃   Ruth did not answer by Tue 1 Dec 18:00 UTC: the cheapest absorption applies.", set())
    assert not english_in('┃   façanha      Bookworm: +2 em Saber quando você superar (when I have time in a '
                          'library)', {"when I have time in a library", "Bookworm"})


def test_a_whole_campaign_in_portuguese(mesa, config, update):
    table, transcript = golden.check(CASE, config, update)
    assert len(table.steps) >= 50
    left = english_in(transcript, _players_words() | _sheet_words())
    assert left == [], f"{len(left)} line(s) of English in a Portuguese campaign:\n  " + "\n  ".join(left)


def test_a_deadline_reads_in_portuguese_in_the_readers_zone():
    """A date pbp wrote in Portuguese (pbp.i18n.When) is read like an English one: in the
    reader's zone, with how far off it is in Portuguese."""
    from datetime import datetime

    from pbp.i18n import language
    from pbp.play.dates import for_reader
    from pbp.play.people import zone

    pt = language("pt-BR")
    now = datetime(2026, 11, 29, 12, 0)
    text = "Se não responder até " + pt.when(datetime(2026, 12, 1, 18, 50)) + ", Ruth se defende."
    assert for_reader(text, now, None, pt) == "Se não responder até ter. 1 dez. 18:50 UTC (em 2 dias), Ruth se defende."
    assert for_reader(text, now, zone("America/Sao_Paulo"), pt) == \
        "Se não responder até ter. 1 dez. 15:50 -03 (em 2 dias), Ruth se defende."
    assert for_reader("até " + pt.when(datetime(2026, 11, 29, 12, 40)), now, None, pt) == \
        "até dom. 29 nov. 12:40 UTC (em 40 minutos)"
    assert for_reader("até " + pt.when(datetime(2026, 11, 29, 13, 0)), now, None, pt).endswith("(em uma hora)")
    assert for_reader("até " + pt.when(datetime(2026, 11, 29, 11, 0)), now, None, pt) == "até dom. 29 nov. 11:00 UTC"


def test_a_digest_in_portuguese(mt_pt):
    """A member of a Portuguese table who reads it in a daily digest gets it in Portuguese:
    its heading, dates, the table's state, what they owe, the way back, the subject."""
    from datetime import datetime

    mt_pt.post("Ethan", "/ajustes mail=digest digest_at=7", at=datetime(2026, 11, 29, 18, 0))
    mt_pt.post("GM", '/cena iniciar "O Cais"\nO cais cheira a peixe.', subject="O Cais", at=datetime(2026, 11, 30, 12, 0))
    mt_pt.post("GM", "/conflito iniciar Ruth, Ethan contra Ghoul primeiro Ethan", at=datetime(2026, 11, 30, 12, 10))
    step = mt_pt.tick(datetime(2026, 12, 1, 7, 0))
    (digest,) = [r for r in step.replies if "resumo" in r.subject]
    assert digest.subject.endswith("Seu resumo diário: 1 e-mail da mesa")
    assert digest.text.startswith("Chicago Nights: 1 e-mail da mesa desde o seu último resumo, em ordem.")
    assert "--- O Cais · seg. 30 nov. 12:00 UTC ---" in digest.text
    assert "A mesa agora:" in digest.text and "O que você deve:\n  Ethan: é a sua vez" in digest.text
    assert digest.text.rstrip().endswith("/ajustes mail=every traz de volta cada e-mail.")
    assert english_in(digest.text, {"Chicago Nights", "O cais cheira a peixe."} | _sheet_words()) == []
