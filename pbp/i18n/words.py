"""The game's own words in each language: the ladder (with the forms that agree with what
they rate), the skills (with their grammatical gender) and the command language's words.

These are data rather than messages: a ladder word changes form with the skill it rates
("Luta Ótima", "Ofício Regular", "esforço Bom"), which a catalog's one string per message
cannot say. They are taken from the Portuguese rules text (Fate Condensed in Portuguese,
``tests/data/rules/fate-condensado-pt.txt``, docs/rules-texts.md) wherever it names them, and
where it does not, chosen as docs/jogar-em-portugues.md says.

A leaf: it imports nothing of pbp beyond :mod:`pbp.i18n`'s :func:`fold`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping


def _frozen(d: dict) -> Mapping:
    return MappingProxyType(d)


@dataclass(frozen=True)
class Rating:
    """One ladder value's word in its forms: masculine and feminine, singular and plural
    (Portuguese "Bom", "Boa", "Bons", "Boas")."""

    m: str
    f: str = ""
    mp: str = ""
    fp: str = ""

    def form(self, gender: str = "m", plural: bool = False) -> str:
        if gender == "f":
            return (self.fp or self.mp or self.f or self.m) if plural else (self.f or self.m)
        return (self.mp or self.m) if plural else self.m

    def forms(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(w for w in (self.m, self.f, self.mp, self.fp) if w))


def _r(m: str, f: str | None = None, mp: str | None = None, fp: str | None = None) -> Rating:
    """A rating's forms; the regular plural adds -s (-is for -el, -es for -r, -ns for -m)."""
    f = f or m

    def plural(w: str) -> str:
        if w.endswith("vel"):
            return w[:-3] + "veis"
        if w.endswith("r") or w.endswith("l"):
            return w + "es"
        if w.endswith("m"):
            return w[:-1] + "ns"
        return w + "s"
    return Rating(m, f, mp or plural(m), fp or plural(f))


@dataclass(frozen=True)
class GameWords:
    """A language's words for the game: ``ladder`` value -> :class:`Rating`; ``skills``: the
    English skill -> (its name, gender "m"/"f", plural); ``commands``: the command word (as
    ``pbp.parser.spec`` names it) -> its words in the language; ``keywords``: a grammar
    terminal -> the words it also reads, each with the English word it stands for."""

    ladder: Mapping[int, Rating] = field(default_factory=dict)
    skills: Mapping[str, tuple[str, str, bool]] = field(default_factory=dict)
    tracks: Mapping[str, str] = field(default_factory=dict)
    severities: Mapping[str, str] = field(default_factory=dict)
    #: a placeholder consequence's name ("Ferimento Moderado (a nomear)"): the noun by
    #: track, the severity's adjective agreeing with it, and the mark a player renames
    harm_nouns: Mapping[str, str] = field(default_factory=dict)
    placeholder_severities: Mapping[str, str] = field(default_factory=dict)
    to_be_named: str = "(to be named)"

    def rating(self, value: int, gender: str = "m", plural: bool = False) -> str | None:
        word = self.ladder.get(value)
        return word.form(gender, plural) if word else None

    def skill(self, english: str) -> str:
        return self.skills.get(english, (english, "m", False))[0]

    def gender(self, skill: str) -> tuple[str, bool]:
        """(gender, plural) of a skill by its name in this language (or in English)."""
        for english, (name, gender, plural) in self.skills.items():
            if skill.casefold() in (name.casefold(), english.casefold()):
                return gender, plural
        return "m", False


