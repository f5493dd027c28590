"""A secret roll the GM keeps past its scene's end (issue 25; docs/verify.md, "Holding a
secret roll past its scene"): under pbp-dice/2 each secret roll throws with a key of its
own, so the scene's seed is revealed without it. Probed from the players' side: its dice and
outcome are in no table mail, forum post, /table or players' archive until /reveal #N, and
the verifier names it as held, then checks it once revealed."""
from __future__ import annotations

import email
import email.policy
import hashlib
import re

from pbp import verify_dice
from pbp.archive.site import write_site
from pbp.campaigns import add_member, bind_forum
from pbp.pipeline import process_message
from pbp.store import models as m
from tests.dice.test_committed import _edit, decoded, save_mails
from tests.forum.discourse_mail import BOT, LIST_ID, SITE, discourse_mail
from tests.helpers import make_ctx
from tests.play.table import address


def _held(table, step_text: str) -> int:
    return int(re.search(r"Roll #(\d+): Ghoul rolled in secret", step_text).group(1))


def _secret_of(rid: int) -> dict:
    for row in m.SceneSeed.select():
        for kept in row.secrets:
            if kept["roll"] == rid:
                return kept
    raise AssertionError(f"roll #{rid} not kept")


def _leaks(texts: list[str], rid: int, kept: dict) -> list[str]:
    """What of a secret roll's dice or outcome a reader's texts show."""
    faces = [verify_dice.throw_text(kind, faces) for _, kind, faces in kept["throws"]]
    found = []
    for text in texts:
        if kept["told"] in text or any(f"#{rid}:{f}" in text for f in faces):
            found.append(text)
        if re.search(rf"reveal-roll [^\n]*t\d+=#{rid}:", text):
            found.append(text)
    return found


def test_a_held_roll_stays_secret_past_its_scene_and_is_checked_once_revealed(table, tmp_path):
    step = table.post("GM", "The Ghoul listens at the door.\n/as Ghoul overcome Notice vs Fair secret\n")
    assert step.status == "applied", step.text
    rid = _held(table, step.text)
    assert table.post("Cassandra", "I knock.\n/roll\n").status == "applied"      # a later roll, in the open
    held = table.post("GM", f"/hold #{rid}\n")
    assert held.status == "applied", held.text
    assert f"Roll #{rid} stays secret past the scene's end" in held.text, held.text
    end = table.post("GM", "/scene end\n")
    assert end.status == "applied", end.text
    assert f"Roll #{rid} stays secret: the GM holds it past the scene (/reveal #{rid} shows it)." in end.text
    assert re.search(rf"pbp-dice/2 held scene=chicago/1 roll=#{rid} key=0$", end.text, re.M), end.text
    assert "pbp-dice/2 reveal scene=chicago/1 seed=" in end.text
    kept = _secret_of(rid)
    view = table.post("Cassandra", "/table\n")
    assert view.status == "applied"

    # the players' side: every mail Cassandra got, the players' archive
    mails = save_mails(tmp_path / "held", address("Cassandra"))
    texts = [decoded(p.read_text()) for p in sorted(mails.glob("*.eml"))]
    assert not _leaks(texts, rid, kept), kept
    campaign = m.Campaign.get()
    ledger_row = next(r for r in m.RollRecord.select() if (r.detail or {}).get("number") == rid)
    write_site(campaign, tmp_path / "players")
    write_site(campaign, tmp_path / "gm", gm=True)
    players = "\n".join(p.read_text() for p in (tmp_path / "players").glob("*.html"))
    assert f'id="roll-{ledger_row.id}"' not in players and not _leaks([players], rid, kept)
    # nor its hash (with the hash before it, anyone could try every face until one matched)
    assert ledger_row.hash[:8] not in players and not any(ledger_row.hash[:8] in t for t in texts)
    assert f'id="roll-{ledger_row.id}"' in (tmp_path / "gm" / "ledger.html").read_text()
    # the verifier checks the rest of the scene and says which roll it could not check, and why
    good, bad = verify_dice.verify(mails)
    assert not bad, bad
    assert any(f"roll #{rid} cannot be checked: it was secret and the GM holds it secret past the scene (key 0"
               in g for g in good), good
    assert any("commitment matches; 1 throws recomputed, 1 held back" in g for g in good), good

    # in a later scene the GM reveals it: dice, result, key and the key's path
    assert table.post("GM", '/scene start "The Street"\n').status == "applied"
    shown = table.post("GM", f"/reveal #{rid}\n")
    assert shown.status == "applied", shown.text
    assert f"Secret {kept['told']}." in shown.text, shown.text
    assert re.search(rf"pbp-dice/2 reveal-roll scene=chicago/1 post=\S+ text=\w+ key=0:[0-9a-f]{{64}}:"
                     rf"(?:[0-9a-f]{{64}}\.){{4}}[0-9a-f]{{64}} t0=#{rid}:4dF:[-0+]{{4}}$", shown.text, re.M), shown.text
    mails = save_mails(tmp_path / "revealed", address("Cassandra"))
    good, bad = verify_dice.verify(mails)
    assert not bad, bad
    assert not any(f"roll #{rid} cannot be checked" in g for g in good), good
    assert any("chicago/1: commitment matches; 2 throws recomputed" in g for g in good), good
    write_site(campaign, tmp_path / "after")
    assert f'id="roll-{ledger_row.id}"' in (tmp_path / "after" / "ledger.html").read_text()
    # a key that is not the committed one is found out
    _edit(mails, lambda t: re.sub(r"(reveal-roll .* key=0:)([0-9a-f])", lambda mm: mm.group(1)
                                  + ("1" if mm.group(2) != "1" else "2"), t))
    bad = verify_dice.verify(mails)[1]
    assert len(bad) == 1 and "is not one the scene's commitment" in bad[0], bad
    # twice is refused, naming what works
    again = table.post("GM", f"/reveal #{rid}\n")
    assert again.status == "rejected" and "has been revealed already" in again.text, again.text


