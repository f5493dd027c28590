"""Hand-written Fari sheets, one per layout (written for these tests from the types in
farirpgs/fari-app lib/domains/character/types.tsx; no Fari template is copied). The same
character in each: Mara Quill, a courier."""
from __future__ import annotations

SKILLS = [("Athletics", "4"), ("Drive", "3"), ("Notice", "3"), ("Contacts", "2"), ("Stealth", "2"),
          ("Will", "2"), ("Physique", "1"), ("Rapport", "1"), ("Burglary", "1"), ("Shoot", "1")]
STUNT_TEXT = "+2 to overcome with Drive when you take a shortcut."


def _text(label, value, **meta):
    return {"id": f"b-{label}", "type": "Text", "label": label, "value": value, "meta": meta}


def _v3_plus_sections():
    """The sections every layout from v3 on holds, as (side, section)."""
    return [
        ("left", {"id": "s1", "label": "Aspects", "visibleOnCard": True, "blocks": [
            _text("High Concept", "Courier Who Never Misses a Drop"),
            _text("Trouble", "Owes the Wrong People"),
            _text("Relationship", "My Sister Runs the Night Market"),
            _text("Other Aspect", ""),
        ]}),
        ("left", {"id": "s2", "label": "Stunts & Extras", "blocks": [_text("Back Alleys", STUNT_TEXT)]}),
        ("left", {"id": "s3", "label": "Fate Points", "blocks": [
            {"id": "fp", "type": "PointCounter", "label": "Fate Points", "value": "2",
             "meta": {"isMainPointCounter": True, "max": "3"}},
            {"id": "rf", "type": "Numeric", "label": "Refresh", "value": "3", "meta": {}},
        ]}),
        ("left", {"id": "s4", "label": "Notes", "blocks": [_text("Notes", "Rides a battered moped.")]}),
        ("right", {"id": "s5", "label": "Skills", "blocks": [
            {"id": f"k-{n}", "type": "Skill", "label": n, "value": v, "meta": {"commands": ["4dF"]}} for n, v in SKILLS]}),
        ("right", {"id": "s6", "label": "Stress", "blocks": [
            {"id": "p", "type": "SlotTracker", "label": "Physical", "meta": {},
             "value": [{"label": "1", "checked": True}, {"label": "2", "checked": False}, {"label": "3", "checked": False}]},
            {"id": "m", "type": "SlotTracker", "label": "Mental", "meta": {},
             "value": [{"label": "1", "checked": False}, {"label": "2", "checked": False}, {"label": "3"}]},
        ]}),
        ("right", {"id": "s7", "label": "Consequences", "blocks": [
            _text("2 Mild", "Scraped Knuckles"), _text("4 Moderate", ""), _text("6 Severe", "")]}),
        ("right", {"id": "s8", "label": "Gear", "blocks": [_text("Bag", "A waterproof satchel")]}),
    ]


def v1():
    return {"id": "c1", "name": "Mara Quill", "version": 1, "lastUpdated": 1,
            "aspects": [{"name": "High Concept", "value": "Courier Who Never Misses a Drop"},
                        {"name": "Trouble", "value": "Owes the Wrong People"},
                        {"name": "Relationship", "value": "My Sister Runs the Night Market"}],
            "skills": [{"name": n, "value": v} for n, v in SKILLS],
            "stunts": [{"name": "Back Alleys", "value": STUNT_TEXT}],
            "stressTracks": [{"name": "Physical", "value": [True, False, False]},
                             {"name": "Mental", "value": [False, False, False]}],
            "consequences": [{"name": "2 Mild", "value": "Scraped Knuckles"}, {"name": "4 Moderate", "value": ""}],
            "refresh": 3, "fatePoints": 2, "notes": "Rides a battered moped.", "group": None}


def v2():
    doc = v1()
    doc["version"] = 2
    doc["stressTracks"] = [{"name": "Physical", "value": [{"label": "1", "checked": True}, {"label": "2"},
                                                         {"label": "3"}]},
                           {"name": "Mental", "value": [{"label": "1"}, {"label": "2"}, {"label": "3"}]}]
    return doc


def v3():
    sections = [dict(s, position="Left" if side == "left" else "Right") for side, s in _v3_plus_sections()]
    return {"id": "c3", "name": "Mara Quill", "group": None, "version": 3, "lastUpdated": 1,
            "pages": [{"id": "p1", "label": "Character", "sections": sections}]}


def v4():
    sides = {"left": [], "right": []}
    for side, s in _v3_plus_sections():
        sides[side].append(s)
    return {"id": "c4", "name": "Mara Quill", "group": None, "wide": False, "version": 4, "lastUpdated": 1,
            "pages": [{"id": "p1", "label": "Character", "sections": sides}]}


def v5():
    left = [s for side, s in _v3_plus_sections() if side == "left"]
    right = [s for side, s in _v3_plus_sections() if side == "right"]
    return {"id": "c5", "name": "Mara Quill", "group": None, "wide": False, "version": 5, "lastUpdated": 1,
            "pages": [{"id": "p1", "label": "Character", "rows": [{"columns": [{"sections": left},
                                                                              {"sections": right}]}]}]}


def v6():
    doc = v5()
    doc["version"] = 6
    page = doc["pages"][0]
    page["label"] = page["label"].upper()
    for col in page["rows"][0]["columns"]:
        for s in col["sections"]:
            s["label"] = s["label"].upper()
            for b in s["blocks"]:
                b["label"] = b["label"].upper()
    return doc


LAYOUTS = {"v1": v1, "v2": v2, "v3": v3, "v4": v4, "v5": v5, "v6": v6}
