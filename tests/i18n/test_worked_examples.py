"""The Portuguese text's worked examples, played in Portuguese (issue 29).

003_eba7e658178fc706.txt (Fate Condensed in Portuguese; excerpts with its licence in
tests/data/rules/): "Charles obtém [0] [0] [+] [+] nos dados, mais sua Investigação Regular
(+1) resulta em um esforço Bom (+3)" against "a dificuldade Razoável (+2)"; "Ethan tem Ofício
Regular (+1), mas rola [0] [+] [+] [+], resultando um esforço Ótimo (+4)" against Bom (+3), and
the shoggoth is Em Chamas with one free invoke for Ethan; "Ela tem Luta Ótima (+4), mas rola
[-] [-] [0] [0], conseguindo um esforço Razoável (+2)", the corpse rolls "[-] [0] [0] [+]" on
its "Atletismo Medíocre (+0)", and Ruth's attack has "duas tensões". The golden transcript is
tests/golden/fate_condensado_exemplos/expected.txt; the test also reads the excerpts, so the
words and numbers the replies must show are the text's own.
"""
from __future__ import annotations

import re
from pathlib import Path

from tests.play import golden

TEXT = (Path(__file__).resolve().parent.parent / "data" / "rules" / "fate-condensado-pt.txt").read_text(encoding="utf-8")


def _rated(phrase: str) -> str:
    """"Investigação Regular (+1)" as a result's first line writes a skill: "Investigação, Regular (+1)"."""
    skill, rest = phrase.split(" ", 1)
    return f"{skill}, {rest}"


def test_the_worked_examples_in_portuguese(mesa, config, update):
    table, transcript = golden.check("fate_condensado_exemplos", config, update)
    assert [s.status for s in table.steps] == ["applied"] * 4
    charles, ethan, ruth = (table.steps[n].text for n in (1, 2, 3))

    # the text's own words, read from it
    for phrase in ("Investigação Regular (+1)", "esforço Bom (+3)", "dificuldade Razoável (+2)",
                   "Ofício Regular (+1)", "esforço Ótimo (+4)", "Luta Ótima (+4)", "esforço Razoável (+2)",
                   "Atletismo Medíocre (+0)", "[0] [0] [+] [+]", "[0] [+] [+] [+]", "[-] [-] [0] [0]",
                   "[-] [0] [0] [+]", "Em Chamas", "duas tensões"):
        assert phrase in TEXT

    assert "Charles supera com Investigação, Regular (+1)" in charles
    assert re.search(r"dados\s+\[0\] \[0\] \[\+\] \[\+\]\s+\+2", charles)
    assert re.search(r"esforço\s+\+3 Bom", charles) and re.search(r"contra\s+Razoável \(\+2\)", charles)
    assert "=> sucesso, 1 tensão" in charles and "Charles supera o obstáculo" in charles

    assert "Ethan cria uma vantagem com Ofício, Regular (+1)" in ethan
    assert re.search(r"esforço\s+\+4 Ótimo", ethan) and re.search(r"contra\s+Bom \(\+3\)", ethan)
    assert "Em Chamas agora está em jogo em Shoggoth" in ethan
    assert "Ethan ganha 1 invocação gratuita em Em Chamas" in ethan

    assert "Ruth ataca Cadáver com " + _rated("Luta Ótima (+4)") in ruth
    assert re.search(r"esforço\s+\+2 Razoável", ruth)
    assert "Cadáver: Atletismo Medíocre (+0)" in ruth
    assert "=> sucesso, 2 tensões" in ruth       # "seu ataque teve duas tensões de sucesso"
    assert "Ruth acerta Cadáver com 2 tensões" in ruth
    for english in ("overcomes", "attacks", "effort", "success", "shift", "Changed", "Sheets"):
        assert english not in transcript, english


def test_accents_and_case_are_optional_when_typed(mesa, mt_pt):
    step = mt_pt.post("Charles", "/SUPERAR investigacao contra razoavel\n", dice="00++")
    assert step.status == "applied"
    assert "Charles supera com Investigação, Regular (+1)" in step.text
    step = mt_pt.post("Ruth", "/superar Luta contra Otima\n", dice="0000")
    assert "contra  Ótimo (+4)" in step.text or re.search(r"contra\s+Ótimo \(\+4\)", step.text)


def test_english_commands_keep_working_in_a_portuguese_campaign(mesa, mt_pt):
    step = mt_pt.post("Charles", "/overcome Investigate vs Fair\n", dice="00++")
    assert step.status == "applied"
    assert "Charles supera com Investigação, Regular (+1)" in step.text
