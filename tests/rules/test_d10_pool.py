"""The d10 dice-pool hack through the seam: its dice and its outcome tiers, row by row with
fixed d10s (004_c619695e1641b466.txt, "The Core Mechanic" and "Interpreting Results"), and
the dice of both systems against their exact distributions."""
from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from pbp.commands import Invoke, Opposition
from pbp.rules.actions import resolve
from pbp.rules.dice import FixedDice, RandomDice
from pbp.rules.results import Outcome
from pbp.rules.state import Aspect, Character, Table
from pbp.rules.systems import FATE_CONDENSED, SYSTEMS
from pbp.rules.systems.d10_pool import D10_POOL, hits

from .builders import overcome


def table() -> Table:
    """Ruth with Fight 3: a pool of three d10s."""
    ruth = Character("Ruth", skills={"Fight": 3}, fate_points=3)
    t = Table(system=D10_POOL.name, characters={"Ruth": ruth})
    t.aspects.append(Aspect("Ex-Cop", kind="high_concept", owner="Ruth"))
    return t


def roll(dice: str, vs: int, **kw):
    return resolve(overcome("Fight", opposition=Opposition(rating=vs), **kw), table(), FixedDice(dice), "Ruth", D10_POOL)


@pytest.mark.parametrize("face, counts", [(1, -1), (2, 0), (5, 0), (7, 0), (8, 1), (9, 1), (10, 2)])
def test_each_die_counts(face, counts):
    """"Each die that comes up 8 or higher counts as a HIT. Each result of 10 counts as 2 hits;
    each result of 1 subtracts a hit.\""""
    assert hits(face) == counts


def test_the_pool_is_the_rating_and_the_rating_is_not_added():
    """"roll that many TEN-SIDED DICE": Fight 3 throws three d10s; the result is the hits."""
    result = roll("8 10 1", 2)
    assert result.effort.dice.faces == (8, 10, 1) and result.effort.dice.sides == "10"
    assert result.effort.total == 2            # 1 + 2 - 1, no +3 for the rating
    assert result.to_dict()["dice"] == [8, 10, 1]


@pytest.mark.parametrize("dice, vs, outcome, shifts, catastrophic", [
    ("1 1 5", 2, Outcome.FAIL, -4, True),      # NEGATIVE HITS: Catastrophic failure
    ("1 5 5", 1, Outcome.FAIL, -2, True),
    ("8 5 5", 2, Outcome.FAIL, -1, False),     # HITS BELOW OPPOSITION: Failure
    ("5 5 5", 1, Outcome.FAIL, -1, False),     # zero hits is a failure, not a catastrophe
    ("8 9 3", 2, Outcome.TIE, 0, False),       # TIE OPPOSITION: Tie
    ("10 9 5", 2, Outcome.SUCCESS, 1, False),  # 1 - 2 HITS ABOVE OPPOSITION: Success
    ("10 10 5", 2, Outcome.SUCCESS, 2, False),
    ("10 10 9", 2, Outcome.STYLE, 3, False),   # 3+ HITS ABOVE OPPOSITION: Success with style
    ("10 10 10", 1, Outcome.STYLE, 5, False),
])
def test_every_row_of_interpreting_results(dice, vs, outcome, shifts, catastrophic):
    result = roll(dice, vs)
    assert (result.outcome, result.shifts) == (outcome, shifts)
    assert any(e.kind == "catastrophic" for e in result.effects) is catastrophic
    assert D10_POOL.tiers.tier_name(result.effort.total, result.shifts) == \
        ("catastrophic" if catastrophic else outcome.value)


def test_an_invoke_is_one_hit():
    """Invoking gives +1 hit (or a reroll), not Fate's +2: a tie becomes a success."""
    result = roll("8 9 3", 2, invokes=(Invoke("Ex-Cop"),))
    assert (result.effort.total, result.outcome) == (3, Outcome.SUCCESS)


def test_an_invoke_can_lift_a_roll_out_of_catastrophe():
    """Catastrophe is read on the tallied result ("Tally your total RESULT, including ... any
    aspects you paid for"): -1 hit and an invoke is 0 hits, a plain failure."""
    result = roll("1 5 5", 1, invokes=(Invoke("Ex-Cop"),))
    assert result.effort.total == 0 and result.outcome is Outcome.FAIL
    assert not any(e.kind == "catastrophic" for e in result.effects)


