"""Scenes, sessions and milestones by mail: what ending each one clears; minor NPCs made on
the spot; treating a consequence and its recovery clock."""
from __future__ import annotations

from pbp.play.core import HANDLERS
from pbp.play import conflict, exchanges, scenes
from pbp import commands as c
from pbp.store import repo


def table(campaign):
    return repo.load_table(campaign)


def test_every_conflict_command_is_handled_here():
    assert HANDLERS[c.Attack] is conflict.act and HANDLERS[c.Defend] is conflict.act
    assert HANDLERS[c.Absorb] is conflict.absorb and HANDLERS[c.Concede] is conflict.concede
    assert HANDLERS[c.Next] is exchanges.next_turn and HANDLERS[c.Move] is exchanges.move
    assert HANDLERS[c.SceneStart] is scenes.start_scene and HANDLERS[c.SceneEnd] is scenes.scene_end and HANDLERS[c.NpcCmd] is scenes.npc_add
    assert HANDLERS[c.Treat] is scenes.treat and HANDLERS[c.AspectAdd] is scenes.aspect_add


def test_scene_end_clears_stress_boosts_and_situation_aspects(mt, chicago):
    step = mt.post("GM", '/scene start Cellar zones Stairs, Vault borders Stairs-Vault\n'
                         '/aspect add "Deep Shadows" free 1\n/aspect add "Slick Steps" on Stairs\n'
                         '/conflict start Ruth, Ghoul first Ruth\n')
    assert step.status == "applied", step.text
    assert "Deep Shadows is in play on the scene, with 1 free invoke for the GM's side." in step.text
    # Ruth's attack ties: a boost; the ghoul's attack on Ruth hits for 2 (absorbed with boxes)
    mt.post("Ruth", "/attack Ghoul with Fight\n/next Ghoul\n", dice="-000,+000")
    mt.post("GM", "/as Ghoul attack Ruth with Fight\n", dice="++00")
    mt.post("Ruth", "/defend Athletics\n", dice="0-00")
    mt.post("Ruth", "/absorb stress 2\n")
    t = table(chicago)
    assert t.character("Ruth").stress["physical"][:2] == [True, True]
    assert {a.kind for a in t.aspects if a.owner is None or a.kind == "zone"} >= {"situation", "zone", "boost"}
    refused = mt.post("GM", "/scene end\n")
    assert refused.status == "rejected" and "/conflict end" in refused.text
    end = mt.post("GM", "/conflict end\n/scene end\n")
    assert end.status == "applied", end.text
    t = table(chicago)
    assert t.character("Ruth").stress["physical"] == [False] * 4
    assert not [a for a in t.aspects if a.kind in ("situation", "zone", "boost")]
    assert t.find_aspect("Hungry for Flesh") is not None          # character aspects stay


def test_session_end_refreshes_and_moderates_recover_after_a_full_session(mt, chicago):
    from pbp.store import models as m

    row = m.Character.get(m.Character.name == "Charles")
    row.fate_points = 1
    row.consequences = [{"severity": "mild", "shifts": 2, "aspect": None},
                        {"severity": "moderate", "shifts": 4, "aspect": "Gaping Chest Wound", "hit_track": "physical"},
                        {"severity": "severe", "shifts": 6, "aspect": None}]
    row.save()
    mt.post("GM", '/scene start "The Hospital"\n')
    # Ruth treats Charles: Academics Mediocre (+0) vs Great (+4); [+][+][+][+] succeeds.
    treated = mt.post("Ruth", '/treat Charles "Gaping Chest Wound" with Academics as "Stitched Chest"\n', dice="++++")
    assert treated.status == "applied", treated.text
    assert "Stitched Chest on Charles is recovering; it clears after one full session" in treated.text
    first = mt.post("GM", "/session end\n")
    assert first.status == "applied", first.text
    t = table(chicago)
    assert t.character("Charles").fate_points == 3                  # refresh: max(1, 3)
    assert t.character("Ruth").fate_points == 3                     # already at refresh: unchanged
    assert [q.aspect for q in t.character("Charles").consequences if q.aspect] == ["Stitched Chest"]
    second = mt.post("GM", "/session end\n")
    assert "Charles's Stitched Chest has healed." in second.text
    assert not [q.aspect for q in table(chicago).character("Charles").consequences if q.aspect]


