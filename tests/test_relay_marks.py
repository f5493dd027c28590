"""Relayed prose can never pass for pbp's own words (issue 30, item 3), from the table's
side: a player writes lines in the format of pbp's results into a post; the relayed mail
every member gets, read back from the outbox, shows pbp's lines marked (text: each starts
with the mark; HTML: pbp's results are styled blocks) and the player's lines never so."""
from __future__ import annotations

import email
import re
from email import policy

import pytest

from pbp.pipeline import process_message
from pbp.render import MARK, relayed_line
from pbp.store import models as m
from tests.helpers import eml, make_ctx, plain_text

FAKES = [  # (what Ruth types, how the table's mail shows it)
    ("  Ruth overcomes with Athletics Fair (+2)", "  Ruth overcomes with Athletics Fair (+2)"),
    ("    => success with style", "    => success with style"),
    (f"{MARK} Changed: Ruth FP 3 -> 5", f"\\{MARK} Changed: Ruth FP 3 -> 5"),
    ("\u2502 roll #99 · ledger deadbeef", "\\\u2502 roll #99 · ledger deadbeef"),
    ("| Turn: Ruth. Ruth gets 2 free invokes", "\\| Turn: Ruth. Ruth gets 2 free invokes"),
    (f"   {MARK}   Ruth is taken out of the way", f"\\   {MARK}   Ruth is taken out of the way"),
    (f"\u00a0\u2800{MARK} Sheets: Ruth FP 9", f"\\\u00a0\u2800{MARK} Sheets: Ruth FP 9"),
    (f"\u202e{MARK} nettirw sdrow s'pbp", f"\\{MARK} nettirw sdrow s'pbp"),    # a bidi override is dropped
    ("\uff5c Cassandra concedes", "\\\uff5c Cassandra concedes"),               # a full-width bar
    (f"\u05e9\u05dc\u05d5\u05dd {MARK}", f"\u05e9\u05dc\u05d5\u05dd {MARK}\\"),  # right to left: its end shows first
    (f"Ruth draws a line {MARK} in the dust.", f"Ruth draws a line {MARK} in the dust."),
]


def table_mail(out) -> tuple[str, str]:
    """The plain text and the HTML of the table's mail, as the parser reads them."""
    (reply,) = [r for r in out.replies if "gm@pbp.localhost" in r["to"] and "ruth@pbp.localhost" in r["to"]]
    msg = email.message_from_string(m.OutboxMail.get(m.OutboxMail.message_id == reply["message_id"]).raw,
                                    policy=policy.default)
    return plain_text(msg), msg.get_body(("html",)).get_content()


@pytest.fixture
def relayed(chicago, config):
    body = "Ruth kicks the chapel door.\n/overcome Athletics vs Fair\n" + "\n".join(t for t, _ in FAKES) + "\n"
    out = process_message(eml(body), make_ctx(config, "0000"))
    assert out.status == "applied", out.errors
    return table_mail(out)


def test_the_players_imitations_are_never_marked_and_pbps_lines_always_are(relayed):
    text, _ = relayed
    lines = text.splitlines()
    for _, shown in FAKES:
        assert shown in lines, (shown, lines)
    ours = [line for line in lines if line.startswith(MARK)]
    assert f"{MARK}   Ruth overcomes with Athletics, Good (+3)" in ours          # the real result
    assert any(line.startswith(f"{MARK}     =>") for line in ours) and any("roll #1" in line for line in ours)
    for fake in ("success with style", "deadbeef", "FP 3 -> 5", "free invokes", "taken out", "FP 9", "concedes",
                 "nettirw"):
        assert not any(fake in line for line in ours), fake
    # every line is the player's (unmarked, and showing nothing like the mark first) or pbp's
    for line in lines:
        if line.strip() and not line.startswith(MARK):
            assert relayed_line(line) in (line, "\\" + line) and not line.lstrip().startswith(MARK)
    assert "Ruth kicks the chapel door." in lines


def test_in_html_only_pbps_results_are_styled_blocks(relayed):
    _, html = relayed
    blocks = html.split('<div style="border:1px solid #ccc;')[1:]
    assert len(blocks) == 1 and "Ruth overcomes with Athletics" in blocks[0].split("roll #1")[0]
    result = blocks[0].split("roll #1")[0]
    for fake in ("success with style", "deadbeef", "FP 3 -&gt; 5", "free invokes"):
        assert fake not in result
        assert re.search(r"<p>[^<]*" + re.escape(fake) + r"[^<]*</p>", html), fake   # a plain paragraph
    assert "<div" not in "".join(re.findall(r"<p>(.*?)</p>", html, flags=re.S))


def test_list_mode_and_deadline_mails_relay_no_prose_and_carry_no_mark(chicago, config):
    """Only a mail that relays a post needs the mark: in list mode the table reads the
    player's own mail, and pbp's answer has results only."""
    m.Campaign.update(delivery="list").where(m.Campaign.id == chicago.id).execute()
    out = process_message(eml(f"Ruth kicks the door.\n/overcome Athletics vs Fair\n{MARK} fake\n"),
                          make_ctx(config, "0000"))
    assert out.status == "applied"
    (reply,) = out.replies
    text = plain_text(email.message_from_string(m.OutboxMail.get(m.OutboxMail.message_id == reply["message_id"]).raw,
                                                policy=policy.default))
    assert MARK not in text and "fake" not in text and "Ruth overcomes with Athletics" in text
