"""Random play through the whole pipeline: any sequence of posts from the table's members,
valid or not, is applied or refused with a reply, and never hits an internal error; fate
points, stress and free invokes stay within their bounds."""
from __future__ import annotations

import pytest

import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbp.pipeline import process_message
from pbp.store import repo
from tests.helpers import eml, make_ctx

PCS = ["Ruth", "Charles", "Ethan", "Cassandra"]
NPCS = ["Ghoul", '"Masked Acolyte"', "Shoggoth"]
SKILLS = ["Fight", "Athletics", "Shoot", "Investigate", "Notice", "Provoke", "Will", "Crafts", "Lore"]
ASPECTS = ['"On Fire"', '"Hair-Trigger Temper"', '"Hungry for Flesh"', '"Deep Shadows"', "Distracted"]
LADDER = ["Fair", "Good", "Great", "+1", "Mediocre"]


def _one_of(*items):
    return st.sampled_from(items)


name = st.sampled_from(PCS + NPCS)
skill = st.sampled_from(SKILLS)
aspect = st.sampled_from(ASPECTS)
invoke = st.builds(lambda a, how: f" +invoke {a}{how}", aspect, _one_of("", " free", " fp", " reroll", " if needed"))
player_line = st.one_of(
    st.builds(lambda s, d, i: f"/overcome {s} vs {d}{i}", skill, st.sampled_from(LADDER), st.sampled_from(["", " +invoke \"Deep Shadows\" if needed"])),
    st.builds(lambda s, a, t, d: f"/advantage {s} {a} on {t} vs {d}", skill, aspect, name, st.sampled_from(LADDER)),
    st.builds(lambda t, s, i: f"/attack {t} with {s}{i}", name, skill, invoke | st.just("")),
    st.builds(lambda s: f"/defend {s}", skill),
    st.builds(lambda n: f"/next {n}", name),
    st.builds(lambda a, how: f"/invoke {a}{how}", aspect, _one_of("", " free", " reroll")),
    st.builds(lambda: "/absorb stress 1"),
    st.builds(lambda: '/absorb mild "Nasty Bruise"'),
    st.builds(lambda: '/concede "I run"'),
    st.builds(lambda: "/done"),
    st.builds(lambda: "/fp spend"),
    st.builds(lambda t, a: f'/compel {t} {a} event "Trouble"', name, aspect),
    st.builds(lambda v: f"/{v}", _one_of("accept", "refuse")),
    st.builds(lambda: '/detail "A friend at the docks"'),
    st.builds(lambda a, t: f"/give {a} {t}", aspect, name),
    st.builds(lambda: "/sheet"),
)
gm_line = st.one_of(
    st.builds(lambda: '/scene start "Warehouse" zones Dock, Floor borders Dock-Floor'),
    st.builds(lambda: "/scene end"),
    st.builds(lambda first: f"/conflict start Ruth, Charles, Ghoul, \"Masked Acolyte\" first {first}",
              _one_of("Ruth", "Ghoul")),
    st.builds(lambda: "/conflict end"),
    st.builds(lambda n, s, t: f"/as {n} attack {t} with {s}", st.sampled_from(NPCS), skill, name),
    st.builds(lambda n, t: f"/as {n} next {t}", st.sampled_from(NPCS), name),
    st.builds(lambda a: f"/aspect add {a} free 1", aspect),
    st.builds(lambda v: f"/{v}", _one_of("approve", "deny")),
    st.builds(lambda t, a: f'/compel {t} {a} decision "Go in"', st.sampled_from(PCS), aspect),
    st.builds(lambda: "/session end"),
    st.builds(lambda p, z: f"/place {p} in {z}", name, _one_of("Dock", "Floor")),
)
post = st.one_of(
    st.tuples(st.sampled_from(["ruth", "charles", "ethan", "cassandra"]), st.lists(player_line, min_size=1, max_size=3)),
    st.tuples(st.just("gm"), st.lists(gm_line, min_size=1, max_size=3)),
)
faces = st.lists(st.sampled_from("+-0"), min_size=4, max_size=4).map("".join)
_numbers = itertools.count()


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(posts=st.lists(st.tuples(post, st.lists(faces, min_size=8, max_size=8).map(",".join)), min_size=5, max_size=25))
def test_random_play_never_hits_an_internal_error(chicago, config, posts):
    for (who, lines), dice in posts:
        body = "Some prose.\n" + "\n".join(lines) + "\n"
        out = process_message(eml(body, sender=f"{who}@pbp.localhost", message_id=f"fuzz-{next(_numbers)}@t"),
                              make_ctx(config, dice))
        assert out.status in ("applied", "rejected"), out
        assert not any(e.get("type") == "InternalError" for e in out.errors), (body, out.errors)
        assert out.replies, body
    table = repo.load_table(chicago)
    for ch in table.characters.values():
        assert ch.fate_points >= 0 and ch.carried_points >= 0, ch
        assert all(isinstance(b, bool) for boxes in ch.stress.values() for b in boxes)
    for a in table.aspects:
        assert all(n >= 0 for n in a.free_invokes.values()), a
