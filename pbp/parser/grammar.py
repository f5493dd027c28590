"""The grammar and the two Lark objects made from it, each built once per process.

* :func:`get_parser`: LALR with the contextual lexer and the builder inlined, so a valid
  line becomes its command in one pass with no parse tree.
* :func:`tokens`: a basic lexer over the same grammar, used only to explain errors (it sees
  every terminal at once, so it can name the token before the one that failed). It is a
  lexer alone (``parser=None``): no LALR tables are built for it, and its scanner is built
  once (a Lark with a parser rebuilds the lexer of ``Lark.lex`` at every call).

The LADDER terminal's words come from :mod:`pbp.rules.ladder`: the grammar file holds the
placeholder ``@LADDER@``, so the ladder is written in one place. The same way, the tracks,
severities and stress units (``@TRACKS@``, ``@SEVERITIES@``, ``@UNITS@``) are the words of
every registered game system (:func:`pbp.rules.systems.vocabulary`): a new system's words
are read without touching the grammar, and the campaign's system checks them.
"""
from __future__ import annotations

from lark import Lark, Token
from lark.exceptions import LarkError

import re

from pbp.parser.build import LADDER, Builder
from pbp.resources import resource_path

GRAMMAR_FILE = "commands.lark"
_parser: Lark | None = None
_lexer: Lark | None = None


def _alternatives(words) -> str:
    """A regex alternation of ``words``, longest first (so "mild2" is tried before "mild")."""
    return "|".join(re.escape(w) for w in sorted(dict.fromkeys(w.casefold() for w in words), key=lambda w: (-len(w), w)))


def grammar() -> str:
    """The text of ``grammar/commands.lark`` with the ladder's and the systems' words filled in."""
    from pbp.rules.systems import vocabulary

    words = vocabulary()
    text = resource_path("grammar", GRAMMAR_FILE).read_text(encoding="utf-8")
    units = [u for u in words.units if u.casefold() != "stress"] or ["box"]   # "stress" is its own keyword
    return (text.replace("@LADDER@", "|".join(LADDER))
            .replace("@TRACKS@", _alternatives(words.tracks))
            .replace("@SEVERITIES@", _alternatives(words.harm_words))
            .replace("@UNITS@", _alternatives(units)))


def get_parser() -> Lark:
    """The one LALR parser of the process, built on first use with the builder inlined."""
    global _parser
    if _parser is None:
        _parser = Lark(
            grammar(),
            parser="lalr",
            lexer="contextual",
            transformer=Builder(),
            maybe_placeholders=True,
            propagate_positions=False,
        )
    return _parser


def _error_lexer() -> Lark:
    global _lexer
    if _lexer is None:
        _lexer = Lark(grammar(), parser=None, lexer="basic")
    return _lexer


def tokens(text: str) -> list[Token]:
    """The tokens a basic lexer reads from ``text``, up to the first unreadable character."""
    found: list[Token] = []
    try:
        for token in _error_lexer().lex(text):
            found.append(token)
    except LarkError:
        pass
    return found
