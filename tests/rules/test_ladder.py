"""The adjective ladder (000_7ba3f797fc1d45d3.txt, "The Adjective Ladder": -4 Horrifying
to +8 Legendary)."""
import pytest

from pbp.rules.ladder import LADDER, adjective, describe, parse_rating, signed


def test_the_ladder_runs_horrifying_to_legendary():
    """Thirteen rungs, one adjective each, from -4 to +8."""
    assert sorted(LADDER) == list(range(-4, 9))
    assert LADDER[-4] == "Horrifying" and LADDER[0] == "Mediocre" and LADDER[8] == "Legendary"


@pytest.mark.parametrize("n, text", [(2, "Fair (+2)"), (0, "Mediocre (+0)"), (-1, "Poor (-1)"),
                                     (9, "+9"), (-5, "-5"), (8, "Legendary (+8)")])
def test_describe(n, text):
    """Ratings read "Fair (+2)"; beyond the ladder only the number."""
    assert describe(n, LADDER) == text


def test_adjective_and_signed():
    assert adjective(3, LADDER) == "Good" and adjective(12, LADDER) is None
    assert (signed(2), signed(-1), signed(0)) == ("+2", "-1", "+0")


@pytest.mark.parametrize("text, n", [("fair", 2), ("Fair", 2), ("FAIR", 2), ("+2", 2), ("2", 2),
                                     ("-1", -1), ("Fair (+2)", 2), (" Mediocre (0) ", 0),
                                     ("horrifying", -4), ("+12", 12)])
def test_parse_rating_accepts_words_and_numbers(text, n):
    """Difficulties take a ladder adjective or a number (product.md, command language)."""
    assert parse_rating(text) == n


@pytest.mark.parametrize("text", ["", "Fairish", "Fair (+3)", "two", "+", "2.5", "Fair +2"])
def test_parse_rating_refuses_anything_else(text):
    with pytest.raises(ValueError):
        parse_rating(text)


def test_describe_and_parse_round_trip():
    for n in range(-6, 11):
        assert parse_rating(describe(n, LADDER)) == n
