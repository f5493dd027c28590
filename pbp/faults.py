"""Named crash points for the exactly-once tests.

``reached("after_commit")`` ends the process on the spot (``os._exit``: no cleanup, no
flush, like a power cut or SIGKILL) when the environment variable ``PBP_FAULT`` names that
point. Unset, it is one dictionary lookup. The points, in the order a post meets them:
``after_fetch``, ``mid_transaction``, ``after_commit``, ``mid_send``, ``before_mark`` (the
server accepted the reply and pbp noted it, its row not yet marked sent), ``after_send``.
"""
from __future__ import annotations

import os

EXIT_CODE = 70
POINTS = ("after_fetch", "mid_transaction", "after_commit", "mid_send", "before_mark", "after_send")


def reached(point: str) -> None:
    if os.environ.get("PBP_FAULT") == point:
        os._exit(EXIT_CODE)
