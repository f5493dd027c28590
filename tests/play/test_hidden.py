"""Hidden information stays with the GM, tested from the players' inboxes.

Every test reads every mail pbp wrote (each text part and the subject) and its recipients.
A mail with a player among its recipients never names a hidden aspect, nor an NPC's
skills and stunts unless the campaign shows them; the GM's own mails may.

A player who names a hidden aspect gets exactly the reply that the same name gets where no
such aspect exists: each probe is played twice, in two fresh campaigns that differ only in
that the aspect is there (hidden) or not, and the mails the players get are compared
word for word.
"""
from __future__ import annotations

from tests.helpers import plain_text

import email
import json
import re
from dataclasses import dataclass
from email import policy

import pytest

from pbp.campaigns import set_campaign
from pbp.demo import create_sample_campaign, sample_dir
from pbp.errors import ConfigError
from pbp.store import models as m
from pbp.store import repo
from pbp.store.db import open_database
from tests.play.table import MailTable

GM = "gm@pbp.localhost"
HIDDEN = "Afraid of Fire"          # on the Ghoul, in the sample campaign


# --------------------------------------------------------------------------- reading every mail

@dataclass(frozen=True)
class Mail:
    to: tuple[str, ...]
    subject: str
    parts: tuple[str, ...]         # every text part, decoded (plain and HTML)

    @property
    def to_players(self) -> bool:
        return any(a != GM for a in self.to)

    def says(self, words: str) -> bool:
        words = words.casefold()
        return words in self.subject.casefold() or any(words in p.casefold() for p in self.parts)


def _mail(row) -> Mail:
    msg = email.message_from_string(row.raw, policy=policy.default)
    parts = tuple((plain_text(msg) if p.get_content_subtype() == "plain" else p.get_content())
                  for p in msg.walk() if p.get_content_maintype() == "text")
    header_to = tuple(a.strip() for a in str(msg["To"]).split(","))
    assert sorted(header_to) == sorted(row.recipients), "the To: header and the envelope agree"
    return Mail(tuple(row.recipients), str(msg["Subject"]), parts)


def outbox() -> list[Mail]:
    return [_mail(row) for row in m.OutboxMail.select().order_by(m.OutboxMail.id)]


def mails_of(step) -> list[Mail]:
    return [_mail(m.OutboxMail.get(m.OutboxMail.message_id == r.message_id)) for r in step.replies]


def assert_players_never_told(*secrets: str) -> None:
    """No mail with a player among its recipients names any of ``secrets``, anywhere."""
    for mail in outbox():
        if mail.to_players:
            for secret in secrets:
                assert not mail.says(secret), f"{secret!r} reached {mail.to} in {mail.subject!r}:\n{mail.parts[0]}"


def for_players(step) -> list[Mail]:
    return [mail for mail in mails_of(step) if mail.to_players]


def unhashed(mails: list[Mail]) -> list[Mail]:
    """The mails with each roll's ledger hash left out: the ledger records the whole result,
    the GM's part too, so its hash differs (the players see 8 hex digits of it, which say
    nothing)."""
    return [Mail(mail.to, mail.subject, tuple(re.sub(r"ledger [0-9a-f]{8}", "ledger ########", p) for p in mail.parts))
            for mail in mails]


# --------------------------------------------------------------------------- fresh campaigns

@pytest.fixture
def fresh(config, db):
    """``fresh(label)``: the sample campaign in a database of its own (in memory: the
    pipeline is the same), played by mail."""
    opened = []

    def make(label: str) -> MailTable:
        opened.append(open_database("sqlite:///:memory:"))
        create_sample_campaign()
        return MailTable(config)

    yield make
    for database in opened:
        database.close()


def forget(name: str) -> None:
    """The aspect never was: it leaves play without a trace in any mail."""
    assert m.Aspect.update(active=False).where((m.Aspect.name == name) & (m.Aspect.hidden == True)).execute()  # noqa: E712


