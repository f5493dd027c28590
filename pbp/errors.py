"""Every error pbp raises on purpose derives from :class:`PbpError`.

The hierarchy (errors a user can cause carry what a reply needs: the line, what was
expected and an example that works)::

    PbpError
    ├── ConfigError                 operator mistakes in pbp.toml / environment
    ├── SheetError                  a character sheet file that does not validate
    ├── DiceExhausted               fixed dice (--dice / PBP_DICE) ran out
    └── CommandError                anything wrong with a command in a post
        ├── CommandSyntaxError      the grammar could not read a line
        ├── UnknownNameError        unknown skill, aspect, character or stunt
        ├── RulesError              the rules forbid it (no fate points, invoked twice...)
        └── NotAllowedError         the author may not do this (stranger, GM-only, out of turn)

At the boundary (the pipeline) a ``CommandError`` becomes a reply to its author and the
message changes nothing; every other ``PbpError`` is an operator problem and is logged
with its hint.
"""
from __future__ import annotations


class PbpError(Exception):
    """Base of every error pbp raises on purpose."""

    hint: str = ""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        if hint:
            self.hint = hint

    def __str__(self) -> str:
        return self.message


class ConfigError(PbpError):
    """The configuration or the environment is wrong; ``hint`` says how to fix it."""


class SheetError(PbpError):
    """A character sheet does not validate. ``problems`` lists every problem found."""

    def __init__(self, message: str, problems: list[str] | None = None, *, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.problems = list(problems or [])


class DiceExhausted(PbpError):
    """Fixed dice were given but more rolls were asked for than they supply."""


class CommandError(PbpError):
    """A command in a post cannot be applied.

    ``line`` is the 1-based line of the author's new text, ``column`` 1-based when known,
    ``source`` the command line itself, ``expected`` what would have been accepted and
    ``example`` a command that works.

    ``depends_on`` names the situation a refusal rests on, for the few refusals that an
    earlier command of the same post can bring about ("conflict": there is no conflict;
    "turn": it is someone else's turn; "out:NAME": NAME is out of the fight). When that
    situation changed during the post, the command no longer applies and is skipped with a
    note instead of refusing the post (:func:`pbp.play.core.apply_post`).
    """

    depends_on: str = ""

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        source: str = "",
        expected: str = "",
        example: str = "",
        hint: str = "",
        depends_on: str = "",
    ) -> None:
        super().__init__(message, hint=hint)
        if depends_on:
            self.depends_on = depends_on
        self.line = line
        self.column = column
        self.source = source
        self.expected = expected
        self.example = example

    def at(self, line: int, source: str) -> "CommandError":
        """Attach the position of the command in the post (the parser knows only the line)."""
        if self.line is None:
            self.line = line
        if not self.source:
            self.source = source
        return self

    def shown(self) -> "ShownError":
        """The error as a reply shows it: long names cut, a long line windowed around the
        place it points at (the caret's column follows)."""
        from pbp.textsafety import clip_echo, source_window

        source, column = source_window(self.source, self.column)
        return ShownError(
            message=clip_echo(self.message), line=self.line, column=column, source=source,
            expected=clip_echo(self.expected), example=clip_echo(self.example, limit=2 * MAX_EXAMPLE),
            hint=clip_echo(self.hint), syntax=isinstance(self, CommandSyntaxError))

    def to_dict(self) -> dict:
        shown = self.shown()
        return {
            "type": type(self).__name__,
            "message": shown.message,
            "line": self.line,
            "column": self.column,
            "source": self.source if len(self.source) <= MAX_EXAMPLE else shown.source,
            "expected": shown.expected,
            "example": shown.example,
            **({"hint": shown.hint} if self.hint else {}),
        }


MAX_EXAMPLE = 200


class ShownError:
    """What an error reply shows of a :class:`CommandError` (see :meth:`CommandError.shown`)."""

    __slots__ = ("message", "line", "column", "source", "expected", "example", "hint", "syntax")

    def __init__(self, **fields) -> None:
        for k, v in fields.items():
            setattr(self, k, v)


class CommandSyntaxError(CommandError):
    """The grammar could not read a command line; ``got`` is the offending text."""

    def __init__(self, message: str, *, got: str = "", **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.got = got


class UnknownNameError(CommandError):
    """A skill, aspect, character or stunt that the campaign does not know."""

    def __init__(self, message: str, *, kind: str = "", name: str = "", suggestions: list[str] | None = None, **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.kind = kind
        self.name = name
        self.suggestions = list(suggestions or [])


class RulesError(CommandError):
    """The rules do not allow it: not enough fate points, the same aspect invoked twice..."""


class NotAllowedError(CommandError):
    """The author may not do this: a stranger, a GM-only command, an action out of turn."""
