"""A hostile-sheet corpus: over 1,500 bad sheets, made deterministically by mutating the
sample sheets of pbp/samples/chicago (wrong types at every key, huge numbers, strings where
lists go, unicode tricks, unknown and missing keys, reserved and twin names, broken
creation rules, deep nesting, long strings, files that are not TOML or not UTF-8), each
imported into a campaign as an operator would, with `pbp character import`.

For every one: a SheetError and nothing else (no traceback, no MemoryError), in well under
a second, naming the key that is wrong, with examples that are themselves TOML, and
without echoing an invisible or line-breaking character. After the whole corpus the
campaign is exactly as it was, a post still plays through the pipeline and
`pbp sheet --json` still works for every character. Random sheets from hypothesis, last,
give a sheet or a SheetError and never anything else.
"""
from __future__ import annotations

import copy
import datetime as dt
import json
import math
import re
import resource
import time
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.cli import main
from pbp.demo import sample_dir
from pbp.errors import SheetError
from pbp.rules.systems import FATE_CONDENSED
from pbp.sheetfile import ASPECT_KEYS, KEYS, STUNT_KEYS, parse_sheet
from pbp.textsafety import bad_char
from tests import helpers

SAMPLES = sorted(p for p in sample_dir().glob("*.toml") if p.name != "campaign.toml")


# ---------------------------------------------------------------------------- writing TOML


