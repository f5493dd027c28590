"""Explaining a line that does not read: one CommandSyntaxError a player can act on.

Every failure names the line, the 1-based column, the text that failed, what was expected
in words and a working example of the command. What the parser could take is a set of
terminal names; the words for them come from the command's row in :mod:`pbp.parser.spec`
(what a name after a keyword is, what a quoted text is, the command's own wording of a
keyword) and from the common wordings below.

Lark's ``UnexpectedInput.match_examples`` (label an error by the parser state a known bad
line fails in) was tried and not kept: it needs a hand-written bad line per message, and
it cannot tell lines apart that fail in the same state on the same kind of token
(``/treat Ruth with Medicine``, the consequence left out, and ``/treat Ruth Foo Medicine``,
"with" left out, both fail on a WORD after two names once the grammar's ``no_consequence``
rule is gone). Worded from the expected terminals, every state gets an answer for free.
"""
from __future__ import annotations

import difflib
import re

from lark import Token
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

from pbp.errors import CommandSyntaxError
from pbp.i18n import DEFAULT_LANGUAGE
from pbp.parser.build import WORDS, Invalid, words
from pbp.parser.grammar import tokens as _tokens
from pbp.parser.spec import (
    ACTION_NAMES,
    CANONICAL,
    COMMAND_NAMES,
    COMMAND_TERMINALS,
    EXAMPLES,
    GM_EXAMPLES,
    LIST_ITEMS,
    NAME_ROLES,
    PART_EXAMPLES,
    PART_OF,
    PLAY_ACTOR_NAMES,
    PLAY_COMMANDS,
    PLAY_ROLES,
    PLAY_TEXTS,
    examples_in,
    says,
)
from pbp.rules.systems import or_words
from pbp.textsafety import bad_char, describe_char, shorten

_QUOTES_OPEN = "\"“”„«»‘'"
_RUN = re.compile(r"\S+")

_PHRASE = {
    "_SLASH": '"/" and a command',
    "DICE": "dice (4dF, 3d6)",
    "DISCOVER": '"discover"',
    "_WITH": '"with" and a skill name',
    "_VS": '"vs" and the opposition (vs Fair, vs +2, vs Ghoul)',
    "_USING": '"using" and a skill name',
    "_NEEDED": '"needed" (as in "if needed")',
    "FOR_STYLE": '"for style" (as in "if needed for style")',
    "OUTCOME": '"tie", "fail" or "style"',
    "TAKING": '"boost" or "cost"',
    "QUOTED_REASON": "a reason in quotes",
}


def _quote(text: str) -> str:
    text = shorten(text, 40)
    return text if text[:1] in _QUOTES_OPEN else f'"{text}"'


def _finish_words(phrases: list[str], expected, prev) -> str:
    """The end shared by both "expected ..." builders: each phrase once, the end of the
    line if it was allowed, a fallback, and what the problem came after."""
    phrases = list(dict.fromkeys(phrases))
    if "$END" in expected and "the end of the line" not in phrases:
        phrases.append("the end of the line")
    words = _join(phrases or ["something else"])
    if prev is not None:
        words += f" after {_quote(prev.value)}"
    return words


def _join(phrases: list[str]) -> str:
    if len(phrases) <= 1:
        return "".join(phrases)
    return ", ".join(phrases[:-1]) + " or " + phrases[-1]


def example_for(line: str, language: str = DEFAULT_LANGUAGE) -> str:
    """The documented working example of the command ``line`` is (of the part written, for
    /fp, /scene, /aspect, /conflict; ``/as NAME ...`` for the GM's): what a refusal that
    gave no example of its own shows (:func:`pbp.play.core.complete_error`), in the
    campaign's ``language``."""
    return _example(_tokens(line, language), language=language)


def _language() -> str:
    """The language of the line being read (its campaign's, ``parse_command(words=...)``)."""
    given = WORDS.get()
    return given.language if given is not None else DEFAULT_LANGUAGE


