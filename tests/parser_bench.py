"""Parse-rate benchmark for the command parser (not collected by pytest).

Run: ``.venv/bin/python tests/parser_bench.py``: lines per second on one core for a few
typical lines such as ``/overcome Investigate vs Fair`` (no target: parsing is about 1% of
a post, see ``benchmarks/throughput.py``).
"""
from __future__ import annotations

import timeit

from pbp.parser import parse_command

LINES = [
    "/overcome Investigate vs Fair",
    "/roll 4dF+2",
    "/attack Ghoul with Fight",
    '/attack "Masked Acolyte" with Shoot +invoke Distracted free',
    '/advantage Crafts "On Fire" on Shoggoth vs Good on tie boost',
]


def main() -> None:
    parse_command(LINES[0])  # build the parser outside the timing
    for line in LINES:
        number, best = 50_000, None
        for _ in range(3):
            seconds = timeit.timeit(lambda: parse_command(line), number=number)
            best = seconds if best is None else min(best, seconds)
        print(f"{number / best:>10,.0f} lines/s  {best / number * 1e6:6.1f} µs  {line}")


if __name__ == "__main__":
    main()
