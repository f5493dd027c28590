"""The config file: every key known (typos refused with a suggestion), values checked with
an example, relative paths taken from the config file's folder."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pbp.config import config_from_dict, load_config
from pbp.errors import ConfigError

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("data, problem, suggestion", [
    ({"mail": {"transprt": "imap"}}, "[mail] transprt", "did you mean transport?"),
    ({"daemon": {"poll_secnds": 5}}, "[daemon] poll_secnds", "did you mean poll_seconds?"),
    ({"daemon": {"log_levl": "DEBUG"}}, "[daemon] log_levl", "did you mean log_level?"),
    ({"daemn": {"poll_seconds": 5}}, "[daemn]", "did you mean daemon?"),
    ({"imap": {"host": "imap.example.org", "usernme": "t"}}, "[imap] usernme", "did you mean username?"),
    ({"smtp": {"host": "smtp.example.org", "ca_fle": "ca.pem"}}, "[smtp] ca_fle", "did you mean ca_file?"),
    ({"mailboxes": [{"name": "INBOX", "campain": "chicago"}]}, "[[mailboxes]] #1 campain", "did you mean campaign?"),
    ({"limits": {"max_comands": 3}}, "[limits] max_comands", "did you mean max_commands?"),
    ({"archive": {"dri": "site"}}, "[archive] dri", "did you mean dir?"),
    ({"archiv": {"dir": "site"}}, "[archiv]", "did you mean archive?"),
])
def test_unknown_keys_are_refused_with_a_suggestion(data, problem, suggestion):
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data)
    assert problem in str(caught.value) and "not a" in str(caught.value)
    assert caught.value.hint == suggestion


def test_every_problem_is_listed_at_once():
    with pytest.raises(ConfigError) as caught:
        config_from_dict({"mail": {"transprt": "imap"}, "daemon": {"poll_secnds": 5, "log_levl": "INFO"}})
    text = str(caught.value)
    assert text.startswith("3 problems:")
    assert all(w in text for w in ("did you mean transport?", "did you mean poll_seconds?", "did you mean log_level?"))


@pytest.mark.parametrize("data, words", [
    ({"daemon": {"poll_seconds": "60"}}, ('[daemon] poll_seconds = "60": expected a number of seconds', "poll_seconds = 60")),
    ({"daemon": {"poll_seconds": 0}}, ("poll_seconds = 0", "poll_seconds = 60")),
    ({"daemon": {"log_level": "LOUD"}}, ('log_level = "LOUD": expected one of "DEBUG"', 'log_level = "DEBUG"')),
    ({"daemon": {"handled": "delete"}}, ('handled = "delete"', '"move:Done"')),
    ({"mail": {"transport": "pop3"}}, ('transport = "pop3": expected one of "maildir", "imap"', 'transport = "maildir"')),
    ({"limits": {"max_commands": 2.5}}, ("max_commands = 2.5: expected a whole number", "max_commands = 20")),
    ({"imap": {"host": "h", "port": "993"}}, ('[imap] port = "993": expected a port number', "port = 993")),
    ({"daemon": 5}, ("daemon must be a section", "[daemon]")),
    ({"archive": {"dir": "site", "every_minutes": 0}}, ("[archive] every_minutes = 0: expected a number of minutes",
                                                        "every_minutes = 5")),
    ({"archive": {"dir": 5}}, ("[archive] dir = 5: expected a folder", 'dir = "/srv/pbp-archive"')),
    ({"archive": {"gm_dir": "gm"}}, ("[archive] gm_dir is set but dir is not", 'dir = "/srv/pbp-archive"')),
    ({"archive": {"dir": "site", "gm_dir": "site"}}, ("gm_dir is the same folder as dir", "gm_dir =")),
])
def test_wrong_values_name_the_place_what_was_expected_and_an_example(data, words):
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data)
    said = str(caught.value) + " " + caught.value.hint
    assert all(w in said for w in words), said


def test_log_level_is_read():
    assert config_from_dict({"daemon": {"log_level": "WARNING"}}).log_level == "WARNING"


def test_every_option_in_the_example_is_known(tmp_path):
    """config.example.toml with every commented option switched on still loads."""
    text = (REPO / "config.example.toml").read_text()
    on = re.sub(r"(?m)^# ((?:\[\[?\w+\]\]?|\w+ = ).*)$", r"\1", text)
    assert on.count("\n[imap]") == 1 and "\nhost = " in on
    (tmp_path / "pbp.toml").write_text(on)
    config = load_config(tmp_path / "pbp.toml")
    assert config.imap["host"] == "imap.example.org" and config.smtp["host"] == "smtp.example.org"
    assert "ca_file" not in config.imap       # "" means not set, as the example says


def write_tree(root: Path) -> Path:
    """conf/pbp.toml naming conf/ca.pem, conf/secret and conf/data/pbp.db by relative paths."""
    conf = root / "conf"
    conf.mkdir()
    (conf / "secret").write_text("s3cret\n")
    (conf / "secret").chmod(0o600)
    from tests.rig.tls import make_certificate

    tls = make_certificate(conf)
    (conf / "pbp.toml").write_text(f"""