def _command_word(tokens: list[Token]) -> tuple[Token | None, bool]:
    """The token in command position (after ``/`` or ``/as NAME``) and whether it is after as."""
    if len(tokens) > 1 and tokens[1].type == "_AS":
        return (tokens[3] if len(tokens) > 3 else None), True
    return (tokens[1] if len(tokens) > 1 else None), False


def _command_name(word: Token | None) -> str:
    """The command a command-position token names (``aspects`` -> ``aspect``), or ""."""
    if word is None or word.type not in COMMAND_TERMINALS:
        return ""
    return CANONICAL.get(word.type) or word.value.lower()


def _example(tokens: list[Token], pos: int | None = None, language: str | None = None) -> str:
    """A working example of the command in ``tokens`` (of the part written, for /fp, /scene,
    /aspect and /conflict); ``pos``: the failure, before which the command word must end.
    In a campaign of another language than English, the rows' examples in its words."""
    language = language or _language()
    if language != DEFAULT_LANGUAGE:
        return _example_in(tokens, pos, language)
    word, gm = _command_word(tokens)
    name = _command_name(word) if word is not None and (pos is None or word.end_pos <= pos) else ""
    if not name:
        return EXAMPLES["as"] if gm else EXAMPLES["roll"]
    if gm:
        return GM_EXAMPLES.get(name, EXAMPLES["as"])
    parts = PART_EXAMPLES.get(name)
    if parts and len(tokens) > 2 and tokens[2].type in parts:  # /fp give, /scene end...
        return parts[tokens[2].type]
    return EXAMPLES.get(name, EXAMPLES["roll"])


def _example_in(tokens: list[Token], pos: int | None, language: str) -> str:
    """:func:`_example` in ``language``: the command's example in its words (``Spec.examples``),
    after ``/como Ghoul`` for the GM's prefix."""
    examples = examples_in(language)
    word, gm = _command_word(tokens)
    name = _command_name(word) if word is not None and (pos is None or word.end_pos <= pos) else ""
    if not name:
        return examples["as"] if gm else examples["roll"]
    if gm:
        return examples["as"] if name not in GM_EXAMPLES else \
            examples["as"].split(" ", 2)[0] + " Ghoul " + examples[name].lstrip("/")
    return examples.get(name, examples["roll"])


def _expected_words(expected: set[str], before: list[Token], command: str) -> str:
    """Say in words what the parser would have accepted, from its terminal names."""
    prev = before[-1] if before else None
    phrases: list[str] = []
    add = phrases.append  # a phrase added twice is said once (_finish_words)

    if expected & {"_ROLL", "_OVERCOME"}:  # the command word, after "/" or "/as NAME"
        if expected & {"_SHEET", "FP", "_AS"}:
            add("a command (" + ", ".join(n for n in COMMAND_NAMES if n != "create") + ")")
        else:
            add("an action (overcome, advantage, attack, defend or roll)")
            add("another command for that character (" + _join(list(PLAY_ACTOR_NAMES)) + ")")
        return _finish_words(phrases, expected, prev)
    if command in PLAY_COMMANDS:
        return _expected_play(expected, before, command)
    if "_SLASH" in expected:
        add(_PHRASE["_SLASH"])
    if "DICE" in expected:
        add(_PHRASE["DICE"])
    difficulty = "LADDER" in expected
    if expected & {"WORD", "QUOTED"}:
        if "DISCOVER" in expected:  # only the aspect of /advantage competes with "discover"
            role = "an aspect name (in quotes if it has spaces)"
        elif prev is not None and prev.type == "_SPEND":
            role = _PHRASE["QUOTED_REASON"]
        else:
            role = NAME_ROLES.get(prev.type, "a name") if prev is not None else "a name"
        if difficulty:
            add("a difficulty (a ladder word like Fair or a number like +2) or " + role)
        else:
            add(role)
    elif difficulty:
        add("a difficulty (a ladder word like Fair or a number like +2)")
    if "DISCOVER" in expected:
        add(_PHRASE["DISCOVER"])
    if "INT" in expected and not difficulty and not expected & {"_INVOKE", "_STUNT"}:
        amount = prev is not None and prev.type in ("GIVE", "TAKE", "WORD", "QUOTED")  # /fp give Ruth 2
        add("an amount" if amount else "a number")
    if expected & {"_INVOKE", "_STUNT"}:
        add('"invoke", "stunt" or a number')
    for terminal in ("_WITH", "_VS", "_USING"):
        if terminal in expected:
            add(_PHRASE[terminal])
    if "_ON" in expected:
        own = says(command, "_ON", "")  # /advantage: "on" and who gets the aspect
        if own and not any(t.type == "_ON" for t in before) and "_VS" in expected:
            add(own)
        add("an outcome choice (on tie boost)")
    if "REROLL" in expected:
        add("an invoke option (reroll, oppose, free, fp, if needed, x2)")
    if "PLUS" in expected and not difficulty:
        add(says(command, "PLUS", 'a modifier (+invoke "Aspect", +stunt "Name", +1)'))
    for terminal in ("_NEEDED", "OUTCOME", "TAKING"):
        if terminal in expected:
            add(_PHRASE[terminal])
    for terminal, keyword in (("_SHOW", '"show"'), ("_SPEND", '"spend"'), ("GIVE", '"give"'), ("TAKE", '"take"'),
                              ("_SET", '"set" (the GM fixes a sheet)')):
        if terminal in expected:
            add(keyword)
    if "SETTING" in expected:
        add(says(command, "SETTING", "KEY=VALUE"))
    return _finish_words(phrases, expected, prev)