def toml_value(v) -> str:
    """Any value as TOML (the stdlib reads TOML but does not write it)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007F")
    if isinstance(v, (dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def to_toml(data: dict) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in data.items())


# ---------------------------------------------------------------------------- the corpus

WRONG_TEXT = [7, True, 1.5, [], {"a": 1}, dt.date(2020, 1, 1)]
UNSAFE_TEXT = ["mallory\r\nReply-To: evil@x", "a\x00b", "a\x1b[31mb", "Ru\u202eth", "Ru\u200bth", "a\u2028b",
               "a\x7fb", "\u2066Ruth\u2069", "A" * 10_000]
WRONG_INT = [True, 2.5, "3", [], {}, 10 ** 19, -10 ** 19, 1_000_000_000, math.nan, math.inf, -1, dt.date(2020, 1, 1)]
WRONG_RATING = [True, 1.5, 10 ** 19, -100, 13, "Fiar", "+99999999999999999999", "x" * 10_000, [], {}, math.nan,
                1e20, "Fair (+3)"]
WRONG_LIST = ["Everyone Owes Me", 3, [1, 2], [["x"]], [{"a": 1}], ["ok", ""], ["x" * 5000], ["a"] * 1000, True,
              ["Ruth\r\nBcc: evil@x"]]
WRONG_STUNTS = ["Knife Thrower", {"name": "x"}, [1], [[]], 5, [{"name": "S"}] * 1000]
UNKNOWN_KEYS = [((), "refesh"), ((), "skils"), ((), "Name"), ((), "players"), (("aspects",), "hight_concept"),
                (("aspects",), "Other"), (("stunts", 0), "bonnus"), (("stress",), "box"),
                ((), "deep")]


class Case:
    """One bad sheet: its file content and the key (or file) its problem must name."""

    def __init__(self, label: str, content: bytes, expect: str) -> None:
        self.label, self.content, self.expect = label, content, expect


def set_path(data: dict, path: tuple, value) -> None:
    target = data
    for part in path[:-1]:
        target = target.setdefault(part, {}) if isinstance(part, str) else target[part]
    target[path[-1]] = value


def key_name(path: tuple) -> str:
    """The key as the problems write it: stunts[1].bonus, skills.Notice, aspects.other."""
    out = ""
    for part in path:
        out += f"[{part + 1}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def cases_for(sample: Path, n: int) -> list[Case]:
    base = tomllib.loads(sample.read_text())
    fresh = f"Mutant {sample.stem.title()} {n}"
    base["name"] = fresh
    if base.get("player"):
        base["player"] = f"{sample.stem}.mutant@pbp.localhost"
    kind = base.get("kind", "pc")
    cases: list[Case] = []

    def add(label: str, mutate, expect: str) -> None:
        data = copy.deepcopy(base)
        mutate(data)
        cases.append(Case(f"{sample.stem}: {label}", to_toml(data).encode(), expect))

    def put(path, value):
        return lambda d: set_path(d, path, value)

    def drop(path):
        def f(d):
            target = d
            for part in path[:-1]:
                target = target[part]
            del target[path[-1]]
        return f

    text_keys = [("name",), ("description",), ("kind",)]
    if kind == "pc":
        text_keys += [("player",), ("aspects", "high_concept"), ("aspects", "trouble")]
    if base.get("stunts"):
        text_keys += [("stunts", 0, k) for k in ("name", "skill", "circumstance", "description")]
    for path in text_keys:
        for value in WRONG_TEXT:
            add(f"{key_name(path)} = {value!r}", put(path, value), key_name(path))
    name_keys = [("name",)] + [p for p in text_keys if p[-1] in ("high_concept", "trouble") or p[-2:] == (0, "name")]
    for path in name_keys + [p for p in text_keys if p[-1] in ("circumstance", "description") and p[0] == "stunts"]:
        for value in UNSAFE_TEXT + ['"Quoted" Name'] * (path in name_keys):
            add(f"{key_name(path)} = {value[:30]!r}", put(path, value), key_name(path))
    for value in ["a\rb", "a\x00b", "a\u202eb", "a\u200bb", "x" * 5000]:
        add(f"description = {value[:30]!r}", put(("description",), value), "description")
    for value in ["", "   "]:
        add(f"name = {value!r}", put(("name",), value), "name")

    int_keys = [("refresh",), ("fate_points",)] + ([("stunts", 0, "bonus")] if base.get("stunts") else [])
    int_keys += [("stress", "boxes")] if kind == "minor" else []
    for path in int_keys:
        for value in WRONG_INT:
            add(f"{key_name(path)} = {str(value)[:30]}", put(path, value), key_name(path))
    for skill in list(base.get("skills", {}))[:2]:
        path = ("skills", skill)
        for value in WRONG_RATING:
            add(f"skills.{skill} = {str(value)[:30]}", put(path, value), "skills.")
    for path in [("aspects", "other"), ("aspects", "hidden")]:
        for value in WRONG_LIST:
            add(f"{key_name(path)} = {str(value)[:30]}", put(path, value), key_name(path))
    for value in WRONG_STUNTS:
        add(f"stunts = {str(value)[:30]}", put(("stunts",), value), "stunts")
    for value in [[], "x", 3, {"a": [1]}]:
        add(f"skills = {value!r}", put(("skills",), value) if value != {"a": [1]} else put(("skills",), value), "skills")
        add(f"aspects = {value!r}", put(("aspects",), value), "aspects")
    for path, key in UNKNOWN_KEYS:
        if path and path[0] == "stunts" and not base.get("stunts"):
            continue
        if path == ("stress",) and kind != "minor":
            continue
        nested = {"x": {"y": {"z": [[[{"w": 1}]]]}}} if key == "deep" else 1
        add(f"unknown {key_name(path + (key,))}", put(path + (key,), nested), key_name(path + (key,)))
    # Missing keys, reserved names, twins of the characters already in the campaign.
    add("no name", drop(("name",)), "name")
    if kind == "pc":
        for path in [("player",), ("aspects", "high_concept"), ("aspects", "trouble")]:
            add(f"no {key_name(path)}", drop(path), key_name(path))
        for value in ["ruth", "Ruth <ruth@pbp.localhost>", "ruth@pbp.localhost, evil@x", "ruth@@x", "a" * 300 + "@x.org",
                      "ruth@pbp.localhost\nBcc: evil@x", "<ruth@pbp.localhost>", "ruth@-x.org"]:
            add(f"player = {value[:30]!r}", put(("player",), value), "player")
    if base.get("stunts"):
        add("no stunts[1].name", drop(("stunts", 0, "name")), "stunts[1].name")
    for value in ["GM", "gm", "me", "ME", "Good", "legendary", "show", "Spend", "tie", "Style", "to", "With",
                  "Event", "decision"]:
        add(f"reserved name {value}", put(("name",), value), "name")
    own = tomllib.loads(sample.read_text())["name"]
    for value in [own.upper(), own.lower(), f"  {own}  ", own.replace(" ", "  ")]:
        add(f"twin name {value!r}", put(("name",), value), "name")
    # The creation rules.
    if kind == "pc":
        stunt = {"name": "S", "skill": "Fight", "action": "attack", "bonus": 2}
        many = lambda k: [dict(stunt, name=f"Stunt {i}") for i in range(k)]  # noqa: E731
        add("4 stunts at refresh 3", put(("stunts",), many(4)), "refresh")
        add("6 stunts", lambda d: (set_path(d, ("stunts",), many(6)), set_path(d, ("refresh",), 1)), "refresh")
        add("refresh 0", put(("refresh",), 0), "refresh")
        add("refresh 5", put(("refresh",), 5), "refresh")
        add("twin stunts", put(("stunts",), [dict(stunt, name="Tough"), dict(stunt, name="TOUGH")]), "stunts")
        add("twin aspects", put(("aspects", "other"), ["Tough", "tough"]), "aspects")
        add("skill Juggling", put(("skills", "Juggling"), 1), "skills")
        add("skill Poor", put(("skills", "Drive"), -1), "skills")
        add("two Great skills", lambda d: d["skills"].update({k: 4 for k in list(d["skills"])[:2]}), "skills")
        add("stress on a PC", put(("stress",), {"boxes": 2}), "stress")
        add("milestone_refresh 13", put(("milestone_refresh",), 13), "milestone_refresh")
        add("stunt action dodge", put(("stunts",), [dict(stunt, action="dodge")]), "stunts[1].action")
        add("stunt skill Kung Fu", put(("stunts",), [dict(stunt, skill="Kung Fu")]), "stunts")
    if kind == "minor":
        add("3 aspects", put(("aspects", "other"), ["A", "B", "C"]), "aspects")
        add("no aspects", put(("aspects", "other"), []), "aspects")
        add("4 boxes", put(("stress",), {"boxes": 4}), "stress")
        add("stress = 10**9", put(("stress",), 10 ** 9), "stress")
    if kind == "npc":
        add("milestone_refresh on an NPC", put(("milestone_refresh",), 1), "milestone_refresh")
    return cases


def file_cases(sample: Path) -> list[Case]:
    """Mutations of the file itself: not TOML, not UTF-8, too big, nested too deep."""
    text = sample.read_text().replace(f'name = "{tomllib.loads(sample.read_text())["name"]}"', 'name = "Raw Mutant"')
    raw = text.encode()
    out = [
        Case("truncated mid-string", raw[: raw.index(b'"') + 3], "not valid TOML"),
        Case("a byte that is not UTF-8", raw.replace(b"Mutant", b"Mut\xffant"), "not UTF-8"),
        Case("Latin-1", text.replace("Raw Mutant", "Rüdiger").encode("latin-1"), "not UTF-8"),
        Case("UTF-16", text.encode("utf-16"), "not UTF-8"),
        Case("a key twice", b'name = "Again"\n' + raw, "not valid TOML"),
        Case("deep arrays", raw + b"deep = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deep"),
        Case("deep inline tables", raw + b"deep = " + b"{a = " * 2000 + b"1" + b"}" * 2000 + b"\n", "nested too deep"),
        Case("a 30,000-part dotted key", raw + b"a." * 30_000 + b"b = 1\n", "dotted parts"),
        Case("a 30,000-part table header", raw + b"[" + b"a." * 30_000 + b"b]\n", "dotted parts"),
        Case("a 5,000-digit number", raw + b"fate_points = " + b"9" * 5000 + b"\n", "not a usable TOML sheet"),
        Case("100 KB of padding", raw + b"# " + b"x" * 100_000 + b"\n", "KiB"),
        Case("binary", bytes(range(256)) * 4, "not UTF-8"),
        Case("empty", b"", "name"),
        Case("only a comment", b"# a sheet\n", "name"),
        Case("NUL in the file", raw.replace(b"\n", b"\x00", 1), "not valid TOML"),
        Case("7,000 unknown keys", b"".join(b"k%d=1\n" % i for i in range(7000)) + raw, "6,990 more unknown keys"),
        Case("a 60,000-character key", b'"' + b"k" * 60_000 + b'" = 1\n' + raw, "unknown key"),
    ]
    return out


def corpus() -> list[Case]:
    """Every case, once (some mutations come out the same for two samples)."""
    unique: dict[bytes, Case] = {}
    for n, sample in enumerate(SAMPLES):
        for case in cases_for(sample, n) + file_cases(sample):
            unique.setdefault(case.content, case)
    return list(unique.values())


# ---------------------------------------------------------------------------- the test


@pytest.fixture
def cli_table(tmp_path, monkeypatch):
    """A table set up with the CLI: init, the chicago campaign, the sample characters."""
    return helpers.cli_table(tmp_path, monkeypatch, sheets=SAMPLES)


def state():
    """Everything an import could touch."""
    from pbp.store import models as m

    return ([(c.name, c.kind, c.player, c.skills, c.stunts, c.refresh, c.fate_points, c.stress, c.description)
             for c in m.Character.select().order_by(m.Character.id)],
            [(a.name, a.owner, a.kind, a.active, a.hidden) for a in m.Aspect.select().order_by(m.Aspect.id)],
            [(mb.email, mb.role) for mb in m.Member.select().order_by(m.Member.id)])


EXAMPLE = re.compile(r"; e\.g\. (.*)$")


def test_the_corpus_is_big():
    assert len(corpus()) >= 1000


@pytest.mark.slow
def test_every_hostile_sheet_is_a_clear_problem_fast_and_changes_nothing(cli_table, capsys):
    from pbp.campaigns import get_campaign, import_sheets

    cases = corpus()
    folder = cli_table / "corpus"
    folder.mkdir()
    paths = []
    for i, case in enumerate(cases):
        path = folder / f"{i:04d}.toml"
        path.write_bytes(case.content)
        paths.append(path)
    campaign = get_campaign("chicago")
    before = state()
    # Memory: the process's peak resident size (cheap, unlike tracemalloc, which would
    # also slow the timing down); a 10**9-box stress track would add gigabytes.
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for case, path in zip(cases, paths):
        # CPU time, not wall time: the guard is against work that explodes with the input (a
        # 10**9-box track), and a loaded machine (parallel workers, CI) must not trip it.
        start = time.process_time()
        ((_, outcome),) = import_sheets(campaign, [str(path)])   # anything but SheetError fails here
        elapsed = time.process_time() - start
        assert elapsed < 1.0, (case.label, elapsed)
        assert isinstance(outcome, SheetError), f"{case.label}: imported"
        pieces = [str(outcome), *outcome.problems, outcome.hint]
        text = " | ".join(pieces)
        assert str(path) in str(outcome), case.label
        assert case.expect in text, f"{case.label}: expected {case.expect!r} in {text}"
        assert bad_char(text) is None, f"{case.label}: echoes {bad_char(text)!r}"
        assert all(len(p) < 1000 for p in outcome.problems), case.label
        for problem in outcome.problems:
            example = EXAMPLE.search(problem)
            if example:
                try:                                   # every example is itself TOML
                    tomllib.loads(example.group(1))
                except tomllib.TOMLDecodeError as exc:
                    pytest.fail(f"{case.label}: example {example.group(1)!r} is not TOML: {exc}")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before
    assert grown_kib < 128 * 1024, f"peak memory grew by {grown_kib / 1024:.0f} MiB"
    assert state() == before

    # The whole corpus in one command line: every file reported, exit status 3 (bad input), no traceback.
    capsys.readouterr()
    assert main(["character", "import", *map(str, paths), "--campaign", "chicago"]) == 3
    out = capsys.readouterr()
    assert "Traceback" not in out.err and out.out == ""
    assert f"0 of {len(paths)} sheets imported, {len(paths)} failed" in out.err
    assert all(f"error: {p}" in out.err for p in paths[::50])
    assert state() == before

    # The table still plays: a post through the pipeline, and every sheet as JSON.
    post = cli_table / "post.eml"
    post.write_bytes((sample_dir() / "first-post.eml").read_bytes())
    assert main(["process", str(post), "--json", "--dice", "00++"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "applied" and result["results"][0]["outcome"] == "success", result
    for sample in SAMPLES:
        name = tomllib.loads(sample.read_text())["name"]
        assert main(["sheet", name, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["name"] == name


# ---------------------------------------------------------------------------- random sheets

SCALARS = st.one_of(st.booleans(), st.integers(), st.floats(), st.text(max_size=30),
                    st.sampled_from(["pc", "npc", "minor", "Fair", "+2", "ruth@pbp.localhost", "GM"]),
                    st.dates())
VALUES = st.recursive(SCALARS,
                      lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                      max_leaves=12)
SHEETS = st.fixed_dictionaries({}, optional={
    **{k: VALUES for k in KEYS},
    "aspects": st.fixed_dictionaries({}, optional={k: VALUES for k in ASPECT_KEYS}) | VALUES,
    "stunts": st.lists(st.fixed_dictionaries({}, optional={k: VALUES for k in STUNT_KEYS}) | VALUES, max_size=5)
              | VALUES,
    "skills": st.dictionaries(st.text(max_size=12) | st.sampled_from(FATE_CONDENSED.skills), VALUES, max_size=6),
})


@pytest.mark.slow
@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(SHEETS)
def test_random_sheets_give_a_sheet_or_a_sheet_error(data):
    """Whatever the TOML data: a valid sheet, or a SheetError whose problems each name a key
    and echo nothing invisible; never another exception."""
    try:
        sheet = parse_sheet(data, FATE_CONDENSED, source="random.toml")
    except SheetError as exc:
        assert exc.problems
        for problem in exc.problems:
            assert ": " in problem and bad_char(problem) is None, problem
    else:
        assert sheet.character.name and bad_char(sheet.character.name) is None
        assert all(-4 <= r <= 12 for r in sheet.character.skills.values())
