"""Committed dice (issue 25, docs/verify.md): each scene's seed is committed to in its first
reply and revealed at its end; every roll follows from the seed and the post that asked, and
the standalone verifier (pbp/verify_dice.py) recomputes them from the players' saved mails."""
from __future__ import annotations

import email
import re
import subprocess
import sys
from email import policy
from pathlib import Path

import pytest

from pbp import verify_dice
from pbp.demo import create_sample_campaign
from pbp.store import models as m
from pbp.store.repo import verify_ledger
from tests.play.table import MailTable, address

# (system, a player's character, a skill on their sample sheet)
SYSTEMS = [("fate-condensed", "Cassandra", "Contacts"), ("fate-core", "Charles", "Athletics"),
           ("dresden-files-condensed", "Marcus", "Athletics"), ("early-fate", "Jet", "Athletics"),
           ("d10-pool", "Charles", "\"Notice Carefully\"")]


def save_mails(folder: Path, reader: str) -> Path:
    """Every mail pbp sent to ``reader``, as they would save it (one .eml each)."""
    folder.mkdir(parents=True, exist_ok=True)
    for row in m.OutboxMail.select().order_by(m.OutboxMail.id):
        if reader in row.recipients:
            (folder / f"{row.id:04d}.eml").write_text(row.raw, encoding="utf-8")
    return folder


def decoded(raw: str) -> str:
    """A mail's plain text and HTML as a reader sees them (transfer encoding undone)."""
    msg = email.message_from_string(raw, policy=policy.default)
    return verify_dice.mail_text(msg) + msg.get_body(("html",)).get_content()


def play_scene(config, system: str, who: str, skill: str) -> MailTable:
    create_sample_campaign(system)
    mt = MailTable(config, committed=True)
    start = mt.post("GM", '/scene start "The Docks"\n')
    assert start.status == "applied", start.text
    assert "Dice: committed to" in start.text and "pbp-dice/2 commit scene=" in start.text, start.text
    rolls = "/roll 6d10\n" if system == "d10-pool" else "/roll\n/roll 2d6\n"
    first = mt.post(who, f"I try.\n/overcome {skill} vs Fair\n{rolls}")
    assert first.status == "applied", first.text
    second = mt.post(who, f"Again.\n/roll {skill}\n")
    assert second.status == "applied", second.text
    end = mt.post("GM", "/scene end\n")
    assert end.status == "applied", end.text
    assert "pbp-dice/2 reveal scene=" in end.text
    return mt


@pytest.mark.parametrize("system, who, skill", SYSTEMS)
def test_the_verifier_recomputes_every_roll_of_a_scene_from_the_mails(db, config, tmp_path, system, who, skill):
    play_scene(config, system, who, skill)
    mails = save_mails(tmp_path / "mails", address(who))
    good, bad = verify_dice.verify(mails)
    assert not bad, bad
    thrown = re.search(r"(\d+) throws recomputed", " ".join(good))
    assert thrown and int(thrown.group(1)) >= 3, good
    # the ledger binds commitment, rolls and reveal in order
    campaign = m.Campaign.get()
    actions = [r.action for r in m.RollRecord.select().where(m.RollRecord.campaign == campaign)
               .order_by(m.RollRecord.id)]
    assert actions[0] == "dice_commit" and actions[-1] == "dice_reveal", actions
    assert not verify_ledger(campaign)


