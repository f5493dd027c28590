"""The golden runner of tests/play/golden.py, with one addition for compels: ``reply: N.K``
answers the K-th mail of step N (a private mail such as "Compel #1 needs your approval"),
where ``reply: N`` answers the table's reply."""
from __future__ import annotations

from pbp.store import models as m
from tests.play import golden
from tests.play.table import MailTable, Step


def play(case: str, config) -> tuple[MailTable, str]:
    table = MailTable(config)
    out: list[str] = []
    for n, entry in enumerate(golden.read_script(golden.GOLDEN / case / "mails.txt"), start=1):
        dice = entry.headers.get("dice", "")
        if entry.who.startswith("tick "):
            step = table.tick(golden._time(entry.who[5:].strip()), dice=dice)
            out.append(f"=== {n} tick {entry.who[5:].strip()}: {len(step.replies)} mail(s)")
        else:
            reply = entry.headers.get("reply")
            to = None
            if reply:
                number, _, k = reply.partition(".")
                step_to = table.steps[int(number) - 1]
                to = Step(None, [step_to.replies[int(k or 1) - 1]])
            step = table.post(entry.who, entry.body, dice=dice, reply_to=to,
                              at=golden._time(entry.headers["at"]) if "at" in entry.headers else None)
            out.append(f"=== {n} {entry.who}: {step.status}")
        for r in step.replies:
            out.append(f"--- to: {', '.join(r.to)}")
            out.append(f"--- subject: {r.subject}")
            out.append(r.text.rstrip("\n"))
        out.append("")
    return table, "\n".join(out)


def check(case: str, config, update: bool) -> tuple[MailTable, str]:
    table, transcript = play(case, config)
    path = golden.GOLDEN / case / "expected.txt"
    if update or not path.exists():
        path.write_text(transcript, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if transcript != expected:
        import difflib
        diff = "\n".join(difflib.unified_diff(expected.splitlines(), transcript.splitlines(), "expected", "got",
                                              lineterm="", n=2))
        raise AssertionError(f"golden case {case} differs (rerun with --update-golden if intended):\n{diff[:6000]}")
    return table, transcript


def sheet(name: str) -> m.Character:
    return m.Character.get(m.Character.name == name)
