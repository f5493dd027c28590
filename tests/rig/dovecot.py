"""A private Dovecot for tests: its own config, folder, ports and users; nothing from /etc.

Facts this relies on (measured when the rig was built; docs/testing.md): every folder must be
traversable by Dovecot's unprivileged users (so not under pytest's 0700 ``tmp_path``), unix
socket paths must stay short, mail belongs to a non-root uid, and ``auth_failure_delay = 0``
plus a disabled anvil auth penalty keep wrong-password tests (and every login after them)
fast. Start costs ~60 ms, stop ~1 s (Dovecot's own shutdown wait).
"""
from __future__ import annotations

import atexit
import ctypes
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from imapclient import IMAPClient

from .net import LOOPBACK, free_ports, wait_for_greeting
from .tls import TlsFiles, make_certificate

MAIL_UID = "nobody"
MAIL_GID = "nogroup"


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the test process dies, even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def find_dovecot() -> str | None:
    """Path of the dovecot binary: ``$PBP_TEST_DOVECOT`` if set, else PATH, else /usr/sbin
    (which a non-root PATH may lack). None when it is not installed."""
    configured = os.environ.get("PBP_TEST_DOVECOT")
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("dovecot") or shutil.which("dovecot", path="/usr/sbin:/usr/local/sbin")


@dataclass(frozen=True)
class StoredMessage:
    """A message as the server holds it, read without changing its flags."""

    uid: int
    flags: frozenset[str]
    raw: bytes


