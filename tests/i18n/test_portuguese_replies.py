"""A campaign in Portuguese answers in Portuguese (issue 29), read from the players' side."""
from __future__ import annotations

import pytest

from pbp.campaigns import create_campaign, set_campaign
from pbp.errors import ConfigError
from pbp.store import models as m


def test_the_language_is_a_campaign_setting(db):
    c = create_campaign("mesa", "A Mesa", language="pt-br")
    assert m.Campaign.get_by_id(c.id).settings["language"] == "pt-BR"
    set_campaign(c, "language", "en")
    assert m.Campaign.get_by_id(c.id).settings["language"] == "en"
    with pytest.raises(ConfigError, match="pt-BR"):
        set_campaign(c, "language", "klingon")
    assert create_campaign("english", "English").settings == {}


def test_an_error_is_answered_in_portuguese(mt_pt):
    step = mt_pt.post("Ruth", "Ruth ataca.\n/attack\n")
    assert step.status == "rejected"
    assert "Nada do seu post foi aplicado, porque a linha 2 não pôde ser lida:" in step.text
    assert "Nenhuma ficha mudou; envie o post de novo quando estiver corrigido." in step.text
    assert "Nothing" not in step.text


def test_an_english_campaign_is_answered_in_english(mt):
    step = mt.post("Ruth", "Ruth attacks.\n/attack\n")
    assert "Nothing in your post was applied, because line 2 could not be read:" in step.text