[database]
url = "sqlite:///data/pbp.db"
[maildir]
inbox = "mail/in"
outbox = "mail/out"
[imap]
host = "imap.example.org"
username = "table@example.org"
password_file = "secret"
ca_file = "{tls.cert.name}"
[smtp]
host = "smtp.example.org"
username = "table@example.org"
password_file = "./secret"
ca_file = "{tls.cert.name}"
""")
    return conf


def test_relative_paths_are_relative_to_the_config_file_not_the_working_directory(tmp_path, monkeypatch):
    conf = write_tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config("../conf/pbp.toml")
    assert config.database_url == f"sqlite:///{conf / 'data' / 'pbp.db'}"
    assert config.maildir.inbox == conf / "mail" / "in"
    assert config.imap["ca_file"] == str(conf / "server.pem") and config.smtp["ca_file"] == str(conf / "server.pem")
    assert config.imap_settings(environ={}).password == "s3cret"
    assert config.smtp_settings(environ={}).password == "s3cret"
    assert config.imap_settings(environ={}).ca_file == str(conf / "server.pem")


def test_pbp_run_from_another_folder_uses_the_database_next_to_the_config(tmp_path):
    conf = write_tree(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = subprocess.run([sys.executable, "-m", "pbp.cli", "-c", "../conf/pbp.toml", "campaign", "create", "chicago"],
                         cwd=elsewhere, capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO)})
    assert out.returncode == 0, out.stderr
    assert (conf / "data" / "pbp.db").exists() and not (elsewhere / "data").exists()


def test_check_config_refuses_a_typo_with_a_suggestion_and_no_traceback(tmp_path):
    (tmp_path / "pbp.toml").write_text('[daemon]\npoll_secnds = 5\n')
    out = subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(tmp_path / "pbp.toml"), "check-config"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "FAIL  config file:" in out.stdout and "[daemon] poll_secnds" in out.stdout
    assert "did you mean poll_seconds?" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr and out.stderr == ""


def test_check_config_names_an_archive_folder_that_is_a_file(tmp_path):
    (tmp_path / "taken").write_text("x")
    (tmp_path / "pbp.toml").write_text('[archive]\ndir = "taken"\n')
    out = subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(tmp_path / "pbp.toml"), "check-config"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert "FAIL  config file:" in out.stdout and '[archive] dir = "taken"' in out.stdout
    assert "is a file, and the archive needs a folder" in out.stdout and 'dir = "/srv/pbp-archive"' in out.stdout
    assert "Traceback" not in out.stdout + out.stderr and out.stderr == ""


def test_check_config_tries_the_archive_folders(tmp_path):
    (tmp_path / "taken").write_text("x")
    (tmp_path / "pbp.toml").write_text('[archive]\ndir = "www"\ngm_dir = "taken/gm"\n')
    out = subprocess.run([sys.executable, "-m", "pbp.cli", "-c", str(tmp_path / "pbp.toml"), "check-config"],
                         cwd=REPO, capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert f"ok    archive dir {tmp_path / 'www'}: writable" in out.stdout, out.stdout
    assert f"FAIL  archive gm_dir {tmp_path / 'taken' / 'gm'}: {tmp_path / 'taken' / 'gm'}: the daemon cannot " \
           "write the archive there" in out.stdout, out.stdout
    assert '[archive] gm_dir = "/srv/pbp-archive"' in out.stdout and (tmp_path / "www").is_dir()
    assert "Traceback" not in out.stdout + out.stderr


def test_the_archive_folders_are_taken_from_the_config_files_folder(tmp_path):
    (tmp_path / "pbp.toml").write_text('[archive]\ndir = "site"\ngm_dir = "/srv/gm"\nevery_minutes = 2\n')
    archive = load_config(tmp_path / "pbp.toml").archive
    assert archive.dir == tmp_path.resolve() / "site" and archive.gm_dir == Path("/srv/gm")
    assert archive.every_minutes == 2
    assert load_config_text(tmp_path, '[archive]\ndir = ""\n').archive is None     # "": off, as the example says


def load_config_text(folder: Path, text: str):
    (folder / "other.toml").write_text(text)
    return load_config(folder / "other.toml")


# ---- pbp init ------------------------------------------------------------------------------


def test_init_imap_writes_a_real_mailbox_config_with_every_option_commented(tmp_path, capsys):
    from pbp.cli import main

    path = tmp_path / "etc" / "pbp.toml"
    db = tmp_path / "var" / "pbp.db"
    assert main(["-c", str(path), "init", "--imap", "imap.example.org", "--smtp", "smtp.example.org",
                 "--username", "table@example.org", "--database", f"sqlite:///{db}"]) == 0
    assert "PBP_IMAP_PASSWORD" in capsys.readouterr().out
    config = load_config(path)
    assert config.transport == "imap" and config.database_url == f"sqlite:///{db}" and db.exists()
    assert config.imap == {"host": "imap.example.org", "username": "table@example.org", "password_env": "PBP_IMAP_PASSWORD"}
    assert config.smtp["host"] == "smtp.example.org" and config.from_address == "table@example.org"
    assert config.domain == "example.org" and [b.name for b in config.mailboxes] == ["INBOX"]
    text = path.read_text()
    for commented in ("# port = 993", "# security = \"tls\"", "# ca_file = ", "# fetch_batch = 50",
                      "# poll_interval = 60", "# local_hostname = ", "# password_file = "):
        assert commented in text, commented
    assert not (tmp_path / "etc" / "maildir").exists()


def test_init_example_prints_the_shipped_example(capsys):
    from pbp.cli import main

    assert main(["init", "--example"]) == 0
    assert capsys.readouterr().out == (REPO / "pbp" / "config.example.toml").read_text()
    # one file: the repository's top-level example is a link to the packaged one
    assert (REPO / "config.example.toml").resolve() == (REPO / "pbp" / "config.example.toml").resolve()
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "config.example.toml" in data["pbp"]


# ---- OAuth 2.0 (docs/oauth.md): [oauth], and auth = "oauth2" in [imap] / [smtp]

OAUTH_IMAP = {"host": "outlook.office365.com", "username": "table@contoso.com", "auth": "oauth2"}
OAUTH = {"provider": "microsoft", "client_id": "8f2a5c1e-0b7d-4c3e-9a61-2f4d8e7b3c90"}


@pytest.mark.parametrize("data, words", [
    ({"imap": OAUTH_IMAP}, ('[imap] auth = "oauth2" needs an [oauth] section', 'provider = "microsoft"')),
    ({"imap": {**OAUTH_IMAP, "auth": "oauth"}}, ('[imap] auth = "oauth": expected one of "password", "oauth2"',
                                                 'auth = "password"')),
    ({"imap": {**OAUTH_IMAP, "password_env": "PBP_IMAP_PASSWORD"}, "oauth": OAUTH},
     ('auth = "oauth2" takes no password, but password_env is set', "remove password_env")),
    ({"imap": {**OAUTH_IMAP, "username": ""}, "oauth": OAUTH}, ("needs username", 'username = "table@contoso.com"')),
    ({"oauth": {"client_id": "x"}}, ("[oauth] provider is missing", 'provider = "microsoft"')),
    ({"oauth": {"provider": "yahoo", "client_id": "x"}},
     ('[oauth] provider = "yahoo": expected one of "microsoft", "google", "other"', 'provider = "microsoft"')),
    ({"oauth": {"provider": "microsoft"}}, ("[oauth] client_id is missing", 'client_id = "8f2a5c1e')),
    ({"oauth": {"provider": "google", "client_id": "x", "tenant": "contoso.com"}},
     ("tenant is Microsoft's alone", 'set provider = "microsoft"')),
    ({"oauth": {"provider": "other", "client_id": "x", "token_url": "https://id.example.org/token"}},
     ('provider = "other" needs device_url (or authorize_url), scopes', 'device_url = "https://id.example.org/oauth2/device"')),
    ({"oauth": {**OAUTH, "token_url": "http://login.example.org/token"}},
     ('token_url = "http://login.example.org/token": expected an https URL', 'token_url = "https://')),
    ({"oauth": {**OAUTH, "client_ID": "x"}}, ("[oauth] client_ID is not a setting", "did you mean client_id?")),
])
def test_oauth_settings_name_the_place_what_was_expected_and_an_example(data, words):
    with pytest.raises(ConfigError) as caught:
        config_from_dict(data)
    said = str(caught.value) + " " + caught.value.hint
    assert all(w in said for w in words), said


def test_an_oauth_mailbox_needs_no_password_and_shares_one_token_source(tmp_path):
    config = config_from_dict({"mail": {"transport": "imap"}, "imap": OAUTH_IMAP,
                               "smtp": {**OAUTH_IMAP, "host": "smtp.office365.com"},
                               "oauth": {**OAUTH, "tenant": "contoso.com", "token_file": "state/token.json"}},
                              base=tmp_path, path=tmp_path / "pbp.toml")
    imap, smtp = config.imap_settings(environ={}), config.smtp_settings(environ={})
    assert imap.auth == smtp.auth == "oauth2" and imap.password == "" and not smtp.password
    assert imap.tokens is smtp.tokens is config.oauth_tokens
    tokens = config.oauth_tokens
    assert tokens.token_file == tmp_path / "state" / "token.json"          # next to the config file
    assert tokens.provider.token_url == "https://login.microsoftonline.com/contoso.com/oauth2/v2.0/token"
    assert "IMAP.AccessAsUser.All" in tokens.provider.scopes and "offline_access" in tokens.provider.scopes
    assert tokens.client_secret is None                                    # a public client: none sent
    assert not (tmp_path / "state").exists()                               # nothing read or written yet


def test_google_reads_its_client_secret_from_the_environment_or_a_file(tmp_path, monkeypatch):
    config = config_from_dict({"imap": {**OAUTH_IMAP, "host": "imap.gmail.com"},
                               "oauth": {"provider": "google", "client_id": "x.apps.googleusercontent.com"}},
                              base=tmp_path)
    monkeypatch.delenv("PBP_OAUTH_CLIENT_SECRET", raising=False)
    with pytest.raises(ConfigError, match="PBP_OAUTH_CLIENT_SECRET"):
        config.oauth_tokens.client_secret
    monkeypatch.setenv("PBP_OAUTH_CLIENT_SECRET", "GOCSPX-s")
    assert config.oauth_tokens.client_secret == "GOCSPX-s"
    assert config.oauth_tokens.provider.scopes == "https://mail.google.com/"
