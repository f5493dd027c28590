"""When a hostile invoke's point reaches the aspect's owner, by the campaign's system (issue 21,
item 3), read from the sheets the table's mail shows. Fate Condensed pays at the conflict's end
(001_0095f60d590caa10.txt, "Ending a Conflict": "the GM also pays out fate points owed to
players for hostile invokes that happened during the conflict"); the d10 hack only after the
scene (004_c619695e1641b466.txt, "Aspects": "they can't use it until AFTER THE SCENE you give
it to them in")."""
from __future__ import annotations

from pbp.store import models as m
from pbp.store import repo
from tests.play.table import MailTable


def fate_points(slug: str, name: str) -> int:
    return repo.load_table(m.Campaign.get(m.Campaign.slug == slug)).character(name).fate_points


def play(t: MailTable, posts) -> None:
    for body, dice in posts:
        step = t.post("GM", body + "\n", dice=dice)
        assert step.status == "applied", (body, step.text)


def test_the_d10_hack_pays_after_the_scene_not_at_the_conflicts_end(scrapyard, config):
    t = MailTable(config)
    play(t, [('/scene start "Yard"', ""), ("/conflict start Ruth, Grunt first Grunt", ""),
             ('/as Grunt overcome Shoot vs 2 +invoke "Reckless When Cornered"', "2 2")])
    assert "Ruth gets that fate point at the end of the scene" in t.steps[-1].text
    ended = t.post("GM", "/conflict end\n")
    assert ended.status == "applied" and "Ruth FP" not in ended.text and fate_points("scrap", "Ruth") == 3
    scene = t.post("GM", "/scene end\n")
    assert "Ruth FP 3 -> 4" in scene.text and fate_points("scrap", "Ruth") == 4


def test_fate_condensed_pays_at_the_conflicts_end(chicago, mt):
    play(mt, [('/scene start "Warehouse"', ""), ("/conflict start Ruth, Ghoul first Ghoul", ""),
              ('/as Ghoul overcome Athletics vs Fair +invoke "Hair-Trigger Temper"', "0000")])
    ended = mt.post("GM", "/conflict end\n")
    assert "Ruth FP 3 -> 4" in ended.text and fate_points("chicago", "Ruth") == 4
