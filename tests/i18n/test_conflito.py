"""A whole conflict played in Portuguese (issue 29), by mail and in a forum topic: posts in
Portuguese in, replies in Portuguese out (tests/golden/conflito_em_portugues)."""
from __future__ import annotations

import re

from tests.forum.discourse_mail import BOT, LIST_ID, SITE
from tests.forum.forum_table import ForumTable
from tests.play import golden

#: English words of pbp's replies that a Portuguese table must not read (what pbp says in a
#: conflict: the working of each roll, turns, asks and deadlines, harm, the end). Not all of
#: pbp's sentences are translated yet (docs/jogar-em-portugues.md, "O que ainda está em
#: inglês"): the transcript pins the rest.
ENGLISH = re.compile(r"\b(overcomes|attacks|effort|success|Changed|Sheets|Turn:|hands the turn|Reply with|"
                     r"waits for your defence|begins|could invoke|not applied|Nothing|Still to act|Waiting for|"
                     r"The conflict is over|acts first|conflict begins|concedes|Zones|Borders|is in [A-Z])")


def _english_lines(transcript: str) -> list[str]:
    return [line for line in transcript.splitlines() if not line.startswith(("===", "--- to:"))
            and ENGLISH.search(line)]


def test_a_conflict_by_mail_in_portuguese(mesa, config, update):
    table, transcript = golden.check("conflito_em_portugues", config, update)
    assert len(table.steps) >= 20
    assert [n for n, s in enumerate(table.steps, start=1) if s.status != "applied"] == []
    assert _english_lines(transcript) == []
    assert "Começa um conflito físico: Ethan, Ruth, Cassandra contra Ghoul, Cultista Encapuzado. Ethan age primeiro." \
        in table.steps[0].text
    assert "Vez: Ruth. Ainda faltam agir nesta rodada: Cassandra, Ghoul, Cultista Encapuzado." in table.steps[1].text
    assert "Ruth, o ataque de Ghoul (Luta, Excepcional (+5)) espera a sua defesa (#5)." in table.steps[4].text
    assert "  /defender Luta" in table.steps[4].text
    assert "Ruth defende com Luta, Ótima (+4)" in table.steps[5].text
    assert "O conflito acabou: Cassandra, Ethan e Ruth vencem" in transcript or "O conflito acabou" in transcript


def test_the_same_conflict_in_a_forum_topic(mesa, config, update):
    from pbp.campaigns import add_member, bind_forum

    bind_forum(mesa, site=SITE, list_id=LIST_ID, bot=BOT, names="usernames")
    add_member(mesa, "gm@pbp.localhost", "gm", forum_username="tess_gm")
    add_member(mesa, "ruth@pbp.localhost", forum_username="ruth")
    add_member(mesa, "cassandra@pbp.localhost", forum_username="cassandra_v")
    table, transcript = golden.play("conflito_em_portugues", config, ForumTable(config))
    assert len(table.steps) >= 20
    forum = [r for s in table.steps for r in s.replies if r.subject == "(forum post)"]
    assert len(forum) >= 15
    assert [n for n, s in enumerate(table.steps, start=1) if s.status != "applied"] == []
    assert _english_lines(transcript) == []
