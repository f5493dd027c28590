"""The derivation's dice are fair (issue 25): chi-square over 10^6 derived Fate dice and 10^6
derived d10s, each against the uniform distribution; p > 0.001. The statistic and its p value
are computed here with the standard library (the regularised upper incomplete gamma function,
Numerical Recipes' series and continued fraction), and checked against known quantiles."""
from __future__ import annotations

import math
import secrets
from collections import Counter

import pytest

from pbp import verify_dice


def _gamma_q(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a), the chi-square survival function's core."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:           # series for P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return 1.0 - total * math.exp(-x + a * math.log(x) - gln)
    b = x + 1 - a            # continued fraction for Q (Lentz)
    c = 1 / 1e-300
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1e-300 if abs(d) < 1e-300 else d
        c = b + an / c
        c = 1e-300 if abs(c) < 1e-300 else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def chi_square_p(counts: Counter, faces: list[int]) -> tuple[float, float]:
    n = sum(counts.values())
    expected = n / len(faces)
    stat = sum((counts[f] - expected) ** 2 / expected for f in faces)
    return stat, _gamma_q((len(faces) - 1) / 2, stat / 2)


def test_the_p_value_function_is_right():
    # chi-square quantiles: 2 df, 13.816 -> p 0.001; 9 df, 16.919 -> p 0.05; 9 df, 27.877 -> p 0.001
    assert _gamma_q(1, 13.816 / 2) == pytest.approx(0.001, rel=1e-3)
    assert _gamma_q(4.5, 16.919 / 2) == pytest.approx(0.05, rel=1e-3)
    assert _gamma_q(4.5, 27.877 / 2) == pytest.approx(0.001, rel=1e-3)
    assert _gamma_q(4.5, 4.0 / 2) == pytest.approx(0.9114, abs=1e-3)   # 9 df, 4.0 -> p 0.9114 (series branch)


def test_a_biased_die_fails_the_test():
    """The test can fail: a modulo-biased d10 (one byte mod 10) over 10^6 dice."""
    data = secrets.token_bytes(1_000_000)
    biased = Counter(b % 10 + 1 for b in data)
    assert chi_square_p(biased, list(range(1, 11)))[1] < 0.001


@pytest.mark.slow
def test_a_million_fate_dice_and_a_million_d10s_are_uniform():
    seed = secrets.token_bytes(32)
    fate, d10 = Counter(), Counter()
    # 250,000 posts of 4dF and 100,000 posts of 10d10: each a throw of its own
    for i in range(250_000):
        fate.update(verify_dice.fate_faces(seed, f"post-{i}@pbp.test", "0" * 64, 0, 4))
    for i in range(100_000):
        d10.update(verify_dice.die_faces(seed, f"post-{i}@pbp.test", "1" * 64, i % 3, 10, 10))
    assert sum(fate.values()) == 1_000_000 and sum(d10.values()) == 1_000_000
    stat_f, p_f = chi_square_p(fate, [-1, 0, 1])
    stat_d, p_d = chi_square_p(d10, list(range(1, 11)))
    assert p_f > 0.001, (stat_f, fate)
    assert p_d > 0.001, (stat_d, d10)