def test_hold_and_reveal_of_one_roll_are_the_gms_and_name_a_secret_roll(table):
    step = table.post("GM", "/as Ghoul roll secret Notice\n")
    rid = _held(table, step.text)
    refused = table.post("Cassandra", f"/hold #{rid}\n")
    assert refused.status == "rejected" and "/hold is for the GM" in refused.text, refused.text
    refused = table.post("Cassandra", f"/reveal #{rid}\n")
    assert refused.status == "rejected" and "/reveal is for the GM" in refused.text, refused.text
    open_roll = table.post("Cassandra", "/roll\n")
    other = int(re.search(r"#(\d+)", open_roll.text.split("pbp-dice")[-1]).group(1))
    wrong = table.post("GM", f"/hold #{other}\n")
    assert wrong.status == "rejected", wrong.text
    assert f"roll #{other} is not a secret roll" in wrong.text and f"/hold #{rid}" in wrong.text, wrong.text
    # revealed early, in the open scene: the scene's end does not reveal it again
    early = table.post("GM", f"/reveal #{rid}\n")
    assert early.status == "applied" and f"reveal-roll scene=chicago/1" in early.text, early.text
    end = table.post("GM", "/scene end\n")
    assert end.status == "applied" and "reveal-roll" not in end.text and "held" not in end.text, end.text
    late = table.post("GM", f"/hold #{rid}\n")
    assert late.status == "rejected" and "revealed already" in late.text, late.text


