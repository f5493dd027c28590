"""Issue 30 through the real rig (docs/testing.md): a real Dovecot mailbox in, a real SMTP
server out, the daemon between them. A stranger who sends the Message-ID Ruth's client will
use next does not make her post a duplicate; ``pbp check-config`` warns when the mailbox's
mail carries no Authentication-Results of the server named in ``trust_authserv_id``."""
from __future__ import annotations

import subprocess
import sys

import pytest

from pbp.store import models as m
from tests.helpers import eml
from tests.test_daemon_live import REPO, body_of, daemon, env, table  # noqa: F401 (fixtures)

pytestmark = pytest.mark.live

GUESSED = "CAF1234.5678@mail.pbp.localhost"


def test_a_guessed_message_id_sent_first_does_not_shadow_the_real_post(table, mailbox, smtp_auth_server, env):
    """Mallory's mail with Ruth's next Message-ID reaches the mailbox first; Ruth's real
    post follows. Each player reads what the SMTP server received: Mallory one stranger's
    notice, the table Ruth's result with her dice; the dice rolled once. Ruth's client
    resends her post: she alone gets a note, nothing rolls."""
    mailbox.append(eml("/overcome Investigate vs Fair\n", sender="mallory@evil.example", to=mailbox.user,
                       message_id=GUESSED))
    mailbox.append(eml("Ruth goes through the crates.\n/overcome Investigate vs Fair\n", to=mailbox.user,
                       message_id=GUESSED))
    assert daemon(table, env, dice="0+00").run_once() == 2
    stranger, result = smtp_auth_server.received
    assert stranger.rcpt_tos == ("mallory@evil.example",) and "Investigate" not in body_of(stranger.raw)
    assert {"ruth@pbp.localhost", "gm@pbp.localhost"} <= set(result.rcpt_tos)
    text = body_of(result.raw)
    assert "Ruth goes through the crates." in text and "[0] [+] [0] [0]" in text
    assert [r.dice for r in m.RollRecord.select()] == [[0, 1, 0, 0]]

    mailbox.append(eml("Ruth goes through the crates.\n/overcome Investigate vs Fair\n", to=mailbox.user,
                       message_id=GUESSED))
    assert daemon(table, env, dice="----").run_once() == 1
    note = smtp_auth_server.received[-1]
    assert note.rcpt_tos == ("ruth@pbp.localhost",) and "already handled" in body_of(note.raw)
    assert m.RollRecord.select().count() == 1


def check_config(table, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(table.path), "check-config"],
                          env=env, cwd=REPO, capture_output=True, text=True, timeout=60)


def test_check_config_warns_when_the_mailbox_has_no_results_of_the_trusted_server(table, mailbox, env):
    with open(table.path, "a", encoding="utf-8") as toml:
        toml.write('[security]\ntrust_authserv_id = "mx.pbp.test"\n')
    empty = check_config(table, env)
    assert "WARN  trust_authserv_id in mailbox INBOX: INBOX holds no mail yet" in empty.stdout, empty.stdout

    mailbox.append(eml("/fp\n", to=mailbox.user, extra="Authentication-Results: mx.other.test; dkim=pass\n"))
    mailbox.append(eml("/fp\n", to=mailbox.user, message_id="p-2@pbp.test"))
    out = check_config(table, env)
    assert out.returncode == 0, out.stdout          # a warning, not a failure: the daemon can run
    assert ("WARN  trust_authserv_id in mailbox INBOX: none of the 2 newest mails in INBOX carries an "
            "Authentication-Results header of mx.pbp.test") in out.stdout, out.stdout
    assert "would be believed" in out.stdout and "hint: set trust_authserv_id" in out.stdout

    mailbox.append(b"Authentication-Results: mx.pbp.test; dkim=pass header.d=pbp.localhost\n"
                   + eml("/fp\n", to=mailbox.user, message_id="p-3@pbp.test"))
    good = check_config(table, env)
    assert ("ok    trust_authserv_id in mailbox INBOX: 1 of the 3 newest mails in INBOX carry "
            "Authentication-Results of mx.pbp.test") in good.stdout, good.stdout
    assert "WARN" not in good.stdout and good.stderr == ""
    assert m.Message.select().count() == 0          # nothing was read as a post, nothing marked
    assert all("\\Seen" not in str(s.flags) for s in mailbox.messages())