# Tokens that are part of a name, a list or a number rather than a keyword of the command.
_NOT_ANCHORS = frozenset({"WORD", "QUOTED", "_COMMA", "INT", "LADDER", "PLUS", "MINUS", "_DASH"})


def _expected_play(expected: set[str], before: list[Token], command: str) -> str:
    """:func:`_expected_words` for the play-by-post and GM commands."""
    prev = before[-1] if before else None
    anchor = next((t for t in reversed(before) if t.type not in _NOT_ANCHORS), None)
    anchor_type = anchor.type if anchor is not None else ""
    names = 0
    for token in reversed(before):
        if token is anchor:
            break
        names += token.type in ("WORD", "QUOTED")
    phrases: list[str] = []
    add = phrases.append  # a phrase added twice is said once (_finish_words)

    naming = "WORD" in expected
    if naming:
        role = PLAY_ROLES.get((command, anchor_type), "a name")
        add(role[min(names, len(role) - 1)] if isinstance(role, tuple) else role)
    if "LADDER" in expected:
        add("a rating (a ladder word like Fair or a number like +2)")
    elif "INT" in expected:
        if prev is not None and prev.type in ("PLUS", "MINUS"):
            add("a number")
        elif anchor_type == "FREE":
            add("the number of free invokes (1 if you leave it out)")
        else:
            add(says(command, "INT", "the number of stress boxes"))
    if "_COMMA" in expected:
        add('"," and another ' + LIST_ITEMS.get((command, anchor_type), "name"))
    if "MINUS" in expected and "_DASH" in expected:
        add('"-" and the zone it borders')
    if "REROLL" in expected:
        add(says(command, "REROLL", "an invoke option (reroll, oppose, free, fp, if needed, x2)"))
    if "REF" in expected:
        on_ref = says(command, "_ON", "") if "_ON" in expected else ""  # /invoke ... on #142
        add(on_ref or says(command, "REF", "an id like #12"))
    if "SEVERITY" in expected:
        add(f"a consequence ({or_words(words().severities)}) and its name")
        if WORDS.get() is not None and words().conditions:    # the campaign's system has conditions
            add(f"a condition ({or_words(words().conditions)}) and its name")
    if "_STRESS" in expected and says(command, "_STRESS", ""):
        add(says(command, "_STRESS", ""))
    if "COMPEL_KIND" in expected and not naming:
        add('"event" or "decision"')
    if "QUOTED" in expected and not naming:
        add(PLAY_TEXTS.get(command, "a reason in quotes"))
    if "_WITH" in expected and not naming:
        add(says(command, "_WITH", '"with" and the skill you treat with'))
    if "_AS" in expected:
        add('"as" and a new name for the consequence')
    if "PLUS" in expected and "LADDER" not in expected:
        add('an invoke (+invoke "Aspect")')
    if "_INVOKE" in expected:
        add('"invoke" and an aspect name')
    if "_TO" in expected and not naming:
        add('"to" and the new name')
    if "_START" in expected:
        add('"start" or "end"')
    elif "_END" in expected:
        add('"end"')
    if "_ZONES" in expected:
        add('"zones" and the zones (zones Dock, Office)')
    if "_BORDERS" in expected:
        add('"borders" and the borders (borders Dock-Office)')
    if "_ADD" in expected:
        add('"add", "remove" or "rename"' if "_REMOVE" in expected else '"add"')
    if expected & {"FREE", "HIDDEN"} and says(command, "FREE", ""):  # /aspect add's options
        add(says(command, "FREE", ""))
    if "_FIRST" in expected:
        add('"first" and who acts first')
    if "CONFLICT_KIND" in expected:
        add(or_words(words().tracks, quote='"'))
    if "_IN" in expected:
        add('"in" and a zone name')
    if "LEVEL" in expected and says(command, "LEVEL", ""):
        add(says(command, "LEVEL", ""))
    if "COST_LEVEL" in expected:
        add(says(command, "COST_LEVEL", '"minor" or "severe"'))
    if "_SKILLS" in expected:
        add("another part (aspects, skills, stress or defend)")
    return _finish_words(phrases, expected, prev)


