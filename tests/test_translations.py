"""Every message pbp marks for translation has its Portuguese translation (issue 29).

The messages are extracted here from the source, as ``scripts/update-catalogs`` extracts them
(``babel.cfg``: the package's Python and the reply templates), so a developer who adds a
message and forgets its translation fails this test, whether or not they ran the script
(docs/translating.md). Each translation must keep its message's placeholders.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from pbp import i18n

ROOT = Path(__file__).resolve().parent.parent
#: Babel's keywords, and pbp's sentences (``pbp.i18n.Msg``, ``Msgs``), as scripts/update-catalogs passes them
KEYWORDS = {**DEFAULT_KEYWORDS, "Msg": None, "Msgs": (1, 2)}
LANGUAGES = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT_LANGUAGE]


def _extracted() -> dict[str, tuple[str, ...]]:
    """msgid -> its forms (singular, plural) for every message marked in pbp's source."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found: dict[str, tuple[str, ...]] = {}
    for _filename, _lineno, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=KEYWORDS):
        forms = message if isinstance(message, tuple) else (message,)
        if forms[0]:
            found[forms[0]] = forms
    return found


EXTRACTED = _extracted()


def _catalog(code: str):
    with i18n.catalog_path(code).open("rb") as po:
        return read_po(po, locale=code.replace("-", "_"))


_PERCENT = re.compile(r"%\((\w+)\)[sd]")
_BRACE = re.compile(r"(?<!\{)\{(\w+)(?:[!:][^}]*)?\}(?!\})")


def _fields(text: str) -> set[str]:
    return set(_PERCENT.findall(text)) | set(_BRACE.findall(text))


def test_messages_are_extracted():
    """The extraction finds the templates' and the code's messages (a test that looks at
    nothing cannot fail)."""
    assert "Nothing changed on any sheet; send the post again when it is fixed." in EXTRACTED
    assert len(EXTRACTED) > 40


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_is_translated(code):
    catalog = _catalog(code)
    missing, fuzzy = [], []
    for msgid in EXTRACTED:
        entry = catalog.get(msgid)
        strings = () if entry is None else (entry.string if isinstance(entry.string, tuple) else (entry.string,))
        if entry is None or not strings or not all(strings):
            missing.append(msgid)
        elif entry.fuzzy:
            fuzzy.append(msgid)
    assert not missing, (f"{len(missing)} message(s) without a {code} translation in {i18n.catalog_path(code)} "
                         f"(run scripts/update-catalogs, then translate; docs/translating.md):\n  "
                         + "\n  ".join(missing[:30]))
    assert not fuzzy, f"fuzzy (to check) in {code}: " + "; ".join(fuzzy[:30])


@pytest.mark.parametrize("code", LANGUAGES)
def test_translations_keep_their_placeholders(code):
    catalog = _catalog(code)
    wrong = []
    for msgid, forms in EXTRACTED.items():
        entry = catalog.get(msgid)
        if entry is None:
            continue
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        wanted = set().union(*(_fields(f) for f in forms))
        for s in strings:
            # a plural's singular may say its number in words, so {n}/%(num)s may go
            if s and _fields(s) - wanted or wanted - _fields(s) - {"n", "num"}:
                wrong.append(f"{msgid!r} -> {s!r}")
    assert not wrong, "placeholders differ:\n  " + "\n  ".join(wrong)
    assert not [problem for problem in catalog.check()], "Babel's checks of the catalog failed"


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_catalog_compiles_and_translates(code):
    language = i18n.language(code)
    assert language.code == code
    assert language.gettext("Nothing changed on any sheet; send the post again when it is fixed.") != \
        "Nothing changed on any sheet; send the post again when it is fixed."


def test_language_codes():
    assert i18n.language_code("pt-br") == i18n.language_code("pt_BR") == i18n.language_code("pt") == "pt-BR"
    assert i18n.language_code(None) == i18n.language_code("") == "en"
    with pytest.raises(ValueError, match="pt-BR"):
        i18n.language_code("klingon")


def test_accents_are_optional_when_typed():
    assert i18n.fold("Ótimo") == i18n.fold("otimo") == i18n.fold("OTIMO")
    assert i18n.fold("forçar") == "forcar"
