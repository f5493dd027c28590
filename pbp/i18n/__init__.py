"""A campaign's language: the words pbp writes for its table, from gettext catalogs.

English is the language of the source: a message id is the English text, and a campaign in
English reads it as it is. Every other language is a catalog in ``locale/<locale>/
LC_MESSAGES/pbp.po`` (Portuguese: ``pt_BR``), compiled in memory the first time a campaign
speaking it is answered, so a checkout, an editable install and a wheel all read the one
``.po`` file a translator edits and no compiled file can fall behind it.

Code marks a message where it is written: ``language.gettext("...")`` (and ``ngettext``) where
the campaign's :class:`Language` is at hand, ``N_("...")`` for a word kept in a table and
translated where it is shown; templates use Jinja's ``{% trans %}`` and ``_()``. Babel extracts
them all (``babel.cfg``, docs/translating.md), and ``tests/test_translations.py`` fails when one
has no Portuguese translation.

This module is a leaf: it imports nothing of pbp, so the rules, the parser and the renderer
may all take a :class:`Language` as a value.
"""
from __future__ import annotations

import gettext as _gettext
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from io import BytesIO
from pathlib import Path

from babel import Locale
from babel.dates import format_datetime
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

DOMAIN = "pbp"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "en"
#: the languages a campaign may play in: its code (as ``--language`` takes it) -> its own name
LANGUAGES = {"en": "English", "pt-BR": "português (Brasil)"}
_SHORT = {"pt": "pt-BR"}


def N_(message: str) -> str:
    """Mark ``message`` for the catalog where it is kept (a table of words); whoever shows it
    translates it with the campaign's :meth:`Language.gettext`."""
    return message


class SaidText(str):
    """A text of pbp's that remembers how it was made (the subclasses below): immutable as a
    str is, so copies are itself, and pickled (another process) as the plain English text it is."""

    def __copy__(self) -> "SaidText":
        return self

    def __deepcopy__(self, memo) -> "SaidText":
        return self

    def __reduce__(self):
        return (str, (str(self),))


class Msg(SaidText):
    """A sentence pbp writes, in English, that remembers how it was made: its message id
    (the English template, ``"{who} overcomes the obstacle"``) and its fields. It *is* the
    English text, so code that makes it, stores it or compares it needs no language; the
    renderer writes it in the campaign's language (:meth:`Language.say`). The rules core and
    the play modules make their sentences with it; Babel extracts its first argument
    (``babel.cfg``, the ``Msg`` keyword). A field may itself be a :class:`Msg` (or a word
    marked ``N_`` in ``fields_said``), translated with it."""

    msgid: str
    fields: dict
    plural: tuple | None

    def __new__(cls, msgid: str, /, **fields) -> "Msg":
        shown = {k: ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v for k, v in fields.items()}
        self = super().__new__(cls, msgid.format(**shown) if fields else msgid)
        self.msgid, self.fields, self.plural = msgid, fields, None
        return self

    @classmethod
    def count(cls, singular: str, plural: str, n: int, /, **fields) -> "Msg":
        """A sentence with a number (``Msgs`` below is its extraction keyword)."""
        self = super().__new__(cls, (singular if n == 1 else plural).format(n=n, **fields))
        self.msgid, self.fields, self.plural = singular, {"n": n, **fields}, (singular, plural, n)
        return self


class When(SaidText):
    """A date as a reply writes it, in English ("Tue 1 Dec 18:00 UTC"), that remembers its
    moment: a field of a :class:`Msg` is said in the campaign's language and locale."""

    dt: datetime

    def __new__(cls, dt: datetime) -> "When":
        self = super().__new__(cls, f"{dt:%a} {dt.day} {dt:%b %H:%M} UTC")
        self.dt = dt
        return self


class Joined(SaidText):
    """Sentences written one after the other (a scene's first line, its zones, its borders):
    the English text they make, said part by part in another language."""

    parts: tuple

    def __new__(cls, parts) -> "Joined":
        parts = tuple(parts)
        self = super().__new__(cls, "".join(parts))
        self.parts = parts
        return self