def syntax_error(exc: LarkError, text: str, source: str, line: int) -> CommandSyntaxError:
    """Turn any Lark error into one CommandSyntaxError that a player can act on."""
    try:
        return _explain(exc, text, source, line)
    except Exception:  # the explanation must never be the thing that fails
        return CommandSyntaxError(
            "this command could not be read", line=line, column=None, source=source,
            expected="a command such as " + EXAMPLES["overcome"], example=EXAMPLES["overcome"], got=source,
        )


def _expected_terminals(exc: LarkError, fallback: set[str]) -> set[str]:
    """What the parser could really take at the failure. Lark's own list is the LALR row,
    which may hold lookaheads that only fail after a reduction (and lacks the end of the
    line when the lexer failed); replaying each terminal on a copy of the parser is exact."""
    try:
        return {str(k) for k in exc.interactive_parser.accepts()}
    except Exception:  # no parser attached, or it cannot be replayed: the lexer's list will do
        return {str(k) for k in fallback}


def _explain(exc: LarkError, text: str, source: str, line: int) -> CommandSyntaxError:
    tokens = _tokens(text, _language())
    if isinstance(exc, UnexpectedToken) and exc.token.type != "$END":
        pos, got = exc.token.start_pos, exc.token.value
        if exc.token.type != "QUOTED":
            got = _RUN.match(text, pos).group()
        expected = _expected_terminals(exc, exc.expected)
    elif isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        run = _RUN.match(text, pos)
        got = run.group() if run else text[pos:pos + 1]
        expected = _expected_terminals(exc, exc.allowed or set())
    elif isinstance(exc, (UnexpectedToken, UnexpectedEOF)):
        pos, got, expected = len(text), "", _expected_terminals(exc, exc.expected)
    else:
        pos, got, expected = 0, text, set()
    got, column = shorten(got), pos + 1
    before = [t for t in tokens if t.end_pos is not None and t.end_pos <= pos]
    prev = before[-1] if before else None
    here = next((t for t in tokens if t.start_pos == pos), None)

    if not text.startswith("/"):
        return CommandSyntaxError(
            "a command line starts with /", line=line, column=1, source=source, got=got,
            expected='"/" and a command', example=EXAMPLES["roll"],
        )

    word, gm = _command_word(tokens)
    if word is not None and word.type not in COMMAND_TERMINALS and word.start_pos <= pos \
            and word.value[:1].isalpha():
        return _unknown_command(word, gm, line, source)

    command = _command_name(word) if word is not None and word.end_pos <= pos else ""
    example = _example(tokens, pos)
    words = _expected_words(expected, before, command)
    other = _command_name(word) if gm and word is not None and word.start_pos == pos else ""
    if other and other not in ACTION_NAMES:  # /as Ghoul scene end
        return CommandSyntaxError(
            f"/{other} cannot come after /as NAME: write it on its own line, without /as",
            line=line, column=column, source=source, got=got, expected=words,
            example=_example(tokens[:1] + tokens[3:]),
        )

    if isinstance(exc, UnexpectedCharacters) and text[pos] in _QUOTES_OPEN and "QUOTED" in expected:
        return CommandSyntaxError(
            "unterminated quote: a quoted name needs its closing quote on the same line",
            line=line, column=column, source=source, got=shorten(text[pos:]),
            expected="a closing quote after the name", example=example,
        )
    if got:
        message = f"expected {words}, got {_quote(got)}"
        if here is not None and here.type == "WORD" and prev is not None and prev.type == "WORD":
            message += f'; if "{prev.value} {here.value}" is one name, put it in quotes'
        elif "$END" in expected:
            message += "; write anything else on its own line, not after the command"
    else:
        message = f"expected {words}, but the line ended"
    return CommandSyntaxError(message, line=line, column=column, source=source, got=got,
                              expected=words, example=example)


