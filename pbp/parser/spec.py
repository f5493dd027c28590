"""One row per command word: everything the explainer and the docs need to know about it.

Adding a command means its grammar rule (``grammar/commands.lark``), one :class:`Spec`
row in :data:`SPECS`, its command type (:mod:`pbp.commands`), its builder method
(:mod:`pbp.parser.build`), its handler (:mod:`pbp.play`) and its docs. The tables the error
explainer reads (the examples, the command terminals, what each name is, the parts that
only come after a command word) are derived from the rows below, so nothing about one
command is written twice.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import Mapping

from pbp import i18n


@dataclass(frozen=True)
class Spec:
    """One command word.

    * ``word``: as written after ``/`` (``create`` has its own row: its own example).
    * ``terminal``: the grammar terminal that reads the word in command position.
    * ``who``: ``"anyone"`` or ``"gm"`` (the GM-only ones; their handlers refuse others).
    * ``example``: a working example, given with every error about the command.
    * ``gm_example``: ``/as NAME ...`` form, for the commands ``/as NAME`` may come before.
    * ``doc``: the section of docs/commands.md that documents it (a test checks it).
    * ``play``: explained by the play-by-post explainer (names by keyword and position)
      rather than the actions' (names by the keyword just before).
    * ``parts``: the keyword right after the command word (a terminal) -> the example of
      that part (``/fp give``, ``/scene end``); they also name the part in "did you mean".
    * ``roles``: the keyword a name follows (the command's own terminal included) -> what
      that name is; a tuple is indexed by how many names already follow the keyword.
    * ``text``: what a quoted text is, where only a quoted text is allowed.
    * ``lists``: the keyword that opens a comma list -> what one item of it is.
    * ``says``: a terminal -> how this command words it when it is expected (where the
      common wording does not fit).
    * ``words``: each language other than English -> the command's words in it, the
      documented one first (``/superar``; a short form after it), accents optional when
      typed; a campaign in that language reads them beside the English word
      (``pbp.parser.grammar``). Every row has every language's (tests/test_parser_spec.py).
    * ``examples``: each language -> a working example in its words, given with every error
      about the command in a campaign of that language.
    """

    word: str
    terminal: str
    example: str
    doc: str
    who: str = "anyone"
    gm_example: str | None = None
    play: bool = False
    parts: Mapping[str, str] = field(default_factory=dict)
    roles: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    text: str | None = None
    lists: Mapping[str, str] = field(default_factory=dict)
    says: Mapping[str, str] = field(default_factory=dict)
    words: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    examples: Mapping[str, str] = field(default_factory=dict)


_SKILL = "a skill name"
_FREE_COUNT = "the number of free invokes (1 if you leave it out)"
_ANSWER_DOC = "Compels and fate points"
_LONG_DOC = "Away, pace and your settings"

SPECS: tuple[Spec, ...] = (
    # -- the actions, dice, sheets and fate points
    Spec("roll", "_ROLL", "/roll 4dF+2", "Rolling dice", gm_example="/as Ghoul roll Fight",
         roles={"_ROLL": _SKILL}, says={"PLUS": "a modifier (+2, -1)"},
         words={"pt-BR": ('rolar',)}, examples={"pt-BR": '/rolar 4dF+2'}),
    Spec("overcome", "_OVERCOME", "/overcome Investigate vs Fair", "Overcome",
         gm_example="/as Ghoul overcome Athletics vs Fair", roles={"_OVERCOME": _SKILL},
         words={"pt-BR": ('superar',)}, examples={"pt-BR": '/superar Investigação contra Razoável'}),
    Spec("advantage", "_ADVANTAGE", '/advantage Crafts "On Fire" on Shoggoth vs Good', "Create an advantage",
         gm_example='/as Ghoul advantage Deceive "Feint" on Charles', roles={"_ADVANTAGE": _SKILL},
         says={"_ON": '"on" and who gets the aspect'},
         words={"pt-BR": ('criar-vantagem', 'vantagem')}, examples={"pt-BR": '/criar-vantagem Ofício "Em Chamas" em Shoggoth contra Bom'}),
    Spec("create", "_ADVANTAGE", '/create Crafts "On Fire" on Shoggoth vs Good', "Create an advantage",
         gm_example='/as Ghoul create Deceive "Feint" on Charles', roles={"_ADVANTAGE": _SKILL},
         says={"_ON": '"on" and who gets the aspect'},
         words={"pt-BR": ('criar',)}, examples={"pt-BR": '/criar Ofício "Em Chamas" em Shoggoth contra Bom'}),
    Spec("attack", "_ATTACK", '/attack Ghoul with Fight +invoke "Distracted" free', "Attack",
         gm_example="/as Ghoul attack Charles with Fight", roles={"_ATTACK": "the name of who you attack"},
         words={"pt-BR": ('atacar',)}, examples={"pt-BR": '/atacar Ghoul com Luta +invocar "Distraído" grátis'}),
    Spec("defend", "_DEFEND", "/defend Athletics", "Defend", gm_example="/as Ghoul defend Athletics",
         roles={"_DEFEND": _SKILL},
         words={"pt-BR": ('defender',)}, examples={"pt-BR": '/defender Atletismo'}),
    Spec("sheet", "_SHEET", "/sheet", "Sheets and fate points", roles={"_SHEET": "a character name",
                                                                       "_SET": "whose sheet the GM fixes"},
         parts={"_SET": "/sheet set Ruth fate_points=4"},
         says={"SETTING": "KEY=VALUE (fate_points=4, skills.Burglary=Average)"},
         words={"pt-BR": ('ficha',)}, examples={"pt-BR": '/ficha'}),
    Spec("fp", "FP", "/fp spend", "Sheets and fate points",
         parts={"GIVE": "/fp give Ruth 1", "TAKE": "/fp take Ruth 1", "_SPEND": '/fp spend "for the story detail"'},
         roles={"FP": "a character name", "_SHOW": "a character name", "GIVE": "a character name",
                "TAKE": "a character name"},
         words={"pt-BR": ('pd',)}, examples={"pt-BR": '/pd gastar'}),
    Spec("table", "_TABLE", "/table", "Sheets and fate points",
         words={"pt-BR": ('mesa',)}, examples={"pt-BR": '/mesa'}),
    Spec("as", "_AS", "/as Ghoul attack Charles with Fight", "The GM prefix `/as`", who="gm",
         roles={"_AS": "a character name"},
         words={"pt-BR": ('como',)}, examples={"pt-BR": '/como Ghoul atacar Charles com Luta'}),
    # -- play by post
    Spec("next", "_NEXT", "/next Ruth", "During a conflict", gm_example="/as Ghoul next Ruth", play=True,
         roles={"_NEXT": "who goes next (a character name)"},
         words={"pt-BR": ('próximo', 'proxima', 'próxima')}, examples={"pt-BR": '/próximo Ruth'}),
    Spec("done", "_DONE", "/done", "During a conflict", gm_example="/as Ghoul done", play=True,
         words={"pt-BR": ('pronto',)}, examples={"pt-BR": '/pronto'}),
    Spec("move", "_MOVE", '/move "Back Yard"', "During a conflict", gm_example="/as Ghoul move Dock", play=True,
         roles={"_MOVE": "a zone name", "_TO": "a zone name"},
         words={"pt-BR": ('mover',)}, examples={"pt-BR": '/mover "Quintal"'}),
    Spec("invoke", "_INVOKE", '/invoke "Deep Shadows" reroll', "Aspects and invokes",
         gm_example='/as Ghoul invoke "Hungry" free', play=True, roles={"_INVOKE": "an aspect name"},
         says={"REROLL": "an invoke option (reroll, oppose, free, fp, x2)", "REF": "a roll id like #142",
               "_ON": '"on" and the id of another roll (on #142)'},
         words={"pt-BR": ('invocar',)}, examples={"pt-BR": '/invocar "Sombras Profundas" rerrolar'}),
    Spec("absorb", "_ABSORB", '/absorb stress 2 mild "Nasty Bite"', "During a conflict",
         gm_example='/as Ghoul absorb stress 1 mild "Singed Fur"', play=True,
         roles={"SEVERITY": "a name for the consequence (in quotes if it has spaces)"},
         says={"_STRESS": '"stress" and the number of boxes'},
         words={"pt-BR": ('absorver',)}, examples={"pt-BR": '/absorver estresse 2 suave "Mordida Feia"'}),
    Spec("mech", "_MECH", "/mech in", "During a conflict", play=True,
         says={"MECH_MOVE": '"in" (into the cockpit) or "out"'},
         words={"pt-BR": ('meca',)}, examples={"pt-BR": '/meca entrar'}),
    Spec("concede", "_CONCEDE", '/concede "I flee into the sewers"', "During a conflict",
         gm_example='/as Ghoul concede "It flees into the sewers"', play=True, text="your terms in quotes",
         words={"pt-BR": ('conceder',)}, examples={"pt-BR": '/conceder "Eu fujo pelos esgotos"'}),
    Spec("treat", "_TREAT", '/treat Charles "Gaping Chest Wound" with Academics', "During a conflict",
         gm_example='/as Ghoul treat Ghoul "Singed Fur" with Physique', play=True,
         roles={"_TREAT": ("who you treat (a character name, or me)", "the consequence to treat"),
                "_WITH": _SKILL, "_AS": "a new name for the consequence", "_INVOKE": "an aspect name"},
         words={"pt-BR": ('tratar',)}, examples={"pt-BR": '/tratar Charles "Ferida no Peito" com Conhecimento'}),
    Spec("compel", "_COMPEL", '/compel Ruth "Hair-Trigger Temper" event "The bouncer\'s jibe sets you off"',
         "Compels and fate points", gm_example='/as Ghoul compel Ruth "Hair-Trigger Temper" event "The ghoul taunts you"',
         play=True, roles={"_COMPEL": ("who you compel (a character name, or me)", "the aspect to compel")},
         text="what happens, in quotes",
         words={"pt-BR": ('forçar',)}, examples={"pt-BR": '/forçar Ruth "Pavio Curto" evento "A provocação do segurança tira você do sério"'}),
    Spec("accept", "ANSWER", "/accept #12", _ANSWER_DOC, play=True,
         words={"pt-BR": ('aceitar',)}, examples={"pt-BR": '/aceitar #12'}),
    Spec("refuse", "ANSWER", "/refuse #12", _ANSWER_DOC, play=True,
         words={"pt-BR": ('recusar',)}, examples={"pt-BR": '/recusar #12'}),
    Spec("approve", "ANSWER", "/approve #12", _ANSWER_DOC, who="gm", play=True,
         words={"pt-BR": ('aprovar',)}, examples={"pt-BR": '/aprovar #12'}),
    Spec("deny", "ANSWER", '/deny #12 "off the mark"', _ANSWER_DOC, who="gm", play=True,
         words={"pt-BR": ('negar',)}, examples={"pt-BR": '/negar #12 "não faz sentido"'}),
    Spec("withdraw", "ANSWER", "/withdraw #12", _ANSWER_DOC, play=True,
         words={"pt-BR": ('retirar',)}, examples={"pt-BR": '/retirar #12'}),
    Spec("veto", "_VETO", '/veto #142 "Distracted" "a car cannot be distracted"', "Aspects and invokes", who="gm",
         play=True, roles={"_VETO": "the aspect of the invoke you veto", "REF": "the aspect of the invoke you veto"},
         words={"pt-BR": ('vetar',)}, examples={"pt-BR": '/vetar #142 "Distraído" "um carro não se distrai"'}),
    Spec("cost", "_COST", '/cost #142 minor "the alarm goes off"', "Costs", who="gm", play=True,
         says={"COST_LEVEL": '"minor" or "severe"', "REF": "the roll's id (#142)"},
         text="the cost, what happens, in quotes",
         words={"pt-BR": ('custo',)}, examples={"pt-BR": '/custo #12 menor "o alarme dispara"'}),
    Spec("detail", "_DETAIL", '/detail "The guard is my cousin"', _ANSWER_DOC,
         gm_example='/as Ghoul detail "The sewer grate is loose"', play=True, text="the story detail in quotes",
         words={"pt-BR": ('detalhe',)}, examples={"pt-BR": '/detalhe "Eu conheço o dono deste bar"'}),
    Spec("give", "GIVE", '/give "On Fire" to Ruth', "Aspects and invokes",
         gm_example='/as Ghoul give "Cornered" to Acolyte', play=True,
         roles={"GIVE": ("the aspect whose free invokes you give", "who gets them (a character name)"),
                "_TO": "who gets them (a character name)"},
         says={"INT": _FREE_COUNT},
         words={"pt-BR": ('dar',)}, examples={"pt-BR": '/dar "Em Chamas" Charles'}),
    Spec("help", "_HELP", "/help Charles", "Teamwork", gm_example="/as Ghoul help Acolyte", play=True,
         parts={"_FROM": "/help from Cassandra, Ruth"},
         roles={"_HELP": "the ally you help (a character name)", "_FROM": "an ally you ask for help"},
         lists={"_FROM": "ally"}, says={"REF": "a roll id like #142", "_ON": '"on" and the id of an open roll (on #142)'},
         words={"pt-BR": ('ajudar',)}, examples={"pt-BR": '/ajudar Ruth'}),
    Spec("advance", "_ADVANCE", "/advance skills.Lore=Fair skills.Empathy=Average", "Advancement", play=True,
         says={"SETTING": "a change to your sheet as KEY=VALUE (skills.Lore=Fair, aspects.trouble=\"...\")"},
         words={"pt-BR": ('avançar',)}, examples={"pt-BR": '/avançar skills.Saber=Razoável'}),
    Spec("again", "_AGAIN", '/again "the guards have gone"', "Copies, forwards and `/again`", play=True,
         text="what has changed, in quotes",
         words={"pt-BR": ('de-novo',)}, examples={"pt-BR": '/de-novo "os guardas foram embora"'}),
    Spec("recap", "_RECAP", "/recap", "The story so far: `/recap`", play=True,
         text="the GM's note that leads the recap, in quotes",
         words={"pt-BR": ('resumo',)}, examples={"pt-BR": '/resumo'}),
    Spec("settings", "_SETTINGS", "/settings tz=Europe/Lisbon quiet=23-08", _LONG_DOC, play=True,
         says={"SETTING": "a setting as KEY=VALUE (tz=Europe/Lisbon, quiet=23-08)"},
         words={"pt-BR": ('ajustes',)}, examples={"pt-BR": '/ajustes tz=America/Sao_Paulo quiet=23-08'}),
    Spec("mute", "_MUTE", '/mute "The Docks"', _LONG_DOC, play=True,
         roles={"_MUTE": "the scene to mute (its name; none: the scene of the thread you answer)"},
         words={"pt-BR": ('silenciar',)}, examples={"pt-BR": '/silenciar "As Docas"'}),
    Spec("unmute", "_UNMUTE", '/unmute "The Docks"', _LONG_DOC, play=True,
         roles={"_UNMUTE": "the scene to hear again (its name; none: the scene of the thread you answer)"},
         words={"pt-BR": ('dessilenciar',)}, examples={"pt-BR": '/dessilenciar "As Docas"'}),
    Spec("away", "_AWAY", '/away until 2026-12-14 "walking in the Alps"', _LONG_DOC, play=True,
         parts={"_UNTIL": "/away until 2026-12-14"},
         roles={"_AWAY": "whose player is away (a character name; the GM's form)",
                "_ALLY": "who may answer for your character meanwhile (a character name)"},
         text="a note for the table, in quotes",
         says={"DATE": "the day you are back, as YYYY-MM-DD (2026-12-14)",
               "_UNTIL": '"until" and the day you are back (until 2026-12-14)'},
         words={"pt-BR": ('ausente',)}, examples={"pt-BR": '/ausente até 2026-12-14 "de férias"'}),
    Spec("back", "_BACK", "/back", _LONG_DOC, play=True,
         roles={"_BACK": "whose player is back (a character name; the GM's form)"},
         words={"pt-BR": ('voltei',)}, examples={"pt-BR": '/voltei'}),
    Spec("pass", "_PASS", "/pass", _LONG_DOC, play=True, text="why you pass, in quotes",
         words={"pt-BR": ('passo',)}, examples={"pt-BR": '/passo'}),
    Spec("pace", "_PACE", "/pace order Ruth, Cassandra, GM", _LONG_DOC, who="gm", play=True,
         parts={"_ORDER": "/pace order Ruth, Cassandra, GM", "_ROUND": "/pace round"},
         roles={"_ORDER": "who posts (a character name, or GM)"}, lists={"_ORDER": "poster"},
         words={"pt-BR": ('ritmo',)}, examples={"pt-BR": '/ritmo ordem Ruth, Cassandra, GM'}),
    # -- the GM's table
    Spec("scene", "_SCENE", '/scene start "Warehouse" zones Dock, Office borders Dock-Office',
         "GM: scenes, aspects, conflicts, NPCs", who="gm", play=True,
         parts={"_START": '/scene start "Warehouse" zones Dock, Office borders Dock-Office', "_END": "/scene end"},
         roles={"_START": "the scene's name", "_ZONES": "a zone name", "_BORDERS": "a zone name"},
         lists={"_ZONES": "zone", "_BORDERS": "border (Dock-Office)"},
         says={"_WITH": '"with" and the NPCs in the scene (with Ghoul)'},
         words={"pt-BR": ('cena',)}, examples={"pt-BR": '/cena iniciar "O Armazém"'}),
    Spec("reveal", "_REVEAL", "/reveal", "GM: scenes, aspects, conflicts, NPCs", who="gm", play=True,
         says={"REF": "a secret roll's id (#3), or nothing for the scene's seed"},
         words={"pt-BR": ('revelar',)}, examples={"pt-BR": '/revelar'}),
    Spec("hold", "_HOLD", "/hold #3", "Secret and blind rolls", who="gm", play=True,
         says={"REF": "the secret roll's id (#3)"},
         words={"pt-BR": ('reter',)}, examples={"pt-BR": '/reter #3'}),
    Spec("session", "_SESSION", "/session end", "GM: scenes, aspects, conflicts, NPCs", who="gm", play=True,
         parts={"_END": "/session end"},
         words={"pt-BR": ('sessão',)}, examples={"pt-BR": '/sessão fim'}),
    Spec("milestone", "_MILESTONE", "/milestone minor", "GM: scenes, aspects, conflicts, NPCs", who="gm", play=True,
         says={"LEVEL": '"minor" or "major"', "SIGNIFICANT": '"significant" (Fate Core)',
               "POWER": '"power" (the GM\'s extra refresh and raise at a major milestone)'},
         words={"pt-BR": ('marco',)}, examples={"pt-BR": '/marco menor'}),
    Spec("aspect", "_ASPECT", '/aspect add "Deep Shadows" on Office free 1', "GM: scenes, aspects, conflicts, NPCs",
         who="gm", play=True,
         parts={"_ADD": '/aspect add "Deep Shadows" on Office free 1', "_REMOVE": '/aspect remove "Deep Shadows"',
                "_RENAME": '/aspect rename "Nasty Bite" to "Bandaged Bite"',
                "_SET": '/aspect set "Veiled" scale=Supernatural'},
         roles={"_ADD": "the aspect's name", "_REMOVE": "the aspect's name", "_RENAME": "the aspect's name",
                "_TO": "the aspect's new name", "_ON": "a zone or character name", "_SET": "the aspect's name",
                "_SCALE": "a level of scale (Supernatural)"},
         says={"FREE": 'an option ("on" and a zone or character, "free" and a number, "hidden", "scale" and a '
                       'level)', "SETTING": "KEY=VALUE (scale=Supernatural)"},
         words={"pt-BR": ('aspecto', 'aspectos')}, examples={"pt-BR": '/aspecto adicionar "Sombras Profundas" gratis 1'}),
    Spec("conflict", "_CONFLICT", "/conflict start Ruth, Ghoul first Ruth", "GM: scenes, aspects, conflicts, NPCs",
         who="gm", play=True, parts={"_START": "/conflict start Ruth, Ghoul first Ruth", "_END": "/conflict end"},
         roles={"_START": "a character who takes part", "_FIRST": "who acts first"},
         lists={"_START": "character"},
         words={"pt-BR": ('conflito',)}, examples={"pt-BR": '/conflito iniciar Ruth, Charles contra Ghoul'}),
    Spec("challenge", "_CHALLENGE", "/challenge start Yacht tasks Burglary vs Good, Athletics vs Fair",
         "Challenges and contests", who="gm", play=True,
         parts={"_START": "/challenge start Yacht tasks Burglary vs Good, Athletics vs Fair",
                "_END": "/challenge end"},
         roles={"_START": "the challenge's name", "_TASKS": _SKILL, "_COMMA": _SKILL,
                "_VS": "a difficulty or an opposing character", "_FOR": "who may take the tasks"},
         lists={"_TASKS": "task (a skill vs a difficulty)", "_FOR": "character"},
         says={"_HOURS": '"hours" and the hours until the deadline'},
         words={"pt-BR": ('desafio',)}, examples={"pt-BR": '/desafio iniciar "A Ponte" tarefas Atletismo contra Bom, Ofício contra Razoável'}),
    Spec("contest", "_CONTEST", '/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal"',
         "Challenges and contests", who="gm", play=True,
         parts={"_START": '/contest start Chase Ruth, Charles "escape" vs Ghoul "a meal"',
                "_TWIST": '/contest twist "Loose Rubble"', "_END": "/contest end"},
         roles={"_START": ("the contest's name", "who is on the first side"), "_VS": "who is on the next side",
                "_THREAT": "the threat's name", "_WITH": "the skill the threat attacks with",
                "_TWIST": "the new situation aspect"},
         lists={"_START": "character", "_VS": "character"},
         says={"_VICTORIES": '"victories" and how many win', "_HOURS": '"hours" and the hours of each exchange',
               "QUOTED": "the side's intent, in quotes"},
         words={"pt-BR": ('disputa',)}, examples={"pt-BR": '/disputa iniciar Perseguição Ruth "escapar" contra Ghoul "alcançá-la"'}),
    Spec("place", "_PLACE", "/place Ruth in Dock", "GM: scenes, aspects, conflicts, NPCs", who="gm", play=True,
         roles={"_PLACE": "who you place (a character name)", "_IN": "a zone name",
                "_WITH": "whose side they join (someone in the conflict)"},
         words={"pt-BR": ('colocar',)}, examples={"pt-BR": '/colocar Ruth em "Doca de Carga"'}),
    Spec("npc", "_NPC", '/npc add Ghoul aspects "Hungry Ghoul" skills Fight Fair stress 2',
         "GM: scenes, aspects, conflicts, NPCs", who="gm", play=True,
         parts={"_ADD": '/npc add Ghoul aspects "Hungry Ghoul" skills Fight Fair stress 2',
                "_JOIN": '/npc join Ghoul, "Masked Acolyte"', "_DEFEND": "/npc defend Ghoul with Athletics"},
         roles={"_ADD": "the name of the new character", "LEVEL": "an aspect name", "_ASPECT": "an aspect name",
                "_SKILLS": _SKILL, "_DEFEND": _SKILL, "_JOIN": "an NPC's name"},
         lists={"LEVEL": "aspect", "_ASPECT": "aspect", "_SKILLS": "skill and its rating", "_DEFEND": "skill"},
         words={"pt-BR": ('pnj',)}, examples={"pt-BR": '/pnj adicionar Capanga menor "Capanga Brutamontes" habilidades Luta Razoável estresse 1'}),
)

BY_WORD: Mapping[str, Spec] = MappingProxyType({spec.word: spec for spec in SPECS})

# ---------------------------------------------------------------------------- derived tables

EXAMPLES: dict[str, str] = {spec.word: spec.example for spec in SPECS}
"""A working example of each command word, given with every error about that command."""

GM_EXAMPLES: dict[str, str] = {spec.word: spec.gm_example for spec in SPECS if spec.gm_example}
"""The ``/as NAME ...`` example of each command ``/as NAME`` may come before."""

PART_EXAMPLES: dict[str, dict[str, str]] = {spec.word: dict(spec.parts) for spec in SPECS if spec.parts}
"""Commands with parts after the command word: the example for the part that was written."""

COMMAND_NAMES: tuple[str, ...] = tuple(EXAMPLES)
"""Every command word the grammar knows (``create`` is ``advantage``; ``as`` is the GM prefix)."""

ACTION_NAMES: tuple[str, ...] = tuple(GM_EXAMPLES)
"""The commands ``/as NAME`` may come before."""

PLAY_ACTOR_NAMES: tuple[str, ...] = tuple(s.word for s in SPECS if s.play and s.gm_example)
"""The play-by-post commands ``/as NAME`` may come before (not the four actions and /roll)."""

PLAY_COMMANDS = frozenset(spec.word for spec in SPECS if spec.play)

COMMAND_TERMINALS = frozenset(spec.terminal for spec in SPECS)

GM_ONLY: tuple[str, ...] = tuple(spec.word for spec in SPECS if spec.who == "gm")


def _canonical() -> dict[str, str]:
    """A terminal that reads one command word only (``aspects`` is ``aspect``) -> that word."""
    words: dict[str, list[str]] = {}
    for spec in SPECS:
        words.setdefault(spec.terminal, []).append(spec.word)
    return {terminal: names[0] for terminal, names in words.items() if len(names) == 1}


CANONICAL = _canonical()
"""A command terminal that stands for one word -> the word; the others (``ANSWER``,
``_ADVANTAGE``) name the word as written."""

NAME_ROLES: dict[str, str] = {
    # the keywords of the actions' shared parts (opposition, modifiers) and of /as
    "_WITH": _SKILL, "_USING": _SKILL, "PLUS": _SKILL, "_VS": "an opposing character",
    "_ON": "a character name", "_INVOKE": "an aspect name", "_STUNT": "a stunt name",
}
"""For the actions, dice, sheets and fate points: the keyword a name follows -> what the name is."""
for _spec in SPECS:
    if not _spec.play:
        NAME_ROLES.update(_spec.roles)  # type: ignore[arg-type]

PLAY_ROLES: dict[tuple[str, str], str | tuple[str, ...]] = {
    (spec.word, keyword): role for spec in SPECS if spec.play for keyword, role in spec.roles.items()}
"""For the play-by-post and GM commands: (command, keyword) -> what the name after it is."""

PLAY_TEXTS: dict[str, str] = {spec.word: spec.text for spec in SPECS if spec.text}
LIST_ITEMS: dict[tuple[str, str], str] = {
    (spec.word, keyword): item for spec in SPECS for keyword, item in spec.lists.items()}


def _part_of() -> dict[str, tuple[str, str]]:
    """A keyword that only comes after a command word (``end``) -> the commands it is part
    of in words, and the example of the first: for "unknown command", "did you mean ...?"."""
    found: dict[str, list[Spec]] = {}
    for spec in SPECS:
        for keyword in spec.parts:
            found.setdefault(keyword, []).append(spec)
    part_of = {}
    for keyword, specs in found.items():
        written = keyword.strip("_").lower()
        names = [f"/{spec.word} {written}" for spec in specs]
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        part_of[keyword] = (joined, specs[0].parts[keyword])
    return part_of


PART_OF = _part_of()


def says(command: str, terminal: str, default: str) -> str:
    """How ``command`` words ``terminal`` when the parser expects it."""
    spec = BY_WORD.get(command)
    return spec.says.get(terminal, default) if spec is not None else default


#: The words after the command word, in each language other than English: a grammar
#: terminal -> {the word in the language: the English word it stands for}. A campaign in the
#: language reads them beside the English ones, accents optional (docs/jogar-em-portugues.md).
KEYWORDS: Mapping[str, Mapping[str, Mapping[str, str]]] = MappingProxyType({
    "pt-BR": MappingProxyType({
        "_WITH": {"com": "with"},
        "_VS": {"contra": "vs"},
        "_USING": {"usando": "using"},
        "_ON": {"em": "on", "no": "on", "na": "on", "sobre": "on"},
        "DISCOVER": {"descobrir": "discover"},
        "_STUNT": {"façanha": "stunt"},
        "REROLL": {"rerrolar": "reroll"},
        "OPPOSE": {"opor": "oppose"},
        "FREE": {"grátis": "free", "gratuita": "free", "gratuito": "free"},
        "IF": {"se": "if"},
        "_NEEDED": {"preciso": "needed", "necessário": "needed"},
        "FOR_STYLE": {"para estilo": "for style"},
        "OUTCOME": {"empate": "tie", "falha": "fail", "estilo": "style"},
        "TAKING": {"impulso": "boost", "custo": "cost"},
        "_SHOW": {"mostrar": "show"},
        "_SPEND": {"gastar": "spend"},
        "TAKE": {"tirar": "take"},
        "_SET": {"mudar": "set"},
        "_TO": {"para": "to"},
        "_START": {"iniciar": "start", "começar": "start"},
        "_END": {"fim": "end", "terminar": "end", "encerrar": "end"},
        "_ZONES": {"zona": "zone", "zonas": "zones"},
        "_BORDERS": {"fronteira": "border", "fronteiras": "borders"},
        "_ADD": {"adicionar": "add"},
        "_JOIN": {"entrar": "join"},
        "_REMOVE": {"remover": "remove"},
        "_RENAME": {"renomear": "rename"},
        "HIDDEN": {"oculto": "hidden", "oculta": "hidden"},
        "SECRECY": {"secreto": "secret", "secreta": "secret", "cego": "blind", "cega": "blind",
                    "aberto": "open", "aberta": "open"},
        "_FIRST": {"primeiro": "first", "primeira": "first"},
        "_SKILLS": {"habilidade": "skill", "habilidades": "skills"},
        "LEVEL": {"menor": "minor", "maior": "major"},
        "COST_LEVEL": {"menor": "minor", "severo": "severe"},
        "_STRESS": {"estresse": "stress"},
        "BOX": {"caixa": "box"},
        "SEVERITY": {"suave": "mild", "moderada": "moderate", "severa": "severe"},
        "CONFLICT_KIND": {"físico": "physical", "física": "physical"},
        "COMPEL_KIND": {"evento": "event", "decisão": "decision"},
        "MECH_MOVE": {"entrar": "in", "sair": "out"},
        "_FROM": {"de": "from"},
        "_TASKS": {"tarefa": "task", "tarefas": "tasks"},
        "_FOR": {"para": "for"},
        "_HOURS": {"hora": "hour", "horas": "hours"},
        "_TWIST": {"reviravolta": "twist"},
        "_THREAT": {"ameaça": "threat"},
        "_VICTORIES": {"vitória": "victory", "vitórias": "victories"},
        "_DIFFICULTY": {"dificuldade": "difficulty"},
        "_UNTIL": {"até": "until"},
        "_ALLY": {"aliado": "ally"},
        "_ORDER": {"ordem": "order"},
        "_ROUND": {"rodada": "round"},
    }),
})


def aliases(language: str) -> dict[str, dict[str, str]]:
    """Every word a campaign in ``language`` reads beside the English ones: a grammar
    terminal -> {word: the English word it stands for}; the command words from the rows'
    ``words``, the others from :data:`KEYWORDS`. English: none."""
    found: dict[str, dict[str, str]] = {}
    for spec in SPECS:
        for word in spec.words.get(language, ()):
            found.setdefault(spec.terminal, {})[word] = spec.word
    for terminal, words in KEYWORDS.get(language, {}).items():
        found.setdefault(terminal, {}).update(words)
    return found


def examples_in(language: str) -> dict[str, str]:
    """Each command's working example in ``language`` (the English one where a row has none)."""
    return {spec.word: spec.examples.get(language, spec.example) for spec in SPECS}


#: English words that read one way in a command line and are written with a chosen word of a
#: language where its keywords give several ("in" is the zone of /place: Portuguese "em")
_WRITTEN_AS: Mapping[str, Mapping[str, str]] = MappingProxyType({
    "pt-BR": MappingProxyType({"in": "em", "out": "sair", "for": "para", "start": "iniciar", "end": "fim",
                               "free": "grátis", "zones": "zonas", "zone": "zona", "borders": "fronteiras",
                               "border": "fronteira", "tasks": "tarefas", "task": "tarefa", "hours": "horas",
                               "hour": "hora", "victories": "vitórias", "victory": "vitória", "skills": "habilidades",
                               "skill": "habilidade", "hidden": "oculto", "first": "primeiro", "secret": "secreto",
                               "blind": "cego", "open": "aberto", "NAME": "NOME", "SKILL": "HABILIDADE"}),
})
_TOKEN = re.compile(r'"[^"]*"|\S+')


@lru_cache(maxsize=None)
def _writing(language: str) -> tuple[dict[str, str], dict[str, str]]:
    """(command word -> its word in ``language``, English keyword -> its word in ``language``)."""
    commands = {spec.word: spec.words[language][0] for spec in SPECS if spec.words.get(language)}
    keywords: dict[str, str] = {}
    for words in KEYWORDS.get(language, {}).values():
        for local, english in words.items():
            keywords.setdefault(english, local)
    keywords.update(_WRITTEN_AS.get(language, {}))
    return commands, keywords


def written_in(line: str, language: str) -> str:
    """An English command line pbp suggests (an error's example, an ask's "for example") in
    ``language``'s words: the command word, the keywords, the skills and ladder words; names
    and quoted text as they are. Only words the language's parser reads are written, so the
    line plays as the English one does (the English words are read everywhere too)."""
    stripped = line.lstrip()
    if not stripped.startswith(("/", "+")) and not stripped.startswith("  /"):
        return line
    from pbp.i18n.words import GAME_WORDS, skill_in
    from pbp.rules.ladder import LADDER

    commands, keywords = _writing(language)
    ladder = GAME_WORDS[language].ladder if language in GAME_WORDS else {}
    by_word = {name.casefold(): value for value, name in LADDER.items()}
    out, verb_in = [], 0        # verb_in: tokens until the command word of "/as NAME VERB"
    for match in _TOKEN.finditer(line):
        token = match.group(0)
        word = token
        verb_in -= 1
        if token.startswith('"'):
            pass
        elif token.startswith("/") and token[1:] in commands:
            word = "/" + commands[token[1:]]
            verb_in = 2 if token[1:] == "as" else 0
        elif verb_in == 0 and token in commands:
            word = commands[token]
        elif token.startswith("+") and token[1:] in commands:
            word = "+" + commands[token[1:]]
        elif "." in token and "=" in token:          # skills.Fight=Good
            key, _, value = token.partition("=")
            head, _, skill = key.partition(".")
            rated = by_word.get(value.casefold())
            value = ladder[rated].m if rated is not None and rated in ladder else value
            word = f"{head}.{skill_in(skill, language)}={value}"
        elif token.casefold() in by_word and by_word[token.casefold()] in ladder:
            word = ladder[by_word[token.casefold()]].m
        elif token in keywords:
            word = keywords[token]
        else:
            word = skill_in(token, language)
        out.append((match.start(), match.end(), word))
    text, at = [], 0
    for start, end, word in out:
        text.append(line[at:start] + word)
        at = end
    return "".join(text) + line[at:]


for _language in {code for spec in SPECS for code in spec.words}:
    i18n.COMMAND_WRITERS[_language] = functools.partial(written_in, language=_language)