def play(table: MailTable, posts):
    step = None
    for who, body, dice in posts:
        step = table.post(who, body, dice=dice)
        assert step.status == "applied", (body, step.outcome.errors)
    return step


# --------------------------------------------------------------------------- every command that takes an aspect name

GHOUL_ATTACKS_RUTH = [("GM", "/as Ghoul attack Ruth with Fight", "0000")]
SCENE_TRAP = [("GM", '/scene start "Cellar" zones Stairs, Pit borders Stairs-Pit\n'
                     '/aspect add "Trip Wire" hidden\n/aspect add "Loose Step" on Stairs hidden', "")]
RUTH_SECRET = [("GM", '/aspect add "Cursed Blood" on Ruth hidden', "")]

# (id, setup posts, the hidden aspect, Ruth's probe with {name}, the probe's dice)
PROBES = [
    ("rename", [], HIDDEN, '/aspect rename "{name}" to "Scorched"', ""),
    ("remove", [], HIDDEN, '/aspect remove "{name}"', ""),
    ("aspect add", [], HIDDEN, '/aspect add "{name}" on Ghoul', ""),
    ("invoke after the dice", [("Ruth", "/overcome Athletics vs Fair", "0000")], HIDDEN, '/invoke "{name}"', ""),
    ("invoke reroll", [("Ruth", "/overcome Athletics vs Fair", "0000")], HIDDEN, '/invoke "{name}" reroll free', ""),
    ("invoke on an ally's roll", [("Charles", "/overcome Athletics vs Fair", "0000")], HIDDEN,
     '/invoke "{name}" on #1', ""),
    ("invoke oppose", [("GM", "/as Ghoul overcome Athletics vs Fair", "0000")], HIDDEN,
     '/invoke "{name}" oppose on #1', ""),
    ("+invoke overcome", [], HIDDEN, '/overcome Athletics vs Fair +invoke "{name}"', "0000"),
    ("+invoke if needed", [], HIDDEN, '/overcome Athletics vs Fair +invoke "{name}" if needed', "0000"),
    ("+invoke attack", [], HIDDEN, '/attack Ghoul with Fight +invoke "{name}" free', "0000,0000"),
    ("+invoke defend", GHOUL_ATTACKS_RUTH, HIDDEN, '/defend Athletics +invoke "{name}"', "0000"),
    ("+invoke advantage", [], HIDDEN, '/advantage Notice "Dazzled" on Ghoul vs Fair +invoke "{name}"', "0000"),
    ("+invoke treat", [], HIDDEN, '/treat me "Bruised" with Academics +invoke "{name}"', ""),
    ("advantage guess, fail", [], HIDDEN, '/advantage Notice "{name}" on Ghoul vs Fair', "----"),
    ("advantage guess, tie", [], HIDDEN, '/advantage Notice "{name}" on Ghoul vs Fair', "0000"),
    ("advantage guess, lower case", [], HIDDEN, '/advantage Notice "afraid of fire" on Ghoul vs Fair', "----"),
    ("advantage guess, opposed", [], HIDDEN, '/advantage Notice "{name}" on Ghoul', "----,0000"),
    ("advantage guess, no target", [], HIDDEN, '/advantage Notice "{name}" vs Fair', "----"),
    ("discover, fail", [], HIDDEN, "/advantage Notice discover on Ghoul vs Fair", "----"),
    ("discover, tie", [], HIDDEN, "/advantage Notice discover on Ghoul vs Fair", "0000"),
    ("compel an NPC", [], HIDDEN, '/compel Ghoul "{name}" event "It flinches from the lamp"', ""),
    ("compel a PC with it", [], HIDDEN, '/compel Charles "{name}" event "The ghoul bolts past him"', ""),
    ("self-compel", [], HIDDEN, '/compel me "{name}" decision "I back away"', ""),
    ("give", [], HIDDEN, '/give "{name}" Charles', ""),
    ("give to", [], HIDDEN, '/give "{name}" to Charles 2', ""),
    ("veto", [("Ruth", "/overcome Athletics vs Fair", "0000")], HIDDEN, '/veto #1 "{name}"', ""),
    ("detail", [], HIDDEN, '/detail "The ghoul is {name}"', ""),
    ("as", [], HIDDEN, '/as Ruth overcome Athletics vs Fair +invoke "{name}"', "0000"),
    # a hidden aspect on the scene, on a zone, and on Ruth's own sheet (she does not know it)
    ("scene: +invoke", SCENE_TRAP, "Trip Wire", '/overcome Athletics vs Fair +invoke "{name}"', "0000"),
    ("scene: guess", SCENE_TRAP, "Trip Wire", '/advantage Notice "{name}" vs Fair', "0000"),
    ("scene: discover", SCENE_TRAP, "Trip Wire", "/advantage Notice discover vs Fair", "----"),
    ("scene: rename", SCENE_TRAP, "Trip Wire", '/aspect rename "{name}" to "Cut Wire"', ""),
    ("zone: +invoke", SCENE_TRAP, "Loose Step", '/overcome Athletics vs Fair +invoke "{name}"', "0000"),
    ("own: +invoke", RUTH_SECRET, "Cursed Blood", '/overcome Athletics vs Fair +invoke "{name}"', "0000"),
    ("own: rename", RUTH_SECRET, "Cursed Blood", '/aspect rename "{name}" to "Clean Blood"', ""),
    ("own: self-compel", RUTH_SECRET, "Cursed Blood", '/compel me "{name}" decision "I drink"', ""),
    ("own: guess", RUTH_SECRET, "Cursed Blood", '/advantage Notice "{name}" on Ruth vs Fair', "----"),
    ("own: absorb with it", RUTH_SECRET + GHOUL_ATTACKS_RUTH + [("Ruth", "/defend Athletics", "----")],
     "Cursed Blood", '/absorb stress 1 mild "{name}"', ""),
    ("treat", [], HIDDEN, '/treat me "{name}" with Academics', ""),
    ("own: treated as it", RUTH_SECRET + GHOUL_ATTACKS_RUTH + [("Ruth", "/defend Athletics", "----"),
                                                            ("Ruth", '/absorb stress 1 mild "Bitten"', "")],
     "Cursed Blood", '/treat me "Bitten" with Academics as "{name}"', "++++"),
    ("own: boost renamed as it", RUTH_SECRET + [("Ruth", "/overcome Athletics vs Fair", "++++")],
     "Cursed Blood", "/aspect rename \"Ruth's Boost\" to \"{name}\"", ""),
    ("scene: boost renamed as it", SCENE_TRAP + [("Ruth", "/overcome Athletics vs Fair", "++++")],
     "Trip Wire", "/aspect rename \"Ruth's Boost\" to \"{name}\"", ""),
    ("npc add", [], HIDDEN, '/npc add Thug minor "{name}" skills Fight Fair stress 1', ""),
    # a short name ("Afraid" for "Afraid of Fire") never finds a hidden aspect
    ("+invoke short name", [], HIDDEN, '/overcome Athletics vs Fair +invoke "Afraid"', "0000"),
    ("invoke after the dice, short name", [("Ruth", "/overcome Athletics vs Fair", "0000")], HIDDEN,
     '/invoke "afraid of"', ""),
    ("scene: short name", SCENE_TRAP, "Trip Wire", '/overcome Athletics vs Fair +invoke Trip', "0000"),
]