def _edit(mails: Path, change) -> None:
    """Apply ``change`` to the plain text of the first mail it alters (as a forger would)."""
    for path in sorted(mails.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        text = verify_dice.mail_text(msg)
        changed = change(text)
        if changed != text:
            msg.get_body(("plain",)).set_content(changed)
            path.write_bytes(msg.as_bytes())
            return
    raise AssertionError("nothing to change")


def _change_one_die(text: str) -> str:
    def flip(match):
        faces = match.group(2)
        new = ("0" if faces[0] != "0" else "+") + faces[1:]
        return match.group(1) + new
    return re.sub(r"(t0=#\d+:4dF:)([-0+]{4})", flip, text, count=1)


def _change_seed(text: str) -> str:
    return re.sub(r"seed=([0-9a-f])", lambda mm: "seed=" + ("1" if mm.group(1) != "1" else "2"), text, count=1)


def _reorder(text: str) -> str:
    """Swap the faces of a post's first two throws of the same kind (roll #N shows #M's dice)."""
    line = next((ln for ln in text.splitlines() if ln.lstrip("\u2503 ").startswith("pbp-dice/2 scene=")), None)
    if line is None:
        return text
    throws = re.findall(r"t(\d+)=(#\d+):(\w+):(\S+)", line)
    for a in throws:
        for b in throws:
            if a[0] < b[0] and a[2] == b[2] and a[3] != b[3]:
                new = line.replace(f"t{a[0]}={a[1]}:{a[2]}:{a[3]}", f"t{a[0]}={a[1]}:{a[2]}:{b[3]}", 1)
                new = new.replace(f"t{b[0]}={b[1]}:{b[2]}:{b[3]}", f"t{b[0]}={b[1]}:{b[2]}:{a[3]}", 1)
                return text.replace(line, new)
    return text


@pytest.mark.parametrize("change, found", [
    (_change_one_die, "but the seed gives"),
    (_change_seed, "does not match the commitment"),
])
def test_the_verifier_flags_a_changed_die_and_a_changed_seed(db, config, tmp_path, change, found):
    play_scene(config, "fate-condensed", "Cassandra", "Contacts")
    mails = save_mails(tmp_path / "mails", address("Cassandra"))
    assert not verify_dice.verify(mails)[1]
    _edit(mails, change)
    bad = verify_dice.verify(mails)[1]
    assert len(bad) == 1 and found in bad[0], bad


def test_the_verifier_flags_a_reordered_roll(db, config, tmp_path):
    """Two throws' faces exchanged (until they differ), or two posts' mails swapped."""
    for attempt in range(20):
        m.OutboxMail.delete().execute()
        m.Message.delete().execute()    # a new campaign: its posts are not copies of the last try's
        m.Campaign.delete().execute()
        play_scene(config, "fate-condensed", "Cassandra", "Contacts")
        mails = save_mails(tmp_path / f"mails{attempt}", address("Cassandra"))
        try:
            _edit(mails, _reorder)
        except AssertionError:
            continue            # all the post's Fate throws came out alike: play the scene again
        bad = verify_dice.verify(mails)[1]
        assert len(bad) == 2 and all("but the seed gives" in b for b in bad), bad
        break
    else:
        raise AssertionError("no scene with two different throws in 20 tries")


def test_the_verifier_flags_rolls_out_of_order(db, config, tmp_path):
    play_scene(config, "fate-condensed", "Cassandra", "Contacts")
    mails = save_mails(tmp_path / "mails", address("Cassandra"))
    dated = []
    for path in sorted(mails.glob("*.eml")):
        msg = email.message_from_bytes(path.read_bytes(), policy=policy.default)
        if "pbp-dice/2 scene=" in verify_dice.mail_text(msg):
            dated.append((path, msg))
    (a, ma), (b, mb) = dated[:2]
    da, db_ = ma["Date"], mb["Date"]
    del ma["Date"], mb["Date"]
    ma["Date"], mb["Date"] = db_, da
    a.write_bytes(ma.as_bytes())
    b.write_bytes(mb.as_bytes())
    bad = verify_dice.verify(mails)[1]
    assert any("out of order" in line for line in bad), bad


def test_an_unrevealed_scene_is_reported_not_checked(db, config, tmp_path):
    create_sample_campaign()
    mt = MailTable(config, committed=True)
    mt.post("GM", '/scene start "The Docks"\n')
    mt.post("Cassandra", "/roll\n")
    good, bad = verify_dice.verify(save_mails(tmp_path / "mails", address("Cassandra")))
    assert not bad and "not revealed yet" in good[0], good


def test_the_seed_is_in_no_mail_before_the_reveal(db, config, tmp_path):
    create_sample_campaign()
    mt = MailTable(config, committed=True)
    mt.post("GM", '/scene start "The Docks"\n')
    mt.post("Cassandra", "/roll\n")
    seed = m.SceneSeed.get().seed
    assert all(seed not in decoded(row.raw) for row in m.OutboxMail.select())
    assert seed not in str(m.Campaign.get().play)
    mt.post("GM", "/scene end\n")
    assert any(seed in decoded(row.raw) for row in m.OutboxMail.select())


def test_fixed_dice_override_the_derivation(db, config):
    create_sample_campaign()
    mt = MailTable(config, committed=True)
    mt.post("GM", '/scene start "The Docks"\n')
    step = mt.post("Cassandra", "/roll\n", dice="++++")
    assert "[+] [+] [+] [+]" in step.text and "pbp-dice/2 scene=" not in step.text, step.text


def test_the_verifier_runs_alone(db, config, tmp_path):
    """The shipped file runs with a bare Python, nothing of pbp importable (-I, another cwd)."""
    play_scene(config, "fate-condensed", "Cassandra", "Contacts")
    mails = save_mails(tmp_path / "mails", address("Cassandra"))
    copy = tmp_path / "alone" / "verify_dice.py"
    copy.parent.mkdir()
    copy.write_text(Path(verify_dice.__file__).read_text(encoding="utf-8"), encoding="utf-8")
    run = subprocess.run([sys.executable, "-I", str(copy), str(mails)], capture_output=True, text=True,
                         cwd=copy.parent)
    assert run.returncode == 0 and "throws recomputed" in run.stdout, run.stdout + run.stderr
    assert "import pbp" not in copy.read_text() and "from pbp" not in copy.read_text()


def test_pbp_verify_mails(db, config, tmp_path, capsys, monkeypatch):
    from pbp.cli import main

    play_scene(config, "fate-condensed", "Cassandra", "Contacts")
    mails = save_mails(tmp_path / "mails", address("Cassandra"))
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--mails", str(mails)]) == 0
    assert "throws recomputed" in capsys.readouterr().out
    _edit(mails, _change_one_die)
    assert main(["verify", "--mails", str(mails)]) == 1
    out = capsys.readouterr()
    assert "PROBLEM: " in out.out and "1 problem with the committed dice" in out.err
    assert main(["verify", "--mails", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err
    assert "no such folder" in err and "example:  pbp verify --mails" in err


def test_the_gms_reveal_shows_the_seed_and_commits_a_new_one(db, config, tmp_path):
    create_sample_campaign()
    mt = MailTable(config, committed=True)
    assert mt.post("GM", "/reveal\n").status == "rejected"          # no scene open
    mt.post("GM", '/scene start "The Docks"\n')
    mt.post("Cassandra", "/roll\n")
    refused = mt.post("Cassandra", "/reveal\n")
    assert refused.status == "rejected" and "/reveal is for the GM" in refused.text, refused.text
    shown = mt.post("GM", "/reveal\n")
    assert shown.status == "applied", shown.text
    assert "pbp-dice/2 reveal scene=chicago/1 seed=" in shown.text
    assert "pbp-dice/2 commit scene=chicago/1.2 c=" in shown.text, shown.text
    mt.post("Cassandra", "/roll\n")
    mails = save_mails(tmp_path / "mid", address("Cassandra"))
    good, bad = verify_dice.verify(mails)
    assert not bad and any("chicago/1: commitment matches; 1 throws" in g for g in good), good
    assert any("chicago/1.2: not revealed yet; 1 throws" in g for g in good), good
    mt.post("GM", "/scene end\n")
    good, bad = verify_dice.verify(save_mails(tmp_path / "end", address("Cassandra")))
    assert not bad and sum("commitment matches" in g for g in good) == 2, good


def test_the_operators_fixed_dice_are_said_in_the_replies(db, config, tmp_path, monkeypatch):
    """pbp process --dice / PBP_DICE: nothing is committed, and the table is told."""
    from pbp.console.common import parse_dice as _dice
    from pbp.flow.context import Context
    from pbp.pipeline import process_message
    from tests.helpers import eml

    create_sample_campaign()
    monkeypatch.setenv("PBP_DICE", "++++")
    ctx = Context(config=config, dice=_dice(None))
    start = process_message(eml('/scene start "Docks"\n', sender=address("GM"), message_id="f-1@t"), ctx)
    roll = process_message(eml("/roll\n", sender=address("Cassandra"), message_id="f-2@t"), ctx)
    assert start.status == roll.status == "applied"
    texts = [decoded(row.raw) for row in m.OutboxMail.select().order_by(m.OutboxMail.id)]
    assert "Dice: fixed by the operator (PBP_DICE)" in texts[0] and "pbp-dice/2 commit" not in texts[0]
    assert re.search(r"pbp-dice/2 fixed by=PBP_DICE rolls=#\d+", texts[-1]), texts[-1]
    assert not m.SceneSeed.select().exists()
    good, bad = verify_dice.verify(save_mails(tmp_path / "mails", address("Cassandra")))
    assert not bad
