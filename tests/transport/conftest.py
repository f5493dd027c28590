"""Shared helpers for the transport tests; the servers come from the rig (tests/rig)."""
from __future__ import annotations

import asyncio
import sys
from email.message import EmailMessage
from email.utils import make_msgid

import pytest

from pbp.transport import ImapSettings, SmtpSettings

# The rig is importable as ``rig`` while tests/ has no __init__.py (pytest puts tests/ on
# sys.path), as ``tests.rig`` if it becomes a package. Until tests/conftest.py registers it
# with ``pytest_plugins``, its fixtures are brought in here; once it does, this is skipped.
_registered = "rig.fixtures" in sys.modules or "tests.rig.fixtures" in sys.modules
try:
    from rig import fixtures as rig_fixtures
    from rig.net import free_ports
    from rig.tls import make_certificate
except ModuleNotFoundError:  # tests/ is a package
    from tests.rig import fixtures as rig_fixtures
    from tests.rig.net import free_ports
    from tests.rig.tls import make_certificate

if not _registered:
    globals().update({name: getattr(rig_fixtures, name) for name in rig_fixtures.__all__})

MailAccount = rig_fixtures.MailAccount
SMTP_USER, SMTP_PASSWORD = rig_fixtures.SMTP_USER, rig_fixtures.SMTP_PASSWORD

PORT_FOR = {"plain": "imap_port", "starttls": "imap_port", "tls": "imaps_port"}


def run(coro):
    """Run one coroutine on a fresh event loop (the suite does not need pytest-asyncio)."""
    return asyncio.run(coro)


def make_message(subject: str = "Test post", body: str = "/roll 4dF\n", *, sender: str = "player@example.test",
                 to: str = "table@example.test") -> bytes:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = subject
    msg["Message-ID"] = make_msgid(domain="example.test")
    msg.set_content(body)
    return msg.as_bytes()


@pytest.fixture
def imap_settings(mailbox: MailAccount, tls_ca):
    """``make(security="tls", **overrides)``: settings pointing at the rig's table account."""

    def make(security: str = "tls", **overrides) -> ImapSettings:
        values = dict(
            host="127.0.0.1",
            port=getattr(mailbox, PORT_FOR[security]),
            security=security,
            username=mailbox.user,
            password=mailbox.password,
            ca_file=str(tls_ca),
            timeout=5.0,
        )
        values.update(overrides)
        return ImapSettings(**values)

    return make


@pytest.fixture
def smtp_settings(tls_ca):
    """``make(server, security="plain", **overrides)``: settings pointing at a rig SMTP server."""

    def make(server, security: str = "plain", **overrides) -> SmtpSettings:
        values = dict(host=server.host, port=server.port, security=security, ca_file=str(tls_ca), timeout=5.0)
        values.update(overrides)
        return SmtpSettings(**values)

    return make


@pytest.fixture(scope="session")
def bare_dovecot_session(dovecot_factory):
    """A second Dovecot advertising neither IDLE nor MOVE, to exercise the fallbacks."""
    return dovecot_factory(capabilities="IMAP4rev1 SASL-IR LOGIN-REFERRALS ID ENABLE LITERAL+ UIDPLUS")


@pytest.fixture
def bare_dovecot(bare_dovecot_session):
    bare_dovecot_session.clear_all()
    return bare_dovecot_session
