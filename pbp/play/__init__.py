"""Playing by post: how each command changes a campaign (see :mod:`pbp.play.core`).

Importing this package registers every handler module. The order in which steps run
around an action, at a scene's or a conflict's end, in the status lines and at deadlines
is :data:`pbp.play.core.SEQUENCE`, not the order of these imports; a step it names that no
module gives is an error here, and so is a request kind a reply can name that no module
registers (:func:`pbp.play.compels.request_kind`).
"""
from pbp.play import basic, conflict, exchanges, scenes  # noqa: F401  (registers handlers)
from pbp.play import economy, invoking, compels  # noqa: F401,E402
from pbp.play import teamwork, challenges, contests, sheetfix, advance  # noqa: F401,E402
from pbp.play import costs, overview, spin, concession, bonuses, held  # noqa: F401,E402
from pbp.play import recaps, yours, away, pace  # noqa: F401,E402
from pbp.play.core import (  # noqa: F401
    GM, Ask, Author, NoteResult, Post, Tell, apply_command, apply_post, check_sequence, deadline_job, handles,
    run_deadline_jobs, status_line, status_lines,
)

check_sequence()
compels.check_request_kinds()
