"""A post in a long conflict costs the same queries as one in a short conflict: the turn
order, reactions and zones are one JSON document, the table is two queries."""
from __future__ import annotations

from tests.helpers import counting_queries


def test_queries_per_post_do_not_grow_with_the_conflict(mt, chicago):
    counts: list[int] = []
    mt.post("GM", "/scene start Alley zones Street, Roof borders Street-Roof\n/place Ruth in Street\n"
                  "/place Ghoul in Street\n/conflict start Ruth, Ghoul first Ruth\n")
    measured = []
    with counting_queries(counts):
        for exchange in range(12):
            counts.append(0)
            step = mt.post("Ruth", "/attack Ghoul with Fight\n/next Ghoul\n", dice="0000,++++")   # a miss
            assert step.status == "applied", step.text
            counts.append(0)
            mt.post("GM", "/as Ghoul attack Ruth with Fight\n/as Ghoul next Ruth\n", dice="0000")
            counts.append(0)
            step = mt.post("Ruth", "/defend Fight\n", dice="0000")                               # no hit
            assert step.status == "applied", step.text
            measured.append(tuple(counts[-3:]))
    assert measured[1] == measured[-1], measured
