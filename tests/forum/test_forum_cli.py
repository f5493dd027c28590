"""Setting a table up on a Discourse category as a GM does it (docs/forum.md): `pbp
campaign create --forum`, `pbp campaign add-member --forum-username`, `pbp check-config`
on the mail binding and on the API key, and the [discourse] section of the config."""
from __future__ import annotations

import pytest

from pbp.cli import main
from pbp.config import config_from_dict
from pbp.errors import ConfigError
from pbp.store import models as m

CATEGORY = "https://forum.example.org/c/game-table/5"


def create(*extra) -> int:
    return main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", "gm@pbp.localhost",
                 "--address", "pbp-bot@pbp.localhost", *extra])


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    return tmp_path


def test_campaign_create_forum_binds_the_category(workdir, capsys):
    assert create("--forum", CATEGORY, "--forum-bot", "pbp-bot") == 0
    out = capsys.readouterr().out
    assert "game-table.forum.example.org" in out and "--forum-username" in out
    campaign = m.Campaign.get()
    assert campaign.forum == {"site": "forum.example.org", "list_id": "game-table.forum.example.org", "bot": "pbp-bot",
                              "category_id": 5}
    assert campaign.delivery == "relay"  # members by mail read the forum post's text with the results


def test_a_subcategory_and_an_explicit_list_id(workdir):
    assert create("--forum", "forum.example.org/c/games/game-table/12", "--forum-bot", "pbp-bot",
                  "--forum-list-id", "<table.games.forum.example.org>", "--forum-from", "notify@mail.example.org") == 0
    forum = m.Campaign.get().forum
    assert forum["list_id"] == "table.games.forum.example.org" and forum["from"] == "notify@mail.example.org"


@pytest.mark.parametrize("args, said", [
    (("--forum", CATEGORY), "--forum needs --forum-bot"),
    (("--forum", "https://forum.example.org/latest", "--forum-bot", "pbp-bot"), "not a category's address"),
    (("--forum", CATEGORY, "--forum-bot", "pbp bot"), "not a Discourse username"),
    (("--forum-bot", "pbp-bot"), "go with --forum"),
])
def test_a_bad_forum_binding_creates_nothing(workdir, capsys, args, said):
    assert create(*args) != 0
    err = capsys.readouterr().err
    assert said in err and "e.g." in err      # the place, what was expected and an example
    assert m.Campaign.select().count() == 0