def _sentence(text: str) -> str:
    text = text.strip()
    text = text[0].upper() + text[1:] if text else text
    return text if text.endswith((".", "!", "?")) else text + "."


class Sentence(SaidText):
    """A clause written as a sentence: its first letter capitalised and a full stop added
    ("the GM approves ..." -> "The GM approves ...."), in whatever language it is said."""

    inner: str

    def __new__(cls, inner) -> "Sentence":
        self = super().__new__(cls, _sentence(str(inner)))
        self.inner = inner
        return self


class Names(SaidText):
    """Names listed as a sentence says them, "Ruth", "Ruth and Ethan", "Ruth, Ethan and
    Cassandra" (:func:`pbp.rules.naming.and_names`): a field of a :class:`Msg` is said with
    the language's "and" ("Ruth e Ethan")."""

    names: tuple

    def __new__(cls, names) -> "Names":
        names = tuple(names)            # a name may be a Msg ("moderate"), said when the list is
        shown = [str(n) for n in names]
        text = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1] if shown else ""
        self = super().__new__(cls, text)
        self.names = names
        return self


class CommandLine(SaidText):
    """A command line pbp suggests ("/absorb stress 2 mild \"Mild Wound\""), written in
    English: a field of a :class:`Msg` (and an error's example) is written in the campaign's
    language's command words ("/absorver estresse 2 suave ...", :meth:`Language.command`)."""


#: language code -> what writes an English command line in that language's command words;
#: given by the command specification (``pbp.parser.spec``, which knows the words) when it
#: is loaded, so this module stays a leaf
COMMAND_WRITERS: dict = {}


def Msgs(singular: str, plural: str, n: int, /, **fields) -> Msg:   # noqa: N802 (a keyword for Babel)
    """:meth:`Msg.count`: "{n} shift" / "{n} shifts", by ``n``."""
    return Msg.count(singular, plural, n, **fields)


#: words kept in tables (``N_``) that :meth:`Language.say` translates where they are a field
WORD_FIELDS = ("track", "severity", "kind", "action", "outcome", "paid", "noun")


