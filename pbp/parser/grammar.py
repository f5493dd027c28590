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

from pbp.i18n import DEFAULT_LANGUAGE, fold
from pbp.parser.build import Builder
from pbp.parser.spec import aliases
from pbp.resources import resource_path
from pbp.rules.ladder import LADDER, ladder_words

GRAMMAR_FILE = "commands.lark"
_parsers: dict[str, Lark] = {}
_lexers: dict[str, Lark] = {}
_KEYWORD = re.compile(r"^(?P<head>(?P<name>[A-Z_]+)(?:\.\d)?: /)(?P<body>.*)(?P<tail>\(\?!\[\\w'’\]\|-\[\^\\W\\d_\]\)/i)$", re.M)


def _alternatives(words) -> str:
    """A regex alternation of ``words``, longest first (so "mild2" is tried before "mild")."""
    return "|".join(re.escape(w) for w in sorted(dict.fromkeys(w.casefold() for w in words), key=lambda w: (-len(w), w)))


def _spellings(word: str) -> list[str]:
    """A word as it may be typed: with its accents and without ("forçar", "forcar")."""
    return list(dict.fromkeys([word.casefold(), fold(word)]))


def grammar(language: str = DEFAULT_LANGUAGE) -> str:
    """The text of ``grammar/commands.lark`` with the ladder's and the systems' words filled in;
    in another language than English, each keyword also reads that language's words
    (``pbp.parser.spec.aliases``: the command words of each row, the other keywords), and the
    ladder its words in every form ("Ótima", "otimo")."""
    from pbp.rules.systems import vocabulary

    words = vocabulary()
    text = resource_path("grammar", GRAMMAR_FILE).read_text(encoding="utf-8")
    units = [u for u in words.units if u.casefold() != "stress"] or ["box"]   # "stress" is its own keyword
    ladder = list(LADDER.values()) if language == DEFAULT_LANGUAGE else \
        [spelling for word in ladder_words() for spelling in _spellings(word)]
    text = (text.replace("@LADDER@", _alternatives(ladder))
            .replace("@TRACKS@", _alternatives(words.tracks))
            .replace("@SEVERITIES@", _alternatives(words.harm_words))
            .replace("@UNITS@", _alternatives(units)))
    extra = aliases(language) if language != DEFAULT_LANGUAGE else {}
    if not extra:
        return text

    def widen(found: re.Match) -> str:
        more = extra.get(found["name"])
        if not more:
            return found.group(0)
        alternatives = _alternatives(s for word in more for s in _spellings(word)).replace(r"\ ", r"\s+")
        return f"{found['head']}(?:{found['body']}|{alternatives}){found['tail']}"
    return _KEYWORD.sub(widen, text)


def _callbacks(language: str) -> dict:
    """Lexer callbacks that give each keyword read in ``language`` its English word, so the
    builder reads one language ("aceitar" is ``accept``, "Ótima" is ``Great``)."""
    table: dict[str, dict[str, str]] = {}
    for terminal, words in aliases(language).items():
        table[terminal] = {" ".join(s.split()): english for word, english in words.items() for s in _spellings(word)}
    by_ladder = {fold(word): LADDER.get(value) for value, word in _ladder_values()}

    def english(terminal):
        words = table[terminal]

        def call(token: Token) -> Token:
            key = " ".join(token.value.casefold().split())
            return token.update(value=words.get(key, words.get(fold(key), token.value)))
        return call

    def ladder(token: Token) -> Token:
        return token.update(value=by_ladder.get(fold(token.value), token.value))
    return {**{terminal: english(terminal) for terminal in table}, "LADDER": ladder}


def _ladder_values():
    from pbp.i18n.words import GAME_WORDS

    for words in GAME_WORDS.values():
        for value, rating in words.ladder.items():
            for form in rating.forms():
                yield value, form


def get_parser(language: str = DEFAULT_LANGUAGE) -> Lark:
    """The LALR parser of ``language`` (each built once per process, on first use) with the
    builder inlined."""
    parser = _parsers.get(language)
    if parser is None:
        parser = _parsers[language] = Lark(
            grammar(language),
            parser="lalr",
            lexer="contextual",
            transformer=Builder(),
            maybe_placeholders=True,
            propagate_positions=False,
            lexer_callbacks=_callbacks(language) if language != DEFAULT_LANGUAGE else {},
        )
    return parser


def _error_lexer(language: str = DEFAULT_LANGUAGE) -> Lark:
    """The basic lexer (no parser) of one language's grammar, built once per language."""
    lexer = _lexers.get(language)
    if lexer is None:
        lexer = _lexers[language] = Lark(grammar(language), parser=None, lexer="basic",
                                         lexer_callbacks=_callbacks(language) if language != DEFAULT_LANGUAGE else {})
    return lexer


def tokens(text: str, language: str = DEFAULT_LANGUAGE) -> list[Token]:
    """The tokens a basic lexer reads from ``text``, up to the first unreadable character."""
    found: list[Token] = []
    try:
        for token in _error_lexer(language).lex(text):
            found.append(token)
    except LarkError:
        pass
    return found
