"""The port of Discourse's reply trimmer (tests/forum/reply_trimmer.py) against the
trimmer's own 64 cases (tests/data/reply-trimmer: emails/ in, trimmed/ out), so that the
check it makes of pbp's forum answers is Discourse's and not a guess."""
from __future__ import annotations

import pytest

from tests.mail.datasets import case_names, normalise, read_case

from .reply_trimmer import trim


@pytest.mark.parametrize("name", case_names())
def test_the_port_trims_as_discourses_own_tests_expect(name):
    # as the trimmer's own spec compares them: both ends stripped
    assert normalise(trim(read_case(name, "emails")) or "").strip() == normalise(read_case(name, "trimmed")).strip()