def test_a_held_roll_is_not_in_the_forum_topic(chicago, config, tmp_path):
    bind_forum(chicago, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(chicago, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    ctx = make_ctx(config)        # real dice: committed
    posts = [('/scene start "Docks"\n', 1001), ("/as Ghoul overcome Notice vs Fair secret\n", 1002),
             ("/hold #1\n/scene end\n", 1003)]
    for n, (body, post) in enumerate(posts, start=1):
        out = process_message(discourse_mail(body, poster="tess_gm", post=post, number=n, key=f"k{n}",
                                             random=f"r{n}"), ctx)
        assert out.status == "applied", out.errors
    kept = _secret_of(1)
    topic = [email.message_from_string(row.raw, policy=email.policy.default).get_body(("plain",)).get_content()
             for row in m.OutboxMail.select().order_by(m.OutboxMail.id)
             if any(a.endswith("@" + SITE) for a in row.recipients)]
    assert len(topic) == 3 and "pbp-dice/2 held scene=chicago/1 roll=#1 key=0" in topic[2], topic
    assert not _leaks(topic, 1, kept), topic
    saved = tmp_path / "topic"
    saved.mkdir()
    (saved / "topic-12.md").write_text("\n\n---\n\n".join(topic), encoding="utf-8")
    good, bad = verify_dice.verify(saved)
    assert not bad and any("roll #1 cannot be checked" in g for g in good), (good, bad)


def test_the_verifier_still_reads_pbp_dice_1(tmp_path):
    """A scene committed under pbp-dice/1 (before secret keys): its lines, made by hand from
    docs/verify.md's worked example, check out, and a changed die is found."""
    seed = bytes.fromhex("00112233445566778899aabbccddeeff" * 2)
    commit = hashlib.sha256(b"pbp-dice/1 commit\0chicago\x001\0" + seed).hexdigest()
    assert commit == "6308456579f39f6298c2fcbeae1faf79339cec7246f6b44414983c3819a7d6fc"
    digest = verify_dice.text_digest("I try.\n/overcome Contacts vs Fair")
    lines = [f"`pbp-dice/1 commit scene=chicago/1 c={commit}`",
             f"`pbp-dice/1 scene=chicago/1 post=post-2@pbp.test text={digest} t0=#1:4dF:0000 t1=#2:3d10:1.3.4`",
             f"`pbp-dice/1 reveal scene=chicago/1 seed={seed.hex()}`"]
    (tmp_path / "topic.md").write_text("\n\n".join(lines), encoding="utf-8")
    good, bad = verify_dice.verify(tmp_path)
    assert not bad and good == ["scene chicago/1: commitment matches; 2 throws recomputed"], (good, bad)
    (tmp_path / "topic.md").write_text("\n\n".join(lines).replace("1.3.4", "1.3.5"), encoding="utf-8")
    bad = verify_dice.verify(tmp_path)[1]
    assert len(bad) == 1 and "but the seed gives 3d10:1.3.4" in bad[0], bad


def test_the_docs_worked_example_of_pbp_dice_2():
    """docs/verify.md's numbers for the secret keys and the pbp-dice/2 commitment."""
    seed = bytes.fromhex("00112233445566778899aabbccddeeff" * 2)
    keyseed = bytes.fromhex("ffeeddccbbaa99887766554433221100" * 2)
    root = verify_dice.keys_root(keyseed, "chicago", 1)
    assert root == "57e8bb1a0bd07f1f35496b97b1c1edff7835a9fbc9b6d907eefe17f9aad6a714"
    assert verify_dice.commitment(seed, "chicago", 1, root) == \
        "56b961c9a6e52a339922aa220ac2056500b928cfb96757354cafd7249d001a8b"
    key0 = verify_dice.secret_key(keyseed, 0)
    assert key0.hex().startswith("8e56a308") and key0.hex().endswith("30ed")
    path = verify_dice.key_path(keyseed, "chicago", 1, 0)
    assert path[0] == verify_dice.leaf("chicago", 1, 1, verify_dice.secret_key(keyseed, 1)).hex()
    assert path[0].startswith("31184250") and len(path) == 5
    # every key climbs to the root, and none climbs there under another number
    for j in range(verify_dice.KEYS):
        key = verify_dice.secret_key(keyseed, j)
        assert verify_dice.root_of("chicago", 1, j, key, verify_dice.key_path(keyseed, "chicago", 1, j)) == root
    assert verify_dice.root_of("chicago", 1, 1, key0, path) != root