def test_a_reroll_throws_the_whole_pool_again():
    from pbp.commands import InvokeMode
    result = roll("1 1 5,10 9 5", 2, invokes=(Invoke("Ex-Cop", mode=InvokeMode.REROLL),))
    assert [r.faces for r in result.effort.rolls] == [(1, 1, 5), (10, 9, 5)]
    assert result.outcome is Outcome.SUCCESS


def test_registered_by_name_and_aliases():
    """With approaches, strain and the mech played, a campaign may name the hack
    (``--system d10-pool``, or ``d10``, ``d10 pool``, ``dice-pool``)."""
    from pbp.rules.systems import get_system
    assert SYSTEMS["d10-pool"] is D10_POOL
    assert all(get_system(n) is D10_POOL for n in ("d10-pool", "D10", "d10 pool", "dice-pool"))


# -- the dice against their exact distributions ---------------------------------------------

# chi-square critical values at p = 0.001, by degrees of freedom
_CRITICAL = {1: 10.83, 2: 13.82, 3: 16.27, 4: 18.47, 5: 20.52, 6: 22.46, 7: 24.32, 8: 26.12, 9: 27.88,
             10: 29.59, 11: 31.26, 12: 32.91, 13: 34.53, 14: 36.12, 15: 37.70, 16: 39.25, 17: 40.79,
             18: 42.31, 19: 43.82, 20: 45.31, 21: 46.80, 22: 48.27, 23: 49.73, 24: 51.18}


def _convolve(die: dict[int, Fraction], n: int) -> dict[int, Fraction]:
    out = {0: Fraction(1)}
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for total, p in out.items():
            for value, q in die.items():
                nxt[total + value] = nxt.get(total + value, Fraction(0)) + p * q
        out = nxt
    return out


def _chi_square(exact: dict[int, Fraction], seen: Counter, n: int) -> tuple[float, int]:
    """The statistic over bins of expected count >= 5 (the thin tails pooled into their
    neighbours), and its degrees of freedom."""
    bins: list[tuple[float, int]] = []
    acc_e, acc_o = 0.0, 0
    for value in sorted(exact):
        acc_e += float(exact[value]) * n
        acc_o += seen.get(value, 0)
        if acc_e >= 5:
            bins.append((acc_e, acc_o))
            acc_e, acc_o = 0.0, 0
    if acc_e and bins:
        e, o = bins.pop()
        bins.append((e + acc_e, o + acc_o))
    assert sum(seen.values()) == n and set(seen) <= set(exact)
    return sum((o - e) ** 2 / e for e, o in bins), len(bins) - 1


D10 = {hits(f): Fraction(0) for f in range(1, 11)}
for _f in range(1, 11):
    D10[hits(_f)] += Fraction(1, 10)


@pytest.mark.parametrize("pool", range(1, 9))
def test_d10_hits_match_the_exact_distribution(pool):
    exact = _convolve(D10, pool)
    assert sum(exact.values()) == 1
    dice, n = RandomDice(random.Random(9000 + pool)), 20_000
    seen = Counter(D10_POOL.roll(dice, pool).total for _ in range(n))
    stat, df = _chi_square(exact, seen, n)
    assert stat < _CRITICAL[df], (pool, stat, df)


def test_four_fate_dice_match_the_exact_distribution():
    """4dF: each die -1/0/+1 with 1/3; the sum runs -4..+4 (1, 4, 10, 16, 19, 16, 10, 4, 1 of 81)."""
    exact = _convolve({-1: Fraction(1, 3), 0: Fraction(1, 3), 1: Fraction(1, 3)}, 4)
    assert [exact[v] * 81 for v in range(-4, 5)] == [1, 4, 10, 16, 19, 16, 10, 4, 1]
    dice, n = RandomDice(random.Random(4)), 20_000
    seen = Counter(FATE_CONDENSED.roll(dice, 3).total for _ in range(n))
    stat, df = _chi_square(exact, seen, n)
    assert stat < _CRITICAL[df], (stat, df)


def test_the_chi_square_check_can_fail():
    """A die that counted 10 as one hit would be caught."""
    wrong = {**D10}
    wrong[1] = wrong.get(1, 0) + wrong.pop(2)
    dice, n = RandomDice(random.Random(7)), 20_000
    seen = Counter(D10_POOL.roll(dice, 4).total for _ in range(n))
    exact = _convolve(wrong, 4)
    seen_in_support = Counter({k: v for k, v in seen.items() if k in exact})
    stat, df = _chi_square(exact, seen_in_support, sum(seen_in_support.values()))
    assert stat > _CRITICAL[df]
