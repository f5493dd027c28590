"""Sheets in a Portuguese campaign (issue 29): TOML keys stay English, the skills, ratings and
the rendered sheet are Portuguese; an English sheet's skills take their Portuguese names; a
Fari sheet from a Portuguese template imports."""
from __future__ import annotations

import tomllib

from pbp.campaigns import import_character
from pbp.fari import from_fari
from pbp.rules.systems import campaign_system
from pbp.sheetfile import parse_sheet
from pbp.store import models as m
from pbp.store import repo

MARIANA = '''
name = "Mariana"
kind = "pc"
player = "mariana@pbp.localhost"

[aspects]
high_concept = "Detetive Cética do Rio"
trouble = "Dívidas com a Pessoa Errada"

[skills]
"Investigação" = "Ótima"
"Percepção" = "Bom"
Vontade = 3
Luta = "razoavel"
Atletismo = 2
Vigor = "Razoável"
Empatia = 1
Tiro = 1
Furtividade = 1
Recursos = 1

[[stunts]]
name = "Olho Clínico"
skill = "Investigação"
action = "overcome"
bonus = 2
circumstance = "quando examina uma cena de crime"
'''


def test_a_portuguese_sheet_imports_and_shows_in_portuguese(mesa, mt_pt):
    system = campaign_system(mesa)
    sheet = parse_sheet(tomllib.loads(MARIANA), system)
    import_character(mesa, sheet)
    mariana = repo.load_table(m.Campaign.get_by_id(mesa.id)).character("Mariana")
    assert mariana.skills["Investigação"] == 4 and mariana.skills["Luta"] == 2 and mariana.skills["Percepção"] == 3
    # Vigor Razoável (+2) and Vontade Bom (+3) size the tracks, as Physique and Will do: 4 and 6 boxes
    assert len(mariana.stress["physical"]) == 4 and len(mariana.stress["mental"]) == 6
    step = mt_pt.post("mariana@pbp.localhost", "/ficha\n")
    text = step.text
    assert "Pontos de destino 3 (recarga 3)" in text
    assert "conceito" in text and "Detetive Cética do Rio" in text and "dificuldade" in text
    assert "habilidades" in text and "Investigação +4" in text
    assert "façanha" in text and "Olho Clínico: +2 em Investigação quando você superar" in text
    assert "estresse físico" in text and "suave" in text and "moderada" in text and "severa" in text
    step = mt_pt.post("mariana@pbp.localhost", "/superar investigacao contra Otimo\n", dice="0000")
    assert "Mariana supera com Investigação, Ótima (+4)" in step.text


def test_an_english_sheet_takes_the_campaigns_skill_names(mesa):
    ruth = repo.load_table(m.Campaign.get_by_id(mesa.id)).character("Ruth")
    assert ruth.skills["Luta"] == 4 and "Fight" not in ruth.skills      # renamed by campaign set language=
    assert ruth.stunts[0].skill == "Tiro"


def _fari_pt():
    """A Fari sheet made from Fari's Portuguese template: its labels in Portuguese."""
    def text(label, value):
        return {"id": f"b-{label}", "type": "Text", "label": label, "value": value, "meta": {}}
    skills = [("Atletismo", "4"), ("Condução", "3"), ("Percepção", "3"), ("Contatos", "2"), ("Furtividade", "2"),
              ("Vontade", "2"), ("Vigor", "1"), ("Relacionamento", "1"), ("Roubo", "1"), ("Tiro", "1")]
    sections = [
        {"id": "s1", "label": "Aspectos", "blocks": [text("Conceito", "Entregadora Que Nunca Falha"),
                                                      text("Dificuldade", "Deve às Pessoas Erradas")]},
        {"id": "s2", "label": "Façanhas", "blocks": [text("Becos", "+2 para superar com Condução quando pega um atalho.")]},
        {"id": "s3", "label": "Pontos de Destino", "blocks": [
            {"id": "fp", "type": "PointCounter", "label": "Pontos de Destino", "value": "2",
             "meta": {"isMainPointCounter": True, "max": "3"}},
            {"id": "rf", "type": "Numeric", "label": "Recarga", "value": "3", "meta": {}}]},
        {"id": "s5", "label": "Habilidades", "blocks": [
            {"id": f"k-{n}", "type": "Skill", "label": n, "value": v, "meta": {}} for n, v in skills]},
        {"id": "s6", "label": "Estresse", "blocks": [
            {"id": "p", "type": "SlotTracker", "label": "Físico", "meta": {},
             "value": [{"label": "1", "checked": True}, {"label": "2", "checked": False}, {"label": "3"}]},
            {"id": "m", "type": "SlotTracker", "label": "Mental", "meta": {},
             "value": [{"label": "1", "checked": False}, {"label": "2"}, {"label": "3"}]}]},
        {"id": "s7", "label": "Consequências", "blocks": [text("2 Suave", "Joelhos Ralados"), text("4 Moderada", "")]},
    ]
    return {"id": "c1", "name": "Mara", "fariType": "character", "version": 6, "lastUpdated": 1,
            "pages": [{"id": "p1", "label": "Personagem", "rows": [{"columns": [{"sections": sections}]}]}]}


def test_a_fari_sheet_in_portuguese_imports(mesa):
    fari = from_fari(_fari_pt(), campaign_system(mesa))
    data = fari.data
    assert data["aspects"]["high_concept"] == "Entregadora Que Nunca Falha"
    assert data["aspects"]["trouble"] == "Deve às Pessoas Erradas"
    assert data["skills"]["Atletismo"] == 4 and data["skills"]["Condução"] == 3
    assert data["fate_points"] == 2 and data["refresh"] == 3
    assert data["stunts"][0]["skill"] == "Condução" and data["stunts"][0]["bonus"] == 2
    assert fari.stress["physical"][0] is True and "mental" in fari.stress
    assert fari.consequences == [("mild", "", "Joelhos Ralados")]
    assert not [u for u in fari.unmapped if "Físico" in u or "Suave" in u or "Habilidades" in u]