@pytest.mark.parametrize("setup, hidden, probe, dice", [p[1:] for p in PROBES], ids=[p[0] for p in PROBES])
def test_a_hidden_name_gets_the_reply_a_missing_one_gets(fresh, setup, hidden, probe, dice):
    body = probe.format(name=hidden)
    there = fresh("there")
    play(there, setup)
    hidden_step = there.post("Ruth", body, dice=dice)
    told_there = for_players(hidden_step)

    gone = fresh("gone")
    play(gone, setup)
    forget(hidden)
    gone_step = gone.post("Ruth", body, dice=dice)

    assert hidden_step.status == gone_step.status
    assert unhashed(told_there) == unhashed(for_players(gone_step))
    assert told_there, "the players heard something"


@pytest.mark.parametrize("setup, hidden, probe, dice", [p[1:] for p in PROBES if "{name}" in p[3]],
                         ids=[p[0] for p in PROBES if "{name}" in p[3]])
def test_a_near_miss_is_never_answered_with_the_hidden_name(fresh, setup, hidden, probe, dice):
    """"did you mean ...?" suggests only what the players know."""
    table = fresh("near")
    play(table, setup)
    near = hidden[:-1] + "y" + hidden[-1:]            # Afraid of Fiye, Trip Wiye...
    step = table.post("Ruth", probe.format(name=near), dice=dice)
    assert step.replies
    assert_players_never_told(hidden)


