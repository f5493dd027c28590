"""Test rig: real mail servers on loopback for the live tests.

``dovecot.Dovecot`` runs a private Dovecot (IMAP, IMAPS, LMTP) from a config of its own,
``smtp.SmtpServer`` an aiosmtpd recording server, ``tls.make_certificate`` the self-signed
certificate both present. ``fixtures`` turns them into pytest fixtures: register it in
tests/conftest.py with ``pytest_plugins = ["rig.fixtures"]`` (pytest puts tests/ on sys.path
while tests/ has no __init__.py; if it becomes a package, use ``"tests.rig.fixtures"``).
Nothing here mocks a protocol: the code under test talks to real servers over real sockets.

Install the servers with ``bash scripts/install-test-services`` (Debian: dovecot-imapd,
dovecot-lmtpd, openssl). ``PBP_TEST_DOVECOT`` may name another dovecot binary.
"""
