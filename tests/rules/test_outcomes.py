"""The four outcomes ("Resultados", 003_eba7e658178fc706.txt): below the opposition fails,
equal ties, one or two shifts succeed, three or more succeed with style."""
from hypothesis import given, strategies as st

from pbp.rules.outcomes import outcome_for, rank
from pbp.rules.results import Outcome


def test_tiers_at_their_edges():
    assert [outcome_for(s) for s in (-3, -1, 0, 1, 2, 3, 7)] == [
        Outcome.FAIL, Outcome.FAIL, Outcome.TIE, Outcome.SUCCESS, Outcome.SUCCESS, Outcome.STYLE, Outcome.STYLE]


@given(st.integers(-50, 50), st.integers(-50, 50))
def test_outcome_is_monotone_in_shifts(a, b):
    """More shifts never make a worse outcome."""
    if a <= b:
        assert rank(outcome_for(a)) <= rank(outcome_for(b))
