"""Playing by post: how each command changes a campaign (see :mod:`pbp.play.core`).

Importing this package registers every handler module.
"""
from pbp.play import basic, conflict, scenes  # noqa: F401  (registers handlers)
# invoking wraps the /done of the modules above it, and economy hooks into scenes: keep them last
from pbp.play import invoking, economy  # noqa: F401,E402
from pbp.play import teamwork  # noqa: F401,E402  (after invoking: it re-runs open rolls)
from pbp.play import challenges  # noqa: F401,E402  (after teamwork: a task's helpers are already filled in)
from pbp.play import advance, contests, sheetfix  # noqa: F401,E402
# costs the GM names by reply (the d10 hack) are requests of economy's kind, withdrawn on a re-run
from pbp.play import costs  # noqa: F401,E402
# overview adds its line under a roll after invoking has kept the roll open
from pbp.play import overview  # noqa: F401,E402
# early Fate's spin: held after a roll (once the ledger numbers it), used before one
from pbp.play import spin  # noqa: F401,E402
# concessions the winner may refuse, taken-out outcomes a player may refuse (early Fate)
from pbp.play import concession  # noqa: F401,E402
from pbp.play.core import (  # noqa: F401
    GM, Ask, Author, NoteResult, Post, Tell, apply_command, apply_post, deadline_job, handles, run_deadline_jobs,
    status_line, status_lines,
)