def fold(text: str) -> str:
    """``text`` compared as players may type it: case and accents ignored ("Ótimo", "otimo",
    "OTIMO" are one word; "Forçar" and "forcar" too)."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def language_code(value: str | None) -> str:
    """The code of a language as a campaign keeps it ("pt-BR"), from how one may type it
    ("pt-br", "pt_BR", "pt"); an empty value is the default, English. Raises ``ValueError``
    naming the languages there are."""
    if not value or not value.strip():
        return DEFAULT_LANGUAGE
    key = value.strip().replace("_", "-").casefold()
    for code in LANGUAGES:
        if code.casefold() == key:
            return code
    if key in _SHORT:
        return _SHORT[key]
    raise ValueError(f'no language "{value.strip()[:40]}": pbp speaks ' +
                     ", ".join(f"{code} ({name})" for code, name in LANGUAGES.items()))


def catalog_path(code: str) -> Path:
    """The ``.po`` file of language ``code`` ("pt-BR" -> ``locale/pt_BR/LC_MESSAGES/pbp.po``)."""
    return LOCALE_DIR / code.replace("-", "_") / "LC_MESSAGES" / f"{DOMAIN}.po"


def compiled(code: str) -> _gettext.NullTranslations:
    """Language ``code``'s catalog as gettext reads it: English is the source (no catalog);
    the others are compiled from their ``.po`` in memory, fuzzy entries left out."""
    if code == DEFAULT_LANGUAGE:
        return _gettext.NullTranslations()
    with catalog_path(code).open("rb") as po:
        catalog = read_po(po, locale=code.replace("-", "_"), domain=DOMAIN)
    mo = BytesIO()
    write_mo(mo, catalog, use_fuzzy=False)
    mo.seek(0)
    return Translations(mo, domain=DOMAIN)


@dataclass(frozen=True)
class Language:
    """One language's words, passed to whatever writes for a campaign (the renderer, the
    explainer, the play modules): messages, plural forms, dates in its locale."""

    code: str
    translations: _gettext.NullTranslations = field(repr=False, compare=False)

    @property
    def locale(self) -> Locale:
        return Locale.parse(self.code, sep="-")

    @property
    def english(self) -> bool:
        return self.code == DEFAULT_LANGUAGE

    def gettext(self, message: str, **fields) -> str:
        """``message`` in this language, its ``{fields}`` filled in."""
        text = self.translations.gettext(message)
        return text.format(**fields) if fields else text

    def ngettext(self, singular: str, plural: str, n: int, **fields) -> str:
        """The form for ``n`` (the language's plural rule), ``{n}`` and the fields filled in."""
        return self.translations.ngettext(singular, plural, n).format(n=n, **fields)

    def say(self, text) -> str:
        """``text`` in this language: a :class:`Msg` from its catalog entry, its fields said
        too; any other text as it is (a name, a player's words)."""
        if isinstance(text, Joined) and not self.english:
            return "".join(str(self.say(part)) for part in text.parts)
        if isinstance(text, Sentence) and not self.english:
            return _sentence(str(self.say(text.inner)))
        if self.english or not isinstance(text, Msg):
            return text
        fields = {key: self._field(key, value) for key, value in text.fields.items()}
        if text.plural is not None:
            singular, plural, n = text.plural
            return self.translations.ngettext(singular, plural, n).format(**fields)
        return self.translations.gettext(text.msgid).format(**fields)

    def command(self, text: str) -> str:
        """An English command line (or lines) in this language's command words; the words
        pbp reads in this language are those of the command specification."""
        if self.english or not text:
            return text
        writer = COMMAND_WRITERS.get(self.code)
        return "\n".join(writer(line) for line in text.split("\n")) if writer else text

    def names(self, names) -> str:
        """Names listed with this language's "and" ("Ruth, Ethan e Cassandra")."""
        names = list(names)
        if len(names) < 2:
            return "".join(names)
        return self.gettext("{names} and {last}", names=", ".join(names[:-1]), last=names[-1])

    def _field(self, key: str, value):
        if isinstance(value, Msg):
            return self.say(value)
        if isinstance(value, Names):
            return self.names([str(self._field(key, n)) for n in value.names])
        if isinstance(value, CommandLine):
            return self.command(value)
        if isinstance(value, (Joined, Sentence)):
            return self.say(value)
        if isinstance(value, When):
            return self.when(value.dt)
        if isinstance(value, (list, tuple)):      # a list of names or sentences: ", "-joined
            return ", ".join(str(self._field(key, v)) for v in value)
        if key in WORD_FIELDS and isinstance(value, str):
            return self.gettext(value)
        return value

    def when(self, dt: datetime) -> str:
        """A deadline as the table reads it: "Tue 1 Dec 18:00 UTC", "ter. 1 dez. 18:00 UTC"."""
        if self.english:
            return f"{dt:%a} {dt.day} {dt:%b %H:%M} UTC"
        return format_datetime(dt, "EEE d MMM HH:mm", locale=self.locale) + " UTC"

    def stamp(self, dt: datetime) -> str:
        """When a post was received, with its year: "Tue 01 Dec 2026 18:00 UTC"."""
        if self.english:
            return dt.strftime("%a %d %b %Y %H:%M UTC")
        return format_datetime(dt, "EEE dd MMM yyyy HH:mm", locale=self.locale) + " UTC"


@lru_cache(maxsize=None)
def language(code: str | None = None) -> Language:
    """The :class:`Language` of ``code`` (any spelling :func:`language_code` reads), built
    once per process."""
    code = language_code(code)
    return Language(code, compiled(code))


def of_settings(settings) -> Language:
    """The language a campaign's settings name (``language``; English when none)."""
    return language((settings or {}).get("language"))


ENGLISH = Language(DEFAULT_LANGUAGE, _gettext.NullTranslations())