def test_add_member_with_a_forum_username_and_check_config(workdir, capsys):
    assert create("--forum", CATEGORY, "--forum-bot", "pbp-bot") == 0
    assert main(["check-config"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  campaign chicago on the forum by mail: no member of chicago has a forum username" in out
    assert main(["campaign", "add-member", "ruth@pbp.localhost", "--forum-username", "ruth"]) == 0
    assert "ruth on the forum" in capsys.readouterr().out
    assert m.Member.get(m.Member.email == "ruth@pbp.localhost").forum_username == "ruth"
    assert main(["check-config"]) == 0
    out = capsys.readouterr().out
    assert ("ok    campaign chicago on the forum by mail: category <game-table.forum.example.org> of "
            "forum.example.org, bot pbp-bot, replies from pbp-bot@pbp.localhost; 1 member on the forum, 1 by mail") in out


def test_check_config_refuses_a_noreply_sender(workdir, capsys):
    assert create("--forum", CATEGORY, "--forum-bot", "pbp-bot") == 0
    main(["campaign", "add-member", "ruth@pbp.localhost", "--forum-username", "ruth"])
    assert main(["campaign", "set", "address=noreply@pbp.localhost"]) == 0
    capsys.readouterr()
    assert main(["check-config"]) == 1
    assert "Discourse takes for an automatic sender" in capsys.readouterr().out


def test_check_config_tries_the_api_key_and_says_where_it_is_missing(workdir, capsys, monkeypatch):
    monkeypatch.delenv("PBP_DISCOURSE_API_KEY", raising=False)
    with open("pbp.toml", "a", encoding="utf-8") as f:
        f.write('\n[discourse]\nurl = "https://forum.example.org"\nusername = "pbp-bot"\ncategories = [5]\n')
    assert main(["check-config"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  discourse API https://forum.example.org" in out and "PBP_DISCOURSE_API_KEY" in out


def test_the_discourse_section_is_checked_strictly(tmp_path):
    ok = config_from_dict({"discourse": {"url": "https://forum.example.org", "username": "pbp-bot",
                                         "api_key_file": "discourse.key"}}, base=tmp_path)
    assert ok.discourse["api_key_file"] == str(tmp_path / "discourse.key")
    with pytest.raises(ConfigError, match="usrname is not a setting") as found:
        config_from_dict({"discourse": {"url": "https://forum.example.org", "usrname": "pbp-bot"}})
    assert "did you mean username" in found.value.hint
    with pytest.raises(ConfigError, match="api_key in the config file is not read"):
        config_from_dict({"discourse": {"url": "https://forum.example.org", "username": "b", "api_key": "k"}})
    with pytest.raises(ConfigError, match="categories"):
        config_from_dict({"discourse": {"url": "https://forum.example.org", "username": "b", "categories": ["x"]}})
    with pytest.raises(ConfigError, match="unencrypted"):
        config_from_dict({"discourse": {"url": "http://forum.example.org", "username": "b"}})


def test_pbp_process_shows_the_forum_answer(workdir, capsys):
    from pbp.demo import sample_dir

    from .discourse_mail import discourse_mail

    assert create("--forum", CATEGORY, "--forum-bot", "pbp-bot") == 0
    assert main(["character", "import", str(sample_dir() / "ruth.toml")]) == 0
    assert main(["campaign", "add-member", "ruth@pbp.localhost", "--forum-username", "ruth"]) == 0
    (workdir / "post.eml").write_bytes(discourse_mail("/overcome Investigate vs Fair\n", poster="ruth", post=9,
                                                     to="pbp-bot@pbp.localhost"))
    capsys.readouterr()
    assert main(["process", "post.eml", "--dice", "0+00", "--no-send"]) == 0
    out = capsys.readouterr().out
    assert "== post.eml: applied" in out
    assert "-- reply to replies+5f3a9c0d1e2b@forum.example.org" in out and "**Ruth overcomes" in out


DISCOURSE = '\n[discourse]\nurl = "https://forum.example.org"\nusername = "pbp-bot"\ncategories = [5]\n'
KEY = "0f9c3a8e7d6b5a4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c"


@pytest.mark.parametrize("pasted, said", [
    (KEY + "\n", "line break at character 65 of 65"),
    (f'"{KEY}"', "quote at character 1"),
    (f"{KEY} ", "space at character 65"),
    ("Api-Key: " + KEY, "space at character 9"),
])
def test_a_pasted_api_key_gets_a_clear_error_that_never_shows_it(workdir, capsys, monkeypatch, pasted, said):
    """A key pasted with its line break or quotes fails at the start, in words; the key is
    in no output, with -v neither."""
    monkeypatch.setenv("PBP_DISCOURSE_API_KEY", pasted)
    with open("pbp.toml", "a", encoding="utf-8") as f:
        f.write(DISCOURSE)
    for args in (["check-config"], ["-v", "check-config"]):
        assert main(args) == 1
        out, err = capsys.readouterr()
        assert said in out and "the key is not shown" in out
        assert KEY not in out + err and KEY[:12] not in out + err
    with pytest.raises(ConfigError) as found:
        config_from_dict({"discourse": {"url": "https://forum.example.org", "username": "pbp-bot"}}).discourse_settings()
    assert KEY[:12] not in str(found.value) + str(found.value.hint)


def test_an_api_campaign_says_by_api(workdir, capsys, monkeypatch):
    monkeypatch.setenv("PBP_DISCOURSE_API_KEY", KEY)
    with open("pbp.toml", "a", encoding="utf-8") as f:
        f.write(DISCOURSE)
    assert create("--forum", CATEGORY, "--forum-bot", "pbp-bot") == 0
    assert "category 5 (List-ID <game-table.forum.example.org>) of forum.example.org by API" in capsys.readouterr().out
    assert main(["campaign", "add-member", "ruth@pbp.localhost", "--forum-username", "ruth",
                 "--forum-name", "Ruth Kim"]) == 0
    assert "ruth / Ruth Kim on the forum" in capsys.readouterr().out
    main(["check-config"])   # the API key's own check fails here (no forum to ask): the campaign's says how
    assert "ok    campaign chicago on the forum by API: category 5" in capsys.readouterr().out


def test_two_members_cannot_share_a_forum_name(workdir, capsys):
    assert create("--forum", CATEGORY, "--forum-bot", "pbp-bot") == 0
    assert main(["campaign", "add-member", "ruth@pbp.localhost", "--forum-username", "ruth"]) == 0
    capsys.readouterr()
    assert main(["campaign", "add-member", "mallory@pbp.localhost", "--forum-name", "RUTH"]) != 0
    err = capsys.readouterr().err
    assert "already ruth@pbp.localhost's" in err and "e.g." in err