def test_a_different_missing_name_reads_the_same_once_the_names_are_swapped(fresh):
    """The issue's own case: naming a hidden aspect is answered as naming any other name."""
    table = fresh("swap")
    answers = []
    for name in (HIDDEN, "Fond of Ice"):
        step = table.post("Ruth", f'/aspect rename "{name}" to "x"')
        answers.append([p.replace(name, "NAME") for mail in mails_of(step) for p in (mail.subject, *mail.parts)])
    assert answers[0] == answers[1]
    assert "did you mean" not in " ".join(answers[0])
    near = table.post("Ruth", '/aspect rename "Afraid of Water" to "x"')
    assert near.status == "rejected" and "did you mean" not in near.text
    assert not any(mail.says(HIDDEN) for mail in mails_of(near))


def test_an_npcs_skills_are_not_suggested_to_players(mt):
    step = mt.post("Ruth", "/overcome Athletics vs Shoggoth using Crushing")
    assert step.status == "rejected" and 'no skill "Crushing"' in step.text
    assert_players_never_told("Crushing Everything")


# --------------------------------------------------------------------------- /sheet

def test_a_players_sheet_of_an_npc_shows_what_the_table_knows(mt):
    step = mt.post("Ruth", "Ruth sizes it up.\n/sheet Ghoul")
    (mail,) = mails_of(step)
    assert mail.to_players and len(mail.to) == 5
    text = mail.parts[0]
    for known in ("Ghoul", "Ghoul of the Chicago Undercity", "Hungry for Flesh", "physical stress", "mild"):
        assert known in text
    for secret in (HIDDEN, "Physique", "Stealth", "+3"):
        assert secret not in text
    assert "known to the GM" in text
    assert_players_never_told(HIDDEN, "Physique +3", "Stealth +2")


def test_a_players_sheet_of_an_npc_with_the_campaign_showing_npc_skills(chicago, mt):
    set_campaign(chicago, "show_npc_skills", "true")
    text = mt.post("Charles", '/sheet "Masked Acolyte"\n/sheet Ghoul').text
    assert "Fight +2, Athletics +1" in text and "Physique +3" in text
    assert HIDDEN not in text
    assert_players_never_told(HIDDEN)


def test_a_players_sheet_of_a_pc_keeps_its_skills_and_stunts_but_not_its_hidden_aspects(mt):
    play(mt, RUTH_SECRET)
    text = mt.post("Ruth", "/sheet").text
    assert "Fight +4" in text and "Knife Thrower" in text and "Hair-Trigger Temper" in text
    assert "Cursed Blood" not in text
    assert_players_never_told("Cursed Blood")


def test_the_gms_sheet_goes_to_the_gm_alone_and_shows_everything(mt):
    step = mt.post("GM", "/sheet Ghoul")
    (mail,) = mails_of(step)
    assert mail.to == (GM,)
    assert "Afraid of Fire (hidden)" in mail.parts[0] and "Physique +3" in mail.parts[0]
    assert "GM only" in mail.subject
    assert step.outcome.results[0]["gm_only"] is True


