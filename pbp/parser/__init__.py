"""Read command lines into the dataclasses of :mod:`pbp.commands`.

The flow: ``grammar/commands.lark`` (the language, :mod:`.grammar` loads it) -> the builder
(:mod:`.build`: one method per grammar rule, run inline by Lark's LALR parser, so no tree
is built) -> the command dataclass, driven by :mod:`.drive`. Every failure becomes one
:class:`~pbp.errors.CommandSyntaxError` (:mod:`.explain`), carrying the line, the 1-based
column within the command line, the offending text, what was expected in words and a
working example of that command, from the command's row in :mod:`.spec`.

Public API:

* :func:`parse_command` — one command line (starting with ``/``) -> a ``Command``.
* :func:`find_commands` — the command lines of a post, with their line numbers (:mod:`.lines`).
* :func:`find_near_commands` — lines that look like commands but are not read as ones.
* :func:`parse_post` — every command of a post; raises the first error.
* :func:`parse_lines` — every command and every error of lines already found (the pipeline's).
* :func:`parse_post_all` — every command and every error of a post.
* :func:`example_for` — the documented example of the command a line is.
"""
from pbp.parser.build import LADDER
from pbp.parser.drive import parse_command, parse_lines, parse_post, parse_post_all
from pbp.parser.explain import example_for
from pbp.parser.grammar import get_parser
from pbp.parser.lines import find_commands, find_near_commands
from pbp.parser.spec import COMMAND_NAMES, EXAMPLES, SPECS

__all__ = [
    "COMMAND_NAMES",
    "EXAMPLES",
    "LADDER",
    "SPECS",
    "example_for",
    "find_commands",
    "find_near_commands",
    "get_parser",
    "parse_command",
    "parse_post",
    "parse_lines",
    "parse_post_all",
]
