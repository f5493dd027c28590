"""The GM's corrections never leak (issue 21, item 4): a ``/sheet set`` of an NPC's skills,
stunts or hidden aspects is told to the GM alone, in every system, by mail and on the forum
(by Discourse's mailing-list mode), while ``show_npc_skills`` is off; a fix the table may
see (fate points) is told to the table without the secret part; and with the setting on
the skills are the table's. Read from the players' side: every mail with a player among its
recipients (docs/commands.md, "What the table sees")."""
from __future__ import annotations

import pytest

from pbp.campaigns import set_campaign
from pbp.demo import create_sample_campaign
from pbp.rules.systems import campaign_system
from pbp.samples import SAMPLES
from pbp.store import repo
from tests.channels import CHANNELS, GM, Channel

CASES = [(system, channel) for system in SAMPLES for channel in CHANNELS]


@pytest.fixture(params=CASES, ids=[f"{s}-{c}" for s, c in CASES])
def table(request, db, config):
    system, channel = request.param
    campaign = create_sample_campaign(system)
    npc = next(ch for ch in repo.load_table(campaign).characters.values() if ch.kind == "npc")
    skill = next(s for s in campaign_system(campaign).skills if s not in npc.skills)
    return Channel(channel, campaign, config), npc.name, skill


def quoted(name: str) -> str:
    return f'"{name}"' if " " in name else name


def assert_secret(posted, *secrets: str) -> None:
    assert posted.status == "applied", posted.text
    assert posted.for_gm() and any(all(s in mail.text for s in secrets) for mail in posted.for_gm()), \
        [m.text for m in posted.for_gm()]
    for mail in posted.for_players():
        for secret in secrets:
            assert not mail.says(secret), f"{secret!r} reached {mail.to}:\n{mail.text}"


def test_an_npcs_skills_stunts_and_hidden_aspects_are_the_gms(table):
    channel, npc, skill = table
    assert_secret(channel.post(GM, f"/sheet set {quoted(npc)} skills.{skill}=4\n"), f'skills.{skill}: (none) -> 4')
    assert_secret(channel.post(GM, f'/sheet set {quoted(npc)} stunts.Gutripper="{skill} attack +1"\n'),
                  "Gutripper")
    assert_secret(channel.post(GM, f'/sheet set {quoted(npc)} aspects.hidden="Secretly Craven"\n'),
                  "Secretly Craven")


def test_a_fix_the_table_may_see_is_told_without_the_secret_part(table):
    channel, npc, skill = table
    posted = channel.post(GM, f"/sheet set {quoted(npc)} fate_points=7 skills.{skill}=2\n")
    assert_secret(posted, f'skills.{skill}: (none) -> 2')
    assert any("fate" in mail.text and "-> 7" in mail.text for mail in posted.for_players()), \
        [m.text for m in posted.mails]


def test_with_show_npc_skills_the_table_sees_them(table):
    channel, npc, skill = table
    set_campaign(channel.campaign, "show_npc_skills", "yes")
    posted = channel.post(GM, f"/sheet set {quoted(npc)} skills.{skill}=3\n")
    assert posted.status == "applied", posted.text
    assert any(f'skills.{skill}: (none) -> 3' in mail.text for mail in posted.for_players()), [m.text for m in posted.mails]