def test_the_gm_asking_among_prose_the_table_gets_the_prose_only(mt):
    step = mt.post("GM", "The ghoul sniffs the air.\n/sheet Ghoul\nIt turns towards Ruth.")
    table, gm = mails_of(step)
    assert table.to_players and "The ghoul sniffs the air." in table.parts[0] and "It turns towards Ruth." in table.parts[0]
    assert "/sheet" not in table.parts[0] and "Hungry for Flesh" not in table.parts[0]
    assert gm.to == (GM,) and HIDDEN in gm.parts[0]


# --------------------------------------------------------------------------- the GM's hidden aspects

def test_a_hidden_aspect_added_is_told_to_the_gm_alone(mt):
    step = mt.post("GM", '/aspect add "Secret Weakness" on Ghoul hidden')
    (mail,) = mails_of(step)
    assert mail.to == (GM,)
    assert "Secret Weakness is in play on Ghoul" in mail.parts[0] and "Changed: Secret Weakness created" in mail.parts[0]
    assert_players_never_told("Secret Weakness")
    ghoul = repo.load_table(m.Campaign.get()).find_aspect("Secret Weakness")
    assert ghoul.hidden and ghoul.owner == "Ghoul"


def test_among_other_commands_the_table_reads_the_rest(mt):
    step = mt.post("GM", "Smoke fills the cellar.\n"
                         '/aspect add "Secret Weakness" on Ghoul hidden free 2\n'
                         '/aspect add "Thick Smoke" free 1\n'
                         '/aspect add "Trap Door" hidden')
    table, gm = mails_of(step)
    text = table.parts[0]
    assert "Smoke fills the cellar." in text and "Thick Smoke is in play on the scene" in text
    assert "Changed: Thick Smoke created · GM's free invokes on Thick Smoke 0 -> 1" in text
    assert "Sheets:" not in text                     # only the Ghoul's hidden side changed
    assert gm.to == (GM,) and "Secret Weakness" in gm.parts[0] and "Trap Door" in gm.parts[0]
    assert "Thick Smoke" not in gm.parts[0]          # the GM's copy is what the table did not read
    assert_players_never_told("Secret Weakness", "Trap Door")


def test_renaming_and_removing_a_hidden_aspect_are_told_to_the_gm_alone(mt):
    for body in (f'/aspect rename "{HIDDEN}" to "Terrified of Fire"', '/aspect remove "Terrified of Fire"'):
        step = mt.post("GM", body)
        assert [mail.to for mail in mails_of(step)] == [(GM,)]
    assert_players_never_told(HIDDEN, "Terrified of Fire")


def test_a_hidden_scene_aspect_leaves_with_the_scene_unannounced(mt):
    play(mt, [("GM", '/scene start "Cellar"\n/aspect add "Trip Wire" hidden free 1', "")])
    step = mt.post("GM", "/scene end")
    assert "Scene 1" in step.text and "Trip Wire" not in step.text
    same_post = mt.post("GM", '/scene start "Sewer"\n/aspect add "Rotten Plank" hidden\n/scene end')
    assert "Rotten Plank" not in same_post.text
    assert_players_never_told("Trip Wire", "Rotten Plank")


def test_a_players_failed_discover_tells_the_gm_what_was_missed(mt):
    step = mt.post("Ruth", "/advantage Notice discover on Ghoul vs Fair", dice="----")
    table, gm = mails_of(step)
    assert "Ruth finds nothing on Ghoul" in table.parts[0]
    assert gm.to == (GM,) and f"did not find {HIDDEN} on Ghoul" in gm.parts[0]
    assert_players_never_told(HIDDEN)
    assert [r["kind"] for r in step.outcome.results[0]["effects"]] == ["fail", "may_reveal"]


