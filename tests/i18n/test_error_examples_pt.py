"""Every error a Portuguese campaign answers gives an example in Portuguese that parses there,
and the examples apply back (issue 29).

The Portuguese examples of every command (``Spec.examples``) are mutated as
tests/test_error_examples.py mutates the English ones (a word dropped, doubled, swapped,
replaced, the line cut short); each mutant the parser refuses must come back with what was
expected and an example that parses in the Portuguese campaign's words. The mutants the
parser reads go through the whole pipeline in a Portuguese campaign with a scene and a
conflict, so the play handlers' refusals are read too: their examples must parse, and each
example, posted as it is, must itself be read (not refused as a syntax error). The rows'
examples for a player apply on the sample table in Portuguese.
"""
from __future__ import annotations

import random

from pbp.errors import CommandError
from pbp.parser import SPECS, parse_command
from pbp.rules.dice import RandomDice
from pbp.rules.systems import FATE_CONDENSED
from pbp.rules.systems.speaking import speaking
from tests.helpers import eml, make_ctx
from tests.test_error_examples import example_problems, mutants

WORDS = speaking(FATE_CONDENSED, "pt-BR").words
PT_EXAMPLES = [spec.examples["pt-BR"] for spec in SPECS]
PT_JUNK = ["Ghoul", "Luta", "contra", "em", "com", "#7", "+2", "99", "x2", "grátis", "para", '""', "Razoavl", "me"]


def _problems(error) -> list[str]:
    return example_problems(error, words=WORDS)


def test_every_parser_error_in_portuguese_has_an_example_that_parses():
    rng = random.Random(29)
    errors, bad, portuguese = 0, [], 0
    for line in PT_EXAMPLES:
        for bad_line in mutants(line, rng) + [line.replace(w, rng.choice(PT_JUNK), 1) for w in line.split()[1:2]]:
            try:
                parse_command(bad_line, words=WORDS)
            except CommandError as exc:
                errors += 1
                if exc.example and exc.example.split()[0] in {"/" + w for s in SPECS for w in s.words["pt-BR"]}:
                    portuguese += 1
                if problems := _problems(exc):
                    bad.append((bad_line, problems))
    assert errors > 300
    assert portuguese > errors * 0.9          # the examples are the rows' Portuguese ones
    assert not bad, f"{len(bad)} of {errors}: " + "\n".join(map(repr, bad[:30]))


SETUP = [
    ("gm", '/cena iniciar "Armazém" zonas Doca, Galpão fronteiras Doca-Galpão\n'
           "/colocar Ruth em Doca\n/colocar Ghoul em Doca\n/colocar Charles em Galpão\n"
           '/aspecto adicionar "Sombras Profundas" em Doca grátis 1\n'),
    ("gm", "/conflito iniciar Ruth, Charles, Ghoul primeiro Ruth\n"),
]


def test_every_play_error_in_portuguese_has_an_example_that_parses_and_reads_back(mesa, config):
    from pbp.pipeline import process_message

    n = 0

    def post(sender, body):
        nonlocal n
        n += 1
        ctx = make_ctx(config)
        ctx.dice = RandomDice(random.Random(n))
        return process_message(eml(body, sender=f"{sender}@pbp.localhost", message_id=f"pt-{n}@t"), ctx)

    for sender, body in SETUP:
        assert post(sender, body).status == "applied"
    rng = random.Random(30)
    lines = list(PT_EXAMPLES)
    for line in PT_EXAMPLES:
        for bad_line in mutants(line, rng, 4):
            try:
                parse_command(bad_line, words=WORDS)
            except CommandError:
                continue
            lines.append(bad_line)
    errors, bad, examples = 0, [], set()
    for line in lines[:160]:
        for sender in ("ruth", "gm"):
            out = post(sender, line + "\n")
            assert out.status in ("applied", "rejected"), (line, out.status, out.reason)
            for error in out.errors:
                assert error["type"] != "InternalError", (line, error)
                errors += 1
                if problems := _problems(error):
                    bad.append((sender, line, error["message"], problems))
                examples.update((sender, x.strip()) for x in (error.get("example") or "").splitlines()
                                if x.strip().startswith("/"))
    assert errors > 40
    assert not bad, f"{len(bad)} of {errors} errors: " + "\n".join(map(repr, bad[:30]))
    # each example, posted back as it is by whom it was given to, is read (no syntax error)
    unread = []
    for sender, example in sorted(examples):
        out = post(sender, example + "\n")
        unread += [(sender, example, e["message"]) for e in out.errors if e["type"] == "CommandSyntaxError"]
    assert not unread, unread[:20]


def test_the_rows_examples_apply_in_a_portuguese_campaign(mesa, mt_pt):
    from pbp.parser.spec import BY_WORD

    assert mt_pt.post("GM", '/cena iniciar "A Doca"\n').status == "applied"
    for word in ("roll", "overcome", "advantage", "create", "sheet", "table", "fp", "detail", "recap"):
        example = BY_WORD[word].examples["pt-BR"]
        rolls = word in ("roll", "overcome", "advantage", "create")
        step = mt_pt.post("Ethan", example + "\n", dice="0000" if rolls else "")
        assert step.status == "applied", (example, step.text[:400])
