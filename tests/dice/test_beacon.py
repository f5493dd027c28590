"""A public beacon mixed into a scene's seed after its commitment (docs/verify.md, "A beacon"):
tested with a real recorded round of drand's default chain (tests/data/drand: round 72785,
its randomness, signature and previous signature), since these machines have no internet."""
from __future__ import annotations

import email
import hashlib
import json
import re
from datetime import datetime, timedelta
from email import policy
from pathlib import Path

from pbp import verify_dice
from pbp.beacon import Drand, Recorded, from_config
from pbp.demo import create_sample_campaign
from pbp.flow.context import Context
from pbp.pipeline import process_message
from pbp.rules.dice import RandomDice
from pbp.store import models as m
from tests.dice.test_committed import _edit, save_mails
from tests.helpers import eml
from tests.play.table import address

ROUND = json.loads((Path(__file__).parents[1] / "data" / "drand" / "round-72785.json").read_text())
RECORDED = bytes.fromhex(ROUND["randomness"])
# the scene starts while round 72784 is drand's latest, so the round it names is 72785
SCENE_START = datetime(2020, 8, 16, 21, 49, 5)
SEED = bytes.fromhex("00112233445566778899aabbccddeeff" * 2)       # docs/verify.md's worked example
MIXED_KEY = "f08a3ef5092535c50bef2d3d1758ba8a9e5ae28c35870f8a10b957c29df126a9"
MIXED_THROW = "4dF:+++0"


def test_the_recorded_round_is_drands_own():
    """What a client checks of a round besides its BLS signature: its randomness is the
    SHA-256 of its signature (the chained scheme's definition), at the round's time."""
    assert ROUND["chain"].startswith("8990e7a9") and ROUND["scheme"] == "pedersen-bls-chained"
    assert hashlib.sha256(bytes.fromhex(ROUND["signature"])).hexdigest() == ROUND["randomness"]
    assert (ROUND["genesis_time"], ROUND["period"]) == (1595431050, 30)
    published = datetime.utcfromtimestamp(ROUND["genesis_time"] + (ROUND["round"] - 1) * ROUND["period"])
    assert published == datetime(2020, 8, 16, 21, 49, 30)
    assert Drand().round_after(SCENE_START) == ROUND["round"]
    # from the moment it is public a scene names the next one
    assert Drand().round_after(published - timedelta(seconds=1)) == ROUND["round"]
    assert Drand().round_after(published) == ROUND["round"] + 1


def test_mixing_the_recorded_round_by_hand():
    """docs/verify.md's worked example mixed with round 72785: KEY = HMAC(SEED, "pbp-dice/1
    beacon" 0x00 "72785" 0x00 RANDOMNESS), and throw 0 of the example's post under that key."""
    import hmac

    key = verify_dice.mix_beacon(SEED, 72785, RECORDED)
    assert key == hmac.new(SEED, b"pbp-dice/1 beacon\x0072785\x00" + RECORDED, hashlib.sha256).digest()
    assert key.hex() == MIXED_KEY
    digest = verify_dice.text_digest("I try.\n/overcome Contacts vs Fair")
    assert verify_dice.throw_text("4dF", verify_dice.fate_faces(key, "post-2@pbp.test", digest, 0)) == MIXED_THROW
    assert verify_dice.throw_text("4dF", verify_dice.fate_faces(SEED, "post-2@pbp.test", digest, 0)) == "4dF:0000"


def test_rounds_follow_drands_clock():
    drand = Drand()
    # the default chain: round 1 at genesis, one every 30 s; the round named is the one after
    # the round being published, so its value is not known yet
    assert drand.round_after(datetime.utcfromtimestamp(1595431050)) == 2
    assert drand.round_after(datetime.utcfromtimestamp(1595431050 + 30 * 100 + 5)) == 102


def test_the_config_names_the_beacon(config):
    assert from_config(config) is None


def _post(ctx, who, body, n):
    return process_message(eml(body, sender=address(who), message_id=f"b-{n}@pbp.test"), ctx)


def test_a_recorded_round_is_mixed_in_and_checked(db, config, tmp_path):
    create_sample_campaign()
    round_ = Drand().round_after(SCENE_START)
    beacon = Recorded({})       # the round named is not public when the scene starts
    ctx = Context(config=config, dice=RandomDice(), clock=lambda: SCENE_START, beacon=beacon)
    assert _post(ctx, "GM", '/scene start "Docks"\n', 1).status == "applied"
    assert m.SceneSeed.get().beacon == {"name": "drand", "round": round_, "randomness": None}
    beacon.values[round_] = RECORDED
    assert _post(ctx, "Cassandra", "/roll\n/roll 3d10\n", 2).status == "applied"
    assert _post(ctx, "GM", "/scene end\n", 3).status == "applied"
    mails = save_mails(tmp_path / "mails", address("Cassandra"))
    text = "\n".join(verify_dice.mail_text(email.message_from_bytes(p.read_bytes(), policy=policy.default))
                     for p in sorted(mails.glob("*.eml")))
    assert f"beacon=drand:{round_}" in text and RECORDED.hex() in text
    good, bad = verify_dice.verify(mails)
    assert not bad and "2 throws recomputed" in " ".join(good), (good, bad)
    # the seed alone does not give these dice: the beacon's value was mixed in
    row = m.SceneSeed.get()
    line = re.search(r"t0=#\d+:4dF:(\S+)", text).group(1)
    digest = re.search(r"post=b-2@pbp.test text=(\w+)", text).group(1)
    mixed = verify_dice.mix_beacon(bytes.fromhex(row.seed), round_, RECORDED)
    assert verify_dice.throw_text("4dF", verify_dice.fate_faces(mixed, "b-2@pbp.test", digest, 0)).endswith(line)
    # another round value than the beacon's own is found out
    _edit(mails, lambda t: t.replace(RECORDED.hex(), "00" * 32))
    bad = verify_dice.verify(mails)[1]
    assert bad and all("but the seed gives" in b for b in bad), bad


def test_a_round_not_yet_public_is_read_at_a_later_roll(db, config, tmp_path):
    create_sample_campaign()
    round_ = Drand().round_after(SCENE_START)
    beacon = Recorded({})
    ctx = Context(config=config, dice=RandomDice(), clock=lambda: SCENE_START, beacon=beacon)
    assert _post(ctx, "GM", '/scene start "Docks"\n', 1).status == "applied"
    beacon.values[round_] = RECORDED
    assert _post(ctx, "Cassandra", "/roll\n", 2).status == "applied"
    assert m.SceneSeed.get().beacon["randomness"] == RECORDED.hex()


def test_a_round_that_cannot_be_read_is_given_up_for_the_scene(db, config, tmp_path):
    create_sample_campaign()
    beacon = Recorded({})
    round_ = beacon.round_after(SCENE_START)
    ctx = Context(config=config, dice=RandomDice(), clock=lambda: SCENE_START, beacon=beacon)
    assert _post(ctx, "GM", '/scene start "Docks"\n', 1).status == "applied"
    assert _post(ctx, "Cassandra", "/roll\n", 2).status == "applied"
    beacon.values[round_] = RECORDED      # too late: the scene's first die used the seed alone
    assert _post(ctx, "Cassandra", "/roll\n", 3).status == "applied"
    assert _post(ctx, "GM", "/scene end\n", 4).status == "applied"
    good, bad = verify_dice.verify(save_mails(tmp_path / "mails", address("Cassandra")))
    assert not bad and "could not be read" in " ".join(good) and "2 throws recomputed" in " ".join(good), (good, bad)