def test_a_failed_guess_tells_the_gm_and_a_cost_reveals_it(mt):
    step = mt.post("Ruth", f'/advantage Notice "{HIDDEN}" on Ghoul vs Fair', dice="----")
    assert [mail.to for mail in mails_of(step)][1:] == [(GM,)]
    cost = mt.post("Ruth", f'/advantage Notice "{HIDDEN}" on Ghoul vs Fair on fail cost', dice="----")
    assert f"{HIDDEN} is in play, but it works against Ruth" in cost.text
    assert f"{HIDDEN} revealed" in cost.text and "Ghoul gets a free invoke" in cost.text
    assert not repo.load_table(m.Campaign.get()).find_aspect(HIDDEN).hidden


def test_a_player_naming_an_aspect_as_a_hidden_one_is_not_refused_the_hidden_one_steps_aside(mt):
    play(mt, SCENE_TRAP + [("Ruth", "/overcome Athletics vs Fair", "++++")])
    step = mt.post("Ruth", "/aspect rename \"Ruth's Boost\" to \"Trip Wire\"")
    table, gm = mails_of(step)
    assert "Changed: Ruth's Boost is now Trip Wire" in table.parts[0]
    assert "(secret)" not in table.parts[0]
    assert gm.to == (GM,) and "the hidden one is now Trip Wire (secret)" in gm.parts[0]
    aspects = {(a.name, a.hidden) for a in repo.load_table(m.Campaign.get()).aspects if a.owner is None}
    assert {("Trip Wire", False), ("Trip Wire (secret)", True)} <= aspects
    assert_players_never_told("Trip Wire (secret)")


def test_what_reveals_a_hidden_aspect_tells_the_table(mt):
    """A discover that succeeds, and the GM's side using it openly: from then on it is known."""
    step = mt.post("Ruth", "/advantage Notice discover on Ghoul vs Fair", dice="++00")
    assert f"Ruth discovers {HIDDEN} on Ghoul" in step.text and f"{HIDDEN} revealed" in step.text
    assert HIDDEN in mt.post("Charles", "/sheet Ghoul").text


def test_the_gms_side_invoking_it_reveals_it(mt):
    step = mt.post("GM", f'/as Ghoul overcome Athletics vs Fair +invoke "{HIDDEN}"', dice="0000")
    assert f"{HIDDEN} revealed" in step.text
    assert HIDDEN in mt.post("Charles", "/sheet Ghoul").text


def test_a_gm_compel_on_a_hidden_aspect_reveals_it(mt):
    play(mt, RUTH_SECRET)
    step = mt.post("GM", '/compel Ruth "Cursed Blood" event "The blood sings at the full moon"')
    assert step.status == "applied", step.outcome.errors
    assert "Cursed Blood revealed" in step.text
    assert "Cursed Blood" in mt.post("Ruth", "/sheet").text


def test_free_invokes_on_a_hidden_aspect_given_to_an_npc_stay_secret_and_to_a_player_reveal_it(mt):
    play(mt, [("GM", '/aspect add "Trap Door" hidden free 2', "")])
    to_npc = mt.post("GM", '/give "Trap Door" Ghoul')
    assert [mail.to for mail in mails_of(to_npc)] == [(GM,)]
    assert_players_never_told("Trap Door")
    to_ruth = mt.post("GM", '/give "Trap Door" Ruth')
    assert "Trap Door revealed" in to_ruth.text and "holds 1 on Trap Door" in to_ruth.text
    assert mt.post("Ruth", '/overcome Athletics vs Fair +invoke "Trap Door" free', dice="0000").status == "applied"