def test_self_treatment_is_harder_and_a_major_milestone_clears_a_severe(mt, chicago):
    from pbp.store import models as m

    row = m.Character.get(m.Character.name == "Charles")
    row.consequences = [{"severity": "mild", "shifts": 2, "aspect": None},
                        {"severity": "moderate", "shifts": 4, "aspect": None},
                        {"severity": "severe", "shifts": 6, "aspect": "Crushed Leg", "hit_track": "physical"}]
    row.save()
    # Charles on himself: Academics Good (+3) vs Fantastic (+6) + 2 = +8; [+][+][+][0] = +6: fails.
    failed = mt.post("Charles", '/treat Charles "Crushed Leg" with Academics\n', dice="+++0")
    assert failed.outcome.results[0]["opposition"]["value"] == 8
    assert "is not treated" in failed.text
    # [+][+][+][+] + 3 + his own aspect (a fate point) = +9: treated, and renamed
    treated = mt.post("Charles", '/treat Charles "Crushed Leg" with Academics as "Leg in a Cast" '
                                 '+invoke "Unflappable in the Field"\n', dice="++++")
    assert treated.status == "applied", treated.text
    assert "Leg in a Cast on Charles is recovering; it clears at the next major milestone" in treated.text
    assert mt.post("GM", "/session end\n").status == "applied"
    assert [q.aspect for q in table(chicago).character("Charles").consequences if q.aspect] == ["Leg in a Cast"]
    ok = mt.post("GM", "/milestone major\n")
    assert "Charles's Leg in a Cast has healed." in ok.text


def test_a_minor_npc_by_command_defends_as_the_gm_set(mt, chicago):
    step = mt.post("GM", '/npc add "Cult Brute" minor "Built Like a Door" skills "Smashing Things" Great, '
                         'Physique Good stress 3 defend Physique\n')
    assert step.status == "applied", step.text
    brute = table(chicago).character("Cult Brute")
    assert (brute.kind, brute.skills, brute.stress) == ("minor", {"Smashing Things": 4, "Physique": 3},
                                                         {"physical": [False] * 3})
    # Physique is not a defence the rules allow against Fight, and the brute has no allowed
    # one (Athletics, Fight): it defends at Mediocre (+0) with no skill, not with one it lacks
    mt.post("GM", "/conflict start Ruth, \"Cult Brute\" first Ruth\n")
    hit = mt.post("Ruth", '/attack "Cult Brute" with Fight\n', dice="0000,0000")
    assert hit.outcome.results[0]["opposition"]["label"] == "Cult Brute: (no skill)"
    too_many = mt.post("GM", '/npc add Mob minor "A", "B", "C" skills Fight Fair\n')
    assert too_many.status == "rejected" and "one or two aspects" in too_many.text
    too_tough = mt.post("GM", '/npc add Mob minor "A" skills Fight Fair stress 4\n')
    assert too_tough.status == "rejected" and "0 to 3 stress boxes" in too_tough.text


def test_a_gm_set_free_form_defence_is_used(mt, chicago):
    mt.post("GM", '/npc add Wisp minor "Flickers In and Out" skills "Flickering Away" Good stress 1 '
                  'defend "Flickering Away"\n/conflict start Ruth, Wisp first Ruth\n')
    hit = mt.post("Ruth", "/attack Wisp with Fight\n", dice="0000,0000")
    assert hit.outcome.results[0]["opposition"]["label"] == "Wisp: Flickering Away"
    assert hit.outcome.results[0]["shifts"] == 1
    assert "Wisp absorbs 1 shift with 1 stress box" in hit.text
