"""Debian's Postfix as a private test server on loopback: an SMTP listener pbp sends to,
mail for ``nowhere.test`` handed to Postfix's ``error`` transport (so it bounces at once,
as a dead mailbox does), and mail for the table's domain delivered over LMTP (to the
rig's Dovecot), where the bounce Postfix writes (RFC 3464) arrives.

Its own configuration directory, queue and data folders under one temporary folder
(``postfix -c DIR start-fg``, in the foreground, stopped with ``postfix -c DIR stop``);
it reads nothing of /etc/postfix but the packaged ``postfix-files``. Run as root, as
the rig's Dovecot is (the queue belongs to the packaged ``postfix`` user).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from .net import LOOPBACK, free_ports, wait_for_greeting

POSTFIX = "/usr/sbin/postfix"
DEAD_DOMAIN = "nowhere.test"

_MASTER = """\
{host}:{port} inet n - n - - smtpd
pickup    unix  n       -       n       60      1       pickup
cleanup   unix  n       -       n       -       0       cleanup
qmgr      unix  n       -       n       300     1       qmgr
rewrite   unix  -       -       n       -       -       trivial-rewrite
bounce    unix  -       -       n       -       0       bounce
defer     unix  -       -       n       -       0       bounce
trace     unix  -       -       n       -       0       bounce
verify    unix  -       -       n       -       1       verify
flush     unix  n       -       n       1000?   0       flush
proxymap  unix  -       -       n       -       -       proxymap
smtp      unix  -       -       n       -       -       smtp
relay     unix  -       -       n       -       -       smtp
showq     unix  n       -       n       -       -       showq
error     unix  -       -       n       -       -       error
retry     unix  -       -       n       -       -       error
discard   unix  -       -       n       -       -       discard
lmtp      unix  -       -       n       -       -       lmtp
anvil     unix  -       -       n       -       1       anvil
scache    unix  -       -       n       -       1       scache
postlog   unix-dgram n  -       n       -       1       postlogd
"""


class Postfix:
    """``Postfix(domain, lmtp_port)``: mail for ``domain`` goes to LMTP on that port;
    mail for :data:`DEAD_DOMAIN` bounces. ``port`` is its SMTP listener."""

    def __init__(self, domain: str, lmtp_port: int) -> None:
        self.domain = domain
        self.lmtp_port = lmtp_port
        self.host = LOOPBACK
        (self.port,) = free_ports(1)
        self.dir = Path(tempfile.mkdtemp(prefix="pbp-pfx-", dir="/tmp"))
        self.dir.chmod(0o755)
        self.conf, self.log = self.dir / "conf", self.dir / "maillog"
        self.process: subprocess.Popen | None = None

    def _write_config(self) -> None:
        for sub in ("conf", "queue", "data"):
            (self.dir / sub).mkdir(exist_ok=True)
        shutil.chown(self.dir / "data", user="postfix")
        (self.conf / "main.cf").write_text(f"""\
compatibility_level = 3.6
queue_directory = {self.dir}/queue
data_directory = {self.dir}/data
command_directory = /usr/sbin
daemon_directory = /usr/lib/postfix/sbin
meta_directory = /etc/postfix
shlib_directory = /usr/lib/postfix
mail_owner = postfix
setgid_group = postdrop
myhostname = mx.{self.domain}
mydomain = {self.domain}
myorigin = {self.domain}
mydestination =
inet_interfaces = {self.host}
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
relay_domains = {self.domain}
transport_maps = inline:{{ {{{DEAD_DOMAIN}=error:5.1.1 mailbox unavailable}}, {self.domain}=lmtp:inet:{self.host}:{self.lmtp_port} }}
smtpd_reject_unlisted_recipient = no
smtpd_recipient_restrictions = permit_mynetworks, reject
smtputf8_enable = no
alias_maps =
alias_database =
local_recipient_maps =
maillog_file = {self.log}
maillog_file_prefixes = /tmp
syslog_name = pbp-postfix
bounce_queue_lifetime = 0
""")
        (self.conf / "master.cf").write_text(_MASTER.format(host=self.host, port=self.port))

    def start(self, timeout: float = 20.0) -> "Postfix":
        self._write_config()
        check = subprocess.run([POSTFIX, "-c", str(self.conf), "check"], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"postfix check failed: {check.stderr or self.log_tail()}")
        self.process = subprocess.Popen([POSTFIX, "-c", str(self.conf), "start-fg"], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_for_greeting(self.port, b"220", timeout, alive=lambda: self.process.poll() is None)
        except Exception as exc:
            self.stop()
            raise RuntimeError(f"Postfix did not start: {exc}\n{self.log_tail()}") from exc
        return self

    def stop(self, timeout: float = 15.0) -> None:
        if self.process is not None and self.process.poll() is None:
            subprocess.run([POSTFIX, "-c", str(self.conf), "stop"], capture_output=True)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait(5)
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def wait_in_log(self, words: str, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.log.exists() and words in self.log.read_text(errors="replace"):
                return
            time.sleep(0.1)
        raise TimeoutError(f"{words!r} not in Postfix's log:\n{self.log_tail()}")

    def __enter__(self) -> "Postfix":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