class Dovecot:
    """One private Dovecot instance on loopback.

    ``imap_port`` offers plaintext and STARTTLS, ``imaps_port`` implicit TLS, ``lmtp_port``
    LMTP delivery; ``tls.cert`` is the CA file clients verify against. ``capabilities``
    replaces the advertised IMAP capability list (e.g. without IDLE and MOVE, to exercise a
    client's fallbacks against the same real server). ``oauth2_introspection_url`` adds
    Dovecot's ``oauth2`` passdb for the XOAUTH2 and OAUTHBEARER mechanisms: each bearer token
    is POSTed there (RFC 7662 introspection, ``introspection_mode = post``) and the login is
    taken when the answer is ``active`` with the login's ``username``.
    """

    def __init__(
        self,
        *,
        root: Path | None = None,
        tls: TlsFiles | None = None,
        capabilities: str | None = None,
        oauth2_introspection_url: str | None = None,
        keep: bool = False,
    ) -> None:
        self.binary = find_dovecot()
        if self.binary is None:
            raise RuntimeError("dovecot is not installed: run `bash scripts/install-test-services`")
        # A short, world-traversable folder: Dovecot's users must reach every file in it and
        # unix socket paths are limited to ~108 characters.
        self.root = Path(root) if root else Path(tempfile.mkdtemp(prefix="pbp-dc-", dir="/tmp"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        self._own_root = root is None
        self.keep = keep
        self.tls = tls or make_certificate(self.root)
        self.capabilities = capabilities
        self.oauth2_introspection_url = oauth2_introspection_url
        self.host = LOOPBACK
        self.imap_port, self.imaps_port, self.lmtp_port = free_ports(3)
        self.instance_name = f"pbp-test-{self.root.name}"
        self.config_path = self.root / "dovecot.conf"
        self.users_path = self.root / "users"
        self.log_path = self.root / "dovecot.log"
        self.mail_dir = self.root / "mail"
        self._users: dict[str, str] = {}
        self._process: subprocess.Popen | None = None
        self.started_in: float | None = None
        self.stopped_in: float | None = None

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> "Dovecot":
        self._write_config()
        began = time.monotonic()
        self._stderr = open(self.root / "dovecot.stderr", "wb")
        self._process = subprocess.Popen(
            [self.binary, "-F", "-c", str(self.config_path)],
            stdin=subprocess.DEVNULL,
            stdout=self._stderr,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_die_with_parent if os.name == "posix" else None,
        )
        atexit.register(self.stop)  # a crashed test run must not leave Dovecot behind
        try:
            wait_for_greeting(self.imap_port, b"* OK", timeout, alive=self.running)
        except Exception as exc:
            tail = self.log_tail()  # before stop() removes the folder
            self.stop()
            raise RuntimeError(f"dovecot did not start: {exc}\n{tail}") from exc
        self.started_in = time.monotonic() - began
        return self

    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def terminate(self) -> None:
        """Ask Dovecot to stop without waiting (pair with ``wait``; lets stops overlap)."""
        self._stop_began = time.monotonic()
        if self.running():
            self._process.send_signal(signal.SIGTERM)

    def wait(self, timeout: float = 10.0) -> None:
        if self._process is not None:
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait(5)
            # The master is gone, but an imap process may outlive it for seconds (an IDLE client's
            # session went on serving new mail through a whole "outage" once): a stopped server
            # has no process left answering anyone.
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._process = None
            self._stderr.close()
            self.stopped_in = time.monotonic() - self._stop_began
        if self._own_root and not self.keep:
            shutil.rmtree(self.root, ignore_errors=True)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM and wait (~1 s: Dovecot waits for its processes on shutdown)."""
        self.terminate()
        self.wait(timeout)

    def __enter__(self) -> "Dovecot":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def log_tail(self, lines: int = 30) -> str:
        text = ""
        for path in (self.log_path, self.root / "dovecot.stderr"):
            if path.exists():
                text += "".join(path.read_text(errors="replace").splitlines(True)[-lines:])
        return text

    # ---- configuration -------------------------------------------------------------------

    def _write_config(self) -> None:
        for sub in ("run", "state"):
            (self.root / sub).mkdir(exist_ok=True)
        self.mail_dir.mkdir(exist_ok=True)
        shutil.chown(self.mail_dir, MAIL_UID, MAIL_GID)
        self._write_users()
        capability = f"imap_capability = {self.capabilities}\n" if self.capabilities else ""
        mechanisms, oauth2 = "plain login", ""
        if self.oauth2_introspection_url:
            mechanisms += " xoauth2 oauthbearer"
            (self.root / "dovecot-oauth2.conf.ext").write_text(
                f"introspection_mode = post\nintrospection_url = {self.oauth2_introspection_url}\n"
                "username_attribute = username\nactive_attribute = active\nactive_value = true\n"
                "force_introspection = yes\n")
            oauth2 = (f"passdb {{\n  driver = oauth2\n  mechanisms = xoauth2 oauthbearer\n"
                      f"  args = {self.root}/dovecot-oauth2.conf.ext\n}}\n")
        self.config_path.write_text(
            f"""\
# Written by tests/rig/dovecot.py: a private test instance, reads nothing from /etc.
instance_name = {self.instance_name}
base_dir = {self.root}/run
state_dir = {self.root}/state
log_path = {self.log_path}
info_log_path = {self.log_path}
listen = {self.host}
protocols = imap lmtp
ssl = yes
ssl_cert = <{self.tls.cert}
ssl_key = <{self.tls.key}
disable_plaintext_auth = no
auth_mechanisms = {mechanisms}
auth_failure_delay = 0
mail_location = maildir:~/Maildir
{capability}
{oauth2}passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {self.users_path}
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {self.users_path}
  default_fields = uid={MAIL_UID} gid={MAIL_GID} home={self.mail_dir}/%d/%n
}}
service imap-login {{
  inet_listener imap {{
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    port = {self.imaps_port}
    ssl = yes
  }}
}}
# auth_failure_delay only removes the delay of the failing login itself; anvil would also
# hold back every later login from 127.0.0.1 by 2-15 s after a failure ("auth penalty").
service anvil {{
  unix_listener anvil-auth-penalty {{
    mode = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    port = {self.lmtp_port}
  }}
}}
"""
        )

    def _write_users(self) -> None:
        lines = "".join(f"{user}:{{PLAIN}}{password}::::::\n" for user, password in self._users.items())
        tmp = self.users_path.with_suffix(".tmp")
        tmp.write_text(lines)
        tmp.chmod(0o644)
        os.replace(tmp, self.users_path)  # Dovecot re-reads the file when it changes

    # ---- users and mail ------------------------------------------------------------------

    @property
    def users(self) -> dict[str, str]:
        return dict(self._users)

    def add_user(self, address: str, password: str) -> None:
        if ":" in address or ":" in password or "\n" in address + password:
            raise ValueError("':' and newlines cannot appear in a passwd-file user or password")
        self._users[address] = password
        if self.config_path.exists():
            self._write_users()

    def client(self, user: str, *, timeout: float = 10.0) -> IMAPClient:
        """A logged-in IMAP client for ``user`` on the plaintext port (the rig's own access)."""
        client = IMAPClient(self.host, self.imap_port, ssl=False, timeout=timeout)
        client.login(user, self._users[user])
        return client

    def append(self, user: str, raw: bytes, folder: str = "INBOX", flags: tuple = ()) -> int | None:
        """APPEND ``raw`` to ``folder`` (created if missing) as ``user``; return its UID."""
        with self.client(user) as imap:
            if not imap.folder_exists(folder):
                imap.create_folder(folder)
            response = imap.append(folder, raw, flags=flags)
        return _appended_uid(response)

    def append_many(self, user: str, raws: list[bytes], folder: str = "INBOX") -> None:
        """APPEND each message over one login (fast set-up for tests with many messages)."""
        with self.client(user) as imap:
            if not imap.folder_exists(folder):
                imap.create_folder(folder)
            for raw in raws:
                imap.append(folder, raw)

    def kick(self, user: str) -> None:
        """Disconnect every session of ``user`` (``doveadm kick``), as a server restart would."""
        subprocess.run(
            [shutil.which("doveadm") or "/usr/bin/doveadm", "-c", str(self.config_path), "kick", user],
            check=True, capture_output=True,
        )

    def deliver(self, recipient: str, raw: bytes, sender: str = "rig@example.test") -> None:
        """Deliver through LMTP, as an MTA would (adds Return-Path and Delivered-To)."""
        import smtplib

        with smtplib.LMTP(self.host, self.lmtp_port) as lmtp:
            lmtp.sendmail(sender, [recipient], raw)

    def messages(self, user: str, folder: str = "INBOX") -> list[StoredMessage]:
        """Every message in ``folder`` with its flags, read with EXAMINE + BODY.PEEK[]."""
        with self.client(user) as imap:
            imap.select_folder(folder, readonly=True)
            uids = imap.search("ALL")
            found = imap.fetch(uids, ["FLAGS", "BODY.PEEK[]"]) if uids else {}
        return [
            StoredMessage(
                uid=uid,
                flags=frozenset(f.decode() if isinstance(f, bytes) else f for f in data[b"FLAGS"]),
                raw=data[b"BODY[]"],
            )
            for uid, data in sorted(found.items())
        ]

    def folders(self, user: str) -> list[str]:
        with self.client(user) as imap:
            return sorted(name for _flags, _sep, name in imap.list_folders())

    def create_folder(self, user: str, folder: str) -> None:
        with self.client(user) as imap:
            imap.create_folder(folder)

    def delete_folder(self, user: str, folder: str) -> None:
        with self.client(user) as imap:
            imap.delete_folder(folder)

    def uidvalidity(self, user: str, folder: str = "INBOX") -> int:
        with self.client(user) as imap:
            return imap.folder_status(folder, [b"UIDVALIDITY"])[b"UIDVALIDITY"]

    def clear(self, user: str) -> None:
        """Empty INBOX and delete every other folder of ``user`` (one login, ~10-30 ms)."""
        with self.client(user) as imap:
            names = [name for _flags, _sep, name in imap.list_folders()]
            for name in sorted(names, key=len, reverse=True):  # children before parents
                if name.upper() != "INBOX":
                    imap.delete_folder(name)
            imap.select_folder("INBOX")
            uids = imap.search("ALL")
            if uids:
                imap.add_flags(uids, [b"\\Deleted"], silent=True)
                imap.expunge()

    def clear_all(self) -> None:
        for user in self._users:
            self.clear(user)


def _appended_uid(response: bytes) -> int | None:
    """UID from an APPENDUID response code ("[APPENDUID 1700000000 7] Append completed.")."""
    text = response.decode(errors="replace") if isinstance(response, bytes) else str(response)
    if "[APPENDUID" in text:
        return int(text.split("[APPENDUID", 1)[1].split("]", 1)[0].split()[1])
    return None