#: Fate Condensed in Portuguese. The text gives Medíocre (+0), Regular (+1), Razoável (+2),
#: Bom (+3), Ótimo (+4), and agrees them with the skill ("Luta Ótima", "Atletismo Medíocre",
#: "Investigação Regular") but not with "dificuldade" ("definida como Bom (+3)"): a rating
#: named alone, an effort or a difficulty, is masculine. The rest of the ladder is the
#: Brazilian Fate books' (Excepcional, Fantástico, Épico, Lendário; Ruim, Terrível), and
#: Catastrófico and Horripilante for -3 and -4 (a documented choice).
PT_LADDER = _frozen({
    8: _r("Lendário", "Lendária"),
    7: _r("Épico", "Épica"),
    6: _r("Fantástico", "Fantástica"),
    5: _r("Excepcional", "Excepcional", "Excepcionais", "Excepcionais"),
    4: _r("Ótimo", "Ótima"),
    3: _r("Bom", "Boa", "Bons", "Boas"),
    2: _r("Razoável"),
    1: _r("Regular"),
    0: _r("Medíocre"),
    -1: _r("Ruim"),
    -2: _r("Terrível"),
    -3: _r("Catastrófico", "Catastrófica"),
    -4: _r("Horripilante"),
})

#: The skills: Luta, Tiro, Atletismo, Provocação, Vontade, Investigação, Ofício and
#: Relacionamento are the text's; the others the Brazilian Fate Condensado's list.
PT_SKILLS = _frozen({
    "Academics": ("Conhecimento", "m", False),
    "Athletics": ("Atletismo", "m", False),
    "Burglary": ("Roubo", "m", False),
    "Contacts": ("Contatos", "m", True),
    "Crafts": ("Ofício", "m", False),
    "Deceive": ("Enganação", "f", False),
    "Drive": ("Condução", "f", False),
    "Empathy": ("Empatia", "f", False),
    "Fight": ("Luta", "f", False),
    "Investigate": ("Investigação", "f", False),
    "Lore": ("Saber", "m", False),
    "Notice": ("Percepção", "f", False),
    "Physique": ("Vigor", "m", False),
    "Provoke": ("Provocação", "f", False),
    "Rapport": ("Relacionamento", "m", False),
    "Resources": ("Recursos", "m", True),
    "Shoot": ("Tiro", "m", False),
    "Stealth": ("Furtividade", "f", False),
    "Will": ("Vontade", "f", False),
})

#: A placeholder consequence ("Moderate Wound (to be named)") is named by its noun, masculine
#: in Portuguese ("Ferimento", "Trauma"), and the severity agreeing with it ("Ferimento
#: Moderado (a nomear)"): a documented choice, the text naming consequences only by example.
PORTUGUESE = GameWords(ladder=PT_LADDER, skills=PT_SKILLS,
                       tracks=_frozen({"physical": "físico", "mental": "mental"}),
                       severities=_frozen({"mild": "suave", "moderate": "moderada", "severe": "severa"}),
                       harm_nouns=_frozen({"physical": "Ferimento", "mental": "Trauma", "Harm": "Dano",
                                           "Cost": "Custo", "Twist": "Reviravolta"}),
                       placeholder_severities=_frozen({"mild": "Suave", "moderate": "Moderado", "severe": "Severo",
                                                       "extreme": "Extremo"}),
                       to_be_named="(a nomear)")
ENGLISH_WORDS = GameWords()

GAME_WORDS: Mapping[str, GameWords] = _frozen({"en": ENGLISH_WORDS, "pt-BR": PORTUGUESE})
#: the GM as a command may name them (``/pace order Ruth, GM``), in every language: MJ, the
#: Portuguese text's "mestre de jogo"
GM_WORDS = frozenset({"gm", "mj"})
#: every language's mark of a placeholder name, to find one whatever the campaign's language
TO_BE_NAMED = tuple(dict.fromkeys(words.to_be_named for words in GAME_WORDS.values()))


@lru_cache(maxsize=4096)
def skill_in(name: str, code: str) -> str:
    """A skill named in any language, in language ``code``'s name ("Fight" or "Luta" ->
    "Luta" in pt-BR, "Fight" in English); a skill no language names stays as it is (a
    campaign's own skills, "Biting People")."""
    from pbp.i18n import fold

    key = fold(name)
    for words in GAME_WORDS.values():
        for english, (spelled, _gender, _plural) in words.skills.items():
            if key in (fold(english), fold(spelled)):
                return GAME_WORDS.get(code, ENGLISH_WORDS).skill(english)
    return name
