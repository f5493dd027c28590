"""pytest fixtures for the live mail tests: a real Dovecot and real SMTP servers on loopback.

Register in tests/conftest.py with ``pytest_plugins = ["rig.fixtures"]`` (see the rig's
docstring in ``tests/rig/__init__.py``). Fixtures:

``tls_ca``           session: path of the CA file (the self-signed server certificate)
``tls_files``        session: ``TlsFiles(cert, key)`` shared by every server
``dovecot``          session: the running ``Dovecot`` with the users in ``USERS``
``dovecot_factory``  session: ``make(capabilities=...)`` starts more instances (stopped together)
``mailbox``          function: the table account, every mailbox of every user emptied first
``smtp_server``      function: recording server, STARTTLS offered, no AUTH (started once)
``smtp_auth_server`` function: recording server, STARTTLS and AUTH required (started once)
``smtp_tls_server``  function: recording server speaking implicit TLS (as on port 465)
``smtp_relay``       function: recording server that passes mail on to Dovecot over LMTP

Without Dovecot or PostgreSQL installed the live tests fail, on a developer machine as in CI:
``scripts/test`` installs both, and a run that skipped them would prove nothing.
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .dovecot import Dovecot, StoredMessage, find_dovecot
from .smtp import SmtpServer
from .tls import TlsFiles, make_certificate

TABLE_USER = "table@example.test"
USERS = {
    TABLE_USER: "table-secret",
    "gm@example.test": "gm-secret",
    "player@example.test": "player-secret",
}
SMTP_USER, SMTP_PASSWORD = "table@example.test", "smtp-secret"

__all__ = [
    "dovecot", "dovecot_factory", "mailbox", "rig_dir", "smtp_auth_server",
    "smtp_auth_server_session", "smtp_relay", "smtp_server", "smtp_server_session",
    "smtp_tls_server", "tls_ca", "tls_files",
]

INSTALL_HINT = "run `bash scripts/install-test-services` as root to install Dovecot"


def require_dovecot() -> None:
    """Fail loudly when Dovecot is missing: the live mail tests must run, never skip."""
    if find_dovecot() is None:
        pytest.fail(f"dovecot is not installed: the live mail tests must run; {INSTALL_HINT}", pytrace=False)


@dataclass
class MailAccount:
    """One user of the rig's Dovecot, with what a test needs to point a client at it."""

    server: Dovecot
    user: str
    password: str

    @property
    def host(self) -> str:
        return self.server.host

    @property
    def imap_port(self) -> int:
        return self.server.imap_port

    @property
    def imaps_port(self) -> int:
        return self.server.imaps_port

    def append(self, raw: bytes, folder: str = "INBOX", flags: tuple = ()) -> int | None:
        return self.server.append(self.user, raw, folder, flags)

    def messages(self, folder: str = "INBOX") -> list[StoredMessage]:
        return self.server.messages(self.user, folder)

    def folders(self) -> list[str]:
        return self.server.folders(self.user)


@pytest.fixture(scope="session")
def rig_dir() -> Iterator[Path]:
    """A short, world-traversable folder for the session's server files."""
    path = Path(tempfile.mkdtemp(prefix="pbp-rig-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="session")
def tls_files(rig_dir: Path) -> TlsFiles:
    return make_certificate(rig_dir)


@pytest.fixture(scope="session")
def tls_ca(tls_files: TlsFiles) -> Path:
    """CA file that verifies every rig server (the self-signed certificate itself)."""
    return tls_files.cert


@pytest.fixture(scope="session")
def dovecot_factory(tls_files: TlsFiles):
    """``make(**kwargs)`` starts a Dovecot with ``USERS``; all stop together at session end."""
    started: list[Dovecot] = []

    def make(**kwargs) -> Dovecot:
        require_dovecot()
        server = Dovecot(tls=tls_files, **kwargs)
        for user, password in USERS.items():
            server.add_user(user, password)
        started.append(server.start())
        return server

    yield make
    for server in started:  # SIGTERM all first: each takes ~1 s to exit, this overlaps them
        server.terminate()
    for server in started:
        server.wait()


@pytest.fixture(scope="session")
def dovecot(dovecot_factory) -> Dovecot:
    return dovecot_factory()


@pytest.fixture
def mailbox(dovecot: Dovecot) -> MailAccount:
    dovecot.clear_all()
    return MailAccount(dovecot, TABLE_USER, USERS[TABLE_USER])


@pytest.fixture(scope="session")
def smtp_server_session(tls_files: TlsFiles) -> Iterator[SmtpServer]:
    with SmtpServer(tls=tls_files) as server:
        yield server


@pytest.fixture(scope="session")
def smtp_auth_server_session(tls_files: TlsFiles) -> Iterator[SmtpServer]:
    with SmtpServer(tls=tls_files, require_tls=True, auth=(SMTP_USER, SMTP_PASSWORD)) as server:
        yield server


@pytest.fixture
def smtp_server(smtp_server_session: SmtpServer) -> SmtpServer:
    smtp_server_session.clear()
    return smtp_server_session


@pytest.fixture
def smtp_auth_server(smtp_auth_server_session: SmtpServer) -> SmtpServer:
    smtp_auth_server_session.clear()
    return smtp_auth_server_session


@pytest.fixture
def smtp_relay(dovecot: Dovecot) -> Iterator[SmtpServer]:
    with SmtpServer(lmtp=(dovecot.host, dovecot.lmtp_port)) as server:
        yield server


@pytest.fixture
def smtp_tls_server(tls_files: TlsFiles) -> Iterator[SmtpServer]:
    with SmtpServer(tls=tls_files, implicit_tls=True) as server:
        yield server


@pytest.fixture(scope="session")
def postgres():
    """A private PostgreSQL cluster for the session (missing PostgreSQL fails, never skips)."""
    from tests.rig.postgres import Postgres, find_postgres

    if find_postgres() is None:
        pytest.fail("PostgreSQL is not installed: run `bash scripts/install-test-services` as root", pytrace=False)
    server = Postgres().start()
    yield server
    server.stop()