def _unknown_command(word: Token, gm: bool, line: int, source: str) -> CommandSyntaxError:
    names = ACTION_NAMES if gm else COMMAND_NAMES
    typed = shorten(word.value, 40)
    match = difflib.get_close_matches(typed.lower(), names, n=1, cutoff=0.6)
    message = f'unknown command "{typed}"'
    if gm:
        message = f'unknown action "{typed}" after /as NAME'
    part = None if gm else PART_OF.get(word.type)
    if part is not None:
        message += f" — did you mean {part[0]}?"
        example = part[1]
    elif match:
        suggestion = match[0]
        message += f" — did you mean {suggestion if gm else '/' + suggestion}?"
        example = (GM_EXAMPLES if gm else EXAMPLES)[suggestion]
    else:
        example = EXAMPLES["as"] if gm else EXAMPLES["overcome"]
    expected = ("a command for that character: " + ", ".join(ACTION_NAMES)) if gm else \
        ("a command: " + ", ".join("/" + n for n in COMMAND_NAMES))
    return CommandSyntaxError(message, line=line, column=word.start_pos + 1, source=source, got=typed,
                              expected=expected, example=example)


def unsafe_error(bad: str, text: str, line: int) -> CommandSyntaxError:
    """A command line holding a character no name may hold (NUL, a control character, a
    bidi override, a zero-width character): refused before the grammar sees it, so the
    error names the invisible character instead of pointing at nothing. The line is echoed
    with every such character shown as ``?``, so the reply cannot be reordered by them."""
    column = text.index(bad) + 1
    shown = "".join("?" if bad_char(ch, allow_tab=True) is not None else ch for ch in text)
    clean = "".join(ch for ch in text if bad_char(ch, allow_tab=True) is None)
    return CommandSyntaxError(
        f"{describe_char(bad)} at character {column} cannot be part of a command",
        line=line, source=shown, column=column, got=describe_char(bad),
        expected="letters, digits, spaces and punctuation (no control, bidi or zero-width characters)",
        example=_example(_tokens(clean, _language())),
    )


def invalid_error(exc: Invalid, text: str, source: str, line: int) -> CommandSyntaxError:
    token = exc.token
    tokens = _tokens(text, _language())
    example = exc.example or _example(tokens)
    if exc.instead is not None and token is not None and token.end_pos is not None:
        example = " ".join((text[:token.start_pos] + exc.instead + text[token.end_pos:]).split())
    return CommandSyntaxError(
        exc.message, line=line, source=source,
        column=token.start_pos + 1 if token is not None else None,
        got=shorten(token.value) if token is not None else "",
        expected=exc.expected, example=example,
    )
