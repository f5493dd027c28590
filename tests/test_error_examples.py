"""Every error reply says what was expected and gives an example that itself parses.

Errors are gathered from many bad commands: each working example of docs/commands.md,
mutated (a word dropped, doubled, swapped, replaced by a wrong one, the line cut short),
first through the parser, then, for the mutants the parser reads, through the whole
pipeline as a player and as the GM in a campaign with a scene and a conflict, so the
play handlers' refusals are read too. For each error: ``expected`` and ``example`` are not
empty, and every command line in the example parses with ``parse_command``.
"""
from __future__ import annotations

import random
import shlex

import pytest

from pbp.errors import CommandError
from pbp.parser import parse_command
from pbp.rules.dice import RandomDice
from tests.helpers import eml, make_ctx
from tests.test_parser import DOC_COMMANDS

JUNK = ["Ghoul", "Fight", "vs", "on", "with", "#7", "+2", "99", "x2", "free", "to", "\"\"", "Fiar",
        "me", "GM", "'", "-", ",", "stress", "mild", "first", "zones", "hidden", "if", "Nobody", "#999"]


def _words(line: str) -> list[str]:
    try:
        return shlex.split(line, posix=False)
    except ValueError:
        return line.split()


def mutants(line: str, rng: random.Random, n: int = 20) -> list[str]:
    words = _words(line)
    out = set()
    for _ in range(n * 3):
        w = list(words)
        i = rng.randrange(len(w))
        how = rng.randrange(5)
        if how == 0 and len(w) > 1:
            del w[i if i else 1]
        elif how == 1:
            w.insert(i + 1, w[i])
        elif how == 2 and len(w) > 2:
            j = rng.randrange(1, len(w) - 1)
            w[j], w[j + 1] = w[j + 1], w[j]
        elif how == 3:
            w[max(i, 1) if len(w) > 1 else 0] = rng.choice(JUNK)
        else:
            w = w[: max(1, i)]
        text = " ".join(w)
        if text != line and text.startswith("/"):
            out.add(text)
        if len(out) >= n:
            break
    return sorted(out)


def example_problems(error: dict | CommandError, words=None) -> list[str]:
    """What is wrong with an error's expected and example (empty: nothing); ``words``: the
    campaign's system's words the example must parse with (another language's, say)."""
    get = error.get if isinstance(error, dict) else (lambda k: getattr(error, k))
    problems = []
    if not (get("expected") or "").strip():
        problems.append("no expected")
    example = (get("example") or "").strip()
    if not example:
        problems.append("no example")
    for line in example.splitlines():
        if line.strip().startswith("/"):
            try:
                parse_command(line.strip(), words=words)
            except CommandError as exc:
                where = f" in {words.language}" if words is not None else ""
                problems.append(f"example {line.strip()!r} does not parse{where}: {exc.message}")
    return problems


def _parser_errors() -> list[tuple[str, CommandError]]:
    rng = random.Random(8)
    found = []
    for line in DOC_COMMANDS:
        for bad in mutants(line, rng):
            try:
                parse_command(bad)
            except CommandError as exc:
                found.append((bad, exc))
    return found


def test_every_parser_error_has_expected_and_an_example_that_parses():
    errors = _parser_errors()
    assert len(errors) > 1500
    bad = [(line, problems) for line, exc in errors if (problems := example_problems(exc))]
    assert not bad, f"{len(bad)} of {len(errors)} errors: " + "\n".join(f"{l!r}: {p}" for l, p in bad[:40])


SETUP = [
    ("gm", '/scene start "Warehouse" zones Dock, Floor borders Dock-Floor\n'
           "/place Ruth in Dock\n/place Ghoul in Dock\n/place Charles in Floor\n"
           '/aspect add "Deep Shadows" on Dock free 1\n'),
    ("gm", "/conflict start Ruth, Charles, Ghoul first Ruth\n"),
]


def _parsed_mutants(limit: int) -> list[str]:
    rng = random.Random(9)
    lines = list(DOC_COMMANDS)
    for line in DOC_COMMANDS:
        for bad in mutants(line, rng, 8):
            try:
                parse_command(bad)
            except CommandError:
                continue
            lines.append(bad)
    rng.shuffle(lines)
    return lines[:limit]


@pytest.mark.slow
@pytest.mark.parametrize("in_conflict", [False, True], ids=["no scene", "in a conflict"])
def test_every_play_error_has_expected_and_an_example_that_parses(chicago, config, in_conflict):
    from pbp.pipeline import process_message

    n = 0

    def post(sender, body):
        nonlocal n
        n += 1
        ctx = make_ctx(config)
        ctx.dice = RandomDice(random.Random(n))
        return process_message(eml(body, sender=f"{sender}@pbp.localhost", message_id=f"ex-{n}@t"), ctx)

    if in_conflict:
        for sender, body in SETUP:
            assert post(sender, body).status == "applied"
    errors, bad = 0, []
    for line in _parsed_mutants(300):
        for sender in ("ruth", "gm"):
            out = post(sender, line + "\n")
            assert out.status in ("applied", "rejected"), (line, out.status, out.reason)
            for error in out.errors:
                assert error["type"] != "InternalError", (line, error)
                errors += 1
                if problems := example_problems(error):
                    bad.append((sender, line, error["message"], problems))
    assert errors > 100
    assert not bad, f"{len(bad)} of {errors} errors: " + "\n".join(map(repr, bad[:40]))


LONG = "Quixotic" * 1250          # a 10,000-character name
LONG_LINES = [f"/sheet {LONG}", f'/sheet "{LONG}"', f"/attack {LONG}", f'/invoke "{LONG}"',
              f"/overcome Athletics vs {LONG}", f'/aspect rename "{LONG}" to "Calm"', f"/roll 4dF+{'1' * 5000}",
              f'/compel Ruth "{LONG}" event "now"', f"/next {LONG}", f'/give "{LONG}" Charles',
              f"/atack {LONG} with Fight", f'/attack Ghoul with Fight +invoke "{LONG}"']


@pytest.mark.parametrize("line", LONG_LINES, ids=[l.split()[0] + str(i) for i, l in enumerate(LONG_LINES)])
def test_a_long_name_is_cut_in_the_reply_source_and_caret_line(chicago, config, line):
    import email
    from email import policy

    from pbp.pipeline import process_message
    from pbp.store import models as m

    out = process_message(eml(line + "\n", sender="ruth@pbp.localhost", message_id="long@t"), make_ctx(config, "0000,0000,0000"))
    assert out.status == "rejected"
    row = m.OutboxMail.get(m.OutboxMail.message_id == out.replies[0]["message_id"])
    msg = email.message_from_string(row.raw, policy=policy.default)
    for part in ("plain", "html"):
        text = msg.get_body((part,)).get_content()
        assert "Quixotic" * 20 not in text and "1" * 200 not in text, part
        assert max(len(x) for x in text.splitlines()) < 600, part
    text = msg.get_body(("plain",)).get_content().splitlines()
    caret = next(i for i, x in enumerate(text) if x.lstrip().startswith("^"))
    shown, pointer = text[caret - 1], text[caret]
    assert pointer.index("^") <= len(shown)            # the caret points into the line shown
    for error in out.errors:
        assert all(len(str(v)) < 1000 for v in error.values()), error