def test_npc_skills_in_npc_add_follow_the_campaign_setting(chicago, mt):
    step = mt.post("GM", '/npc add Cultist minor "Fanatical Devotion" skills Fight Fair, Shoot Good stress 1 '
                         "defend Athletics")
    table, gm = mails_of(step)
    assert 'New minor NPC Cultist: "Fanatical Devotion"; 1 stress box.' in table.parts[0]
    assert "Shoot +3" in gm.parts[0] and "defends with Athletics" in gm.parts[0]
    assert_players_never_told("Shoot +3", "Fight +2", "defends with")
    set_campaign(chicago, "show_npc_skills", "yes")
    shown = mt.post("GM", '/npc add Thug minor "Hired Muscle" skills Fight Fair stress 1')
    assert [mail.to_players for mail in mails_of(shown)] == [True]
    assert "Fight +2" in shown.text


def test_list_mode_the_list_reads_the_tables_view(chicago, mt):
    chicago.delivery, chicago.address = "list", "chicago-list@lists.example"
    chicago.save()
    step = mt.post("GM", 'The cellar is quiet.\n/aspect add "Secret Weakness" on Ghoul hidden\n/sheet Ghoul\n'
                         '/aspect add "Dim Light"')
    lst, gm = mails_of(step)
    assert lst.to == ("chicago-list@lists.example",) and gm.to == (GM,)
    assert "Dim Light is in play" in lst.parts[0]
    assert not lst.says("Secret Weakness") and not lst.says(HIDDEN)
    assert "Secret Weakness" in gm.parts[0] and f"{HIDDEN} (hidden)" in gm.parts[0]
    only_secret = mt.post("GM", '/aspect add "Trap Door" hidden')
    assert [mail.to for mail in mails_of(only_secret)] == [(GM,)]


# --------------------------------------------------------------------------- JSON and settings

def test_sheet_json_marks_every_aspect(chicago):
    from pbp.sheets_view import sheet_dict

    table = repo.load_table(chicago)
    aspects = {a["name"]: a["hidden"] for a in sheet_dict(table.character("Ghoul"), table)["aspects"]}
    assert aspects == {"Ghoul of the Chicago Undercity": False, "Hungry for Flesh": False, HIDDEN: True}


def test_process_json_keeps_the_names_for_the_operator(mt):
    step = mt.post("GM", '/aspect add "Secret Weakness" on Ghoul hidden')
    out = step.outcome.to_dict()
    assert out["results"][0]["gm_only"] is True and "Secret Weakness" in json.dumps(out["results"])
    assert [r["to"] for r in out["replies"]] == [[GM]]


def test_show_npc_skills_is_a_yes_or_no_campaign_setting(chicago):
    with pytest.raises(ConfigError):
        set_campaign(chicago, "show_npc_skills", "sometimes")
    set_campaign(chicago, "show_npc_skills", "on")
    assert m.Campaign.get_by_id(chicago.id).settings["show_npc_skills"] is True
    set_campaign(chicago, "show_npc_skills", "false")
    assert m.Campaign.get_by_id(chicago.id).settings["show_npc_skills"] is False


def test_the_operators_command_line_shows_everything_and_sets_the_setting(tmp_path, monkeypatch, capsys):
    from pbp.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    assert main(["campaign", "create", "chicago", "--name", "Chicago Nights", "--gm", GM]) == 0
    sheets = [str(p) for p in sorted(sample_dir().glob("*.toml")) if p.name != "campaign.toml"]
    assert main(["character", "import", *sheets, "--campaign", "chicago"]) == 0
    capsys.readouterr()
    assert main(["sheet", "Ghoul", "--json"]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert [(a["name"], a["hidden"]) for a in sheet["aspects"]][-1] == (HIDDEN, True)
    assert sheet["skills"]["Physique"] == 3
    assert main(["sheet", "Ghoul"]) == 0
    assert f"{HIDDEN} (hidden)" in capsys.readouterr().out
    assert main(["campaign", "set", "show_npc_skills=true", "--campaign", "chicago"]) == 0
    assert main(["campaign", "list"]) == 0
    assert "show_npc_skills=yes" in capsys.readouterr().out
