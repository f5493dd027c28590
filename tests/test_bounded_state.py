"""The play state does not grow with the campaign's history (issue 23, docs/architecture.md):
every list and map in it has a bound or leaves when what it is about closes. A table plays
the same scene over and over (the GM opens it, Ruth takes the Ghoul out outside a conflict,
which asks its narration of her player, the GM ends it): once its bounds are full the play
state's size stays, its thread map is empty after each scene, and the queries per post are
the same in the 60th scene as in the 10th. (``benchmarks/throughput.py --history 20000``
plays 20,000 posts and prints the same figures.)"""
from __future__ import annotations

import json

from pbp.pipeline import process_message
from pbp.play.state import CLOSED_KEPT
from pbp.store import models as m
from tests.helpers import counting_queries, eml, make_ctx

SCENE = [
    ("gm@pbp.localhost", '/scene start "The Warehouse"\n/aspect add "Deep Shadows" free 1\n', ""),
    ("ruth@pbp.localhost", "/attack Ghoul with Fight\n", "++++,----"),
    ("ruth@pbp.localhost", '/advantage Notice "Loose Floorboards" vs Fair\n', "+0+0"),
    ("ruth@pbp.localhost", "/roll 4dF+2\n", "0+0-"),
    ("gm@pbp.localhost", "/scene end\n", ""),
]


def test_the_play_state_and_the_queries_stay_flat_over_many_scenes(chicago, config):
    sizes, threads, counts, asked = [], [], [], 0
    with counting_queries(counts):
        for scene in range(60):
            for step, (sender, body, dice) in enumerate(SCENE):
                counts.append(0)
                out = process_message(eml(body, sender=sender, message_id=f"s{scene}-{step}@t"), make_ctx(config, dice))
                assert out.status == "applied", (scene, step, out.errors)
                if step == 1:
                    play = m.Campaign.get_by_id(chicago.id).play
                    asked += any(r.startswith("narrate:") for refs in play["threads"].values() for r in refs)
            play = m.Campaign.get_by_id(chicago.id).play
            sizes.append(len(json.dumps(play)))
            threads.append(len(play["threads"]))
    assert asked >= 50                      # the narration was asked, scene after scene
    assert max(threads) == 0, threads       # and left the map with its scene
    # the closed rolls fill their bound (CLOSED_KEPT, two rolls a scene) by the 25th scene;
    # after it only the ids' digits grow (fifty ids kept, each a digit longer at most)
    assert sizes[59] - sizes[29] <= 2 * CLOSED_KEPT, sizes
    per_post = len(SCENE)
    assert counts[9 * per_post:10 * per_post] == counts[59 * per_post:60 * per_post]
