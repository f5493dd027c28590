"""Driving the parse: the command lines of a post, and one line into its command.

Every failure leaves :func:`parse_command` as one CommandSyntaxError: a character no
command may hold is refused before the grammar sees it (:func:`~pbp.parser.explain.unsafe_error`),
the builder's refusals and Lark's errors are explained by :mod:`pbp.parser.explain`.
"""
from __future__ import annotations

import unicodedata

from lark.exceptions import LarkError

from pbp.commands import Command
from pbp.errors import CommandError
from pbp.i18n import DEFAULT_LANGUAGE
from pbp.parser.build import WORDS, Invalid
from pbp.parser.explain import invalid_error, syntax_error, unsafe_error
from pbp.parser.grammar import get_parser
from pbp.parser.lines import find_commands
from pbp.rules.systems import Words
from pbp.textsafety import bad_char


def parse_command(text: str, line: int = 1, words: Words | None = None) -> Command:
    """Parse one command line (``/overcome Investigate vs Fair``) into its dataclass.

    ``line`` is the line of the command in the post; surrounding whitespace is ignored and
    columns in errors count from the first character of the stripped line. ``words`` are the
    campaign's system's (``System.words``): a track or severity of another system is refused
    with this system's list, and errors list its words; None accepts every system's.

    :raises CommandSyntaxError: for anything the grammar cannot read.
    """
    source = text.strip()
    readable = source if source.isascii() else unicodedata.normalize("NFC", source)
    if not (readable.isascii() and readable.isprintable()):
        bad = bad_char(readable, allow_tab=True)
        if bad is not None:
            raise unsafe_error(bad, readable, line)
    reset = WORDS.set(words)
    try:
        cls, fields = get_parser(words.language if words is not None else DEFAULT_LANGUAGE).parse(readable)
    except Invalid as exc:
        raise invalid_error(exc, readable, source, line) from None
    except LarkError as exc:
        raise syntax_error(exc, readable, source, line) from None
    finally:
        WORDS.reset(reset)
    return cls(line=line, source=source, **fields)


def parse_post(text: str) -> list[Command]:
    """Every command of a post, in order. Raises the first error (by line)."""
    return [parse_command(source, number) for number, source in find_commands(text)]


def parse_lines(lines, words: Words | None = None) -> tuple[list[Command], list[CommandError]]:
    """Every command of ``lines`` (``(number, text)`` pairs, as :func:`find_commands` gives
    them) that parses, and every error placed at its line, so a reply can list all the
    problems. ``words``: the campaign's system's, as for :func:`parse_command`."""
    commands: list[Command] = []
    errors: list[CommandError] = []
    for number, source in lines:
        try:
            commands.append(parse_command(source, number, words))
        except CommandError as exc:
            errors.append(exc.at(number, source))
    return commands, errors


def parse_post_all(text: str, words: Words | None = None) -> tuple[list[Command], list[CommandError]]:
    """Every command that parses and every error, so a reply can list all the problems."""
    return parse_lines(find_commands(text), words)

