"""Playing by post: how each command changes a campaign (see :mod:`pbp.play.core`).

Importing this package registers every handler module.
"""
from pbp.play import basic  # noqa: F401  (registers handlers)
from pbp.play.core import (  # noqa: F401
    GM, Ask, Author, NoteResult, Post, Tell, apply_command, deadline_job, handles, run_deadline_jobs,
    status_line, status_lines,
)
