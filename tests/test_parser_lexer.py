"""The error lexer (pbp.parser.grammar.tokens) is a lexer alone: it builds no parse tables,
builds its scanner once, and reads the same tokens a basic lexer over the whole grammar does
(which is what explaining an error needs: the token before the one that failed)."""
from lark import Lark
from lark.exceptions import LarkError

from pbp.parser import grammar as g

LINES = [
    "/overcome Investigate vs Fair",
    '/attack "Masked Acolyte" with Shoot +invoke Distracted free',
    '/advantage Crafts "On Fire" on Shoggoth vs Good on tie boost',
    "/roll 4dF+2",
    "/overcome Investigate vs Fiar",
    '/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"',
    "/attack Ghoul with Fight ~ and more",   # an unreadable character: the tokens before it
]


def _lexed(lark: Lark, text: str) -> list[tuple[str, str]]:
    out = []
    try:
        for token in lark.lex(text):
            out.append((token.type, str(token)))
    except LarkError:
        pass
    return out


def test_the_error_lexer_builds_no_parser_and_one_scanner():
    lexer = g._error_lexer()
    assert lexer.options.parser is None and not hasattr(lexer, "parser")
    g.tokens(LINES[0])
    scanner = lexer.lexer
    g.tokens(LINES[1])
    assert g._error_lexer() is lexer and lexer.lexer is scanner


def test_it_reads_what_a_basic_lexer_with_the_parser_read():
    with_parser = Lark(g.grammar(), parser="lalr", lexer="basic", maybe_placeholders=True)
    for line in LINES:
        assert [(t.type, str(t)) for t in g.tokens(line)] == _lexed(with_parser, line), line
    assert [t.type for t in g.tokens("/roll 4dF+2")][:1] and g.tokens("~") == []
