"""``pbp tick --at TIME``: the daemon's deadline job run once from the command line, with the
clock fixed, so a GM (or a test) applies due defaults without waiting."""
from __future__ import annotations

import email
import json
from email import policy

from pbp.cli import main
from pbp.demo import sample_dir
from tests.helpers import eml, plain_text


def test_tick_applies_a_default_defence_and_delivers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", "gm@pbp.localhost",
                 "--address", "table+chicago@pbp.localhost"]) == 0
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "chicago"]) == 0
    post = tmp_path / "attack.eml"
    post.write_bytes(eml("/conflict start Charles, Ghoul first Ghoul\n/as Ghoul attack Charles with Fight\n",
                         sender="gm@pbp.localhost", message_id="attack@pbp.test"))
    capsys.readouterr()
    assert main(["process", str(post), "--json", "--dice", "00++"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "applied"

    assert main(["tick", "--at", "2026-01-01T00:00"]) == 0          # long before the deadline
    assert "0 campaigns had something due" in capsys.readouterr().out
    assert main(["tick", "--at", "2099-01-01T00:00", "--dice", "000-"]) == 0
    assert "1 campaign had something due; 1 mail written" in capsys.readouterr().out

    outbox = sorted((tmp_path / "maildir" / "outbox" / "new").iterdir(), key=lambda p: p.stat().st_mtime)
    texts = [plain_text(email.message_from_bytes(p.read_bytes(), policy=policy.default))
             for p in outbox]
    last = next(t for t in texts if "did not answer" in t)
    assert "Charles did not answer by" in last and "Charles defends with Athletics" in last
    assert "absorb the 2-shift physical hit" in last
    capsys.readouterr()
    assert main(["sheet", "Charles", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stress"]["physical"] == [False, False, False]  # waits for /absorb
