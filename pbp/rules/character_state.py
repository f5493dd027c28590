"""What a game system keeps on a character beyond Fate Condensed's sheet: the hooks of
``System.character_state`` (python-chess's variant shape: a variant carries its extra state),
and Fate's, which keeps nothing (``NO_STATE``). A rules-core module under ``pbp.rules.system``;
a system's own state (the d10 hack's approaches and mech, Dresden Files Condensed's scale and
mantle) overrides it in the system's package."""
from __future__ import annotations

from pbp.errors import RulesError


class CharacterState:
    """What a system keeps on a character beyond Fate Condensed's sheet, and its
    serialisation (python-chess's variant shape: a variant carries its extra state).

    The state is ``Character.system_state``, a JSON-shaped dict stored whole in its own
    column. The ordinary case keeps nothing: every hook below is a no-op. A system that
    keeps something overrides:

    * ``keys`` and ``read``: the top-level sheet keys it reads, and reading them at import
      (``sheet`` is the sheet reader of :mod:`pbp.sheetfile`: its ``problem``, ``table``,
      ``integer``, ``name``, ``name_list`` and ``stunts`` collect every problem at once);
    * ``problems``: the system's rules on the state read (creation), as sheet problems;
    * ``view``: the state on a sheet, as ``pbp sheet --json`` entries and as the sheet's
      text lines; ``secret`` when the table may not see the NPC's numbers;
    * ``split_skill`` and ``approach``: a second term of the dice pool named with the skill
      (``"Fight Boldly"``); ``stunts`` and ``aspects``: the stunts that apply now and the
      aspects layered on the character's (a mech's while piloting).
    """

    keys: tuple[str, ...] = ()
    # Keys of a sheet's [aspects] table beyond Fate's (Dresden Files Condensed's
    # ``relationship``): each is one more character aspect, read by ``read`` from ``data``.
    aspect_keys: tuple[str, ...] = ()

    def read(self, sheet, data: dict, ch) -> dict:
        return {}

    def aspect_roles(self, ch) -> dict[str, str]:
        """The character's aspects that one of ``aspect_keys`` names, by the aspect's name:
        the key is the aspect's role on a sheet (Dresden Files Condensed's ``relationship``),
        where the others show their kind. ``read`` keeps each under its key in the state."""
        state = ch.system_state or {}
        return {state[k]: k for k in self.aspect_keys if isinstance(state.get(k), str)}

    def granted_stunts(self, ch) -> int:
        """Stunts the character has beyond its free ones without paying refresh (a Dresden
        Files Condensed mantle's core stunts); Fate grants none."""
        return 0

    def sheet_data(self, ch, data: dict) -> dict:
        """``data``, the character written back as a sheet's data (``pbp character export``,
        the GM's ``/sheet set``), with the system's own keys put back; Fate adds none."""
        return data

    def scale_of(self, ch) -> tuple[int, str] | None:
        """The character's level of scale and its name (Dresden Files Condensed), or None in
        a system without scale."""
        return None

    #: What ``/aspect add NAME KEY VALUE`` and ``/aspect set NAME KEY=VALUE`` may set on an
    #: aspect's ``system_state`` (Dresden Files Condensed: ``scale``); Fate sets nothing.
    aspect_settings: tuple[str, ...] = ()

    def set_aspect(self, aspect, key: str, value: str, *, source: str = "", example: str = "") -> tuple[object, object]:
        """Set ``key`` to ``value`` on the aspect's system state (checked; a RulesError names
        what is allowed, with ``example`` when given); returns the value before and after. A
        system without settings on aspects refuses every key."""
        raise RulesError(f"an aspect has no {key} here: {key} is not a setting of this system's aspects",
                         source=source, expected="an aspect command without it",
                         example=f'/aspect add "{aspect.name}"')

    def setting_example(self, key: str) -> str:
        """A value of the aspect setting ``key`` that works, for examples in replies (Dresden
        Files Condensed: the campaign's second level of scale)."""
        return ""

    def aspect_scale(self, aspect) -> tuple[int, str] | None:
        """The level of scale an aspect carries (its index and name), or None: invoking it
        grants none (Dresden Files Condensed, "Aspects and Scale")."""
        return None

    def aspect_view(self, aspect) -> dict:
        """The aspect's system state as the overview shows it (``{"scale": "Supernatural"}``)."""
        return {}

    def free_stunts(self, ch, system) -> int:
        """The character's free stunts beyond the granted ones: the system's number (Dresden
        Files Condensed may take them from the mantle's additional stunts only)."""
        return system.free_stunts

    def problems(self, ch, system) -> list[str]:
        return []

    def record_raises(self, data: dict, points: int) -> None:
        """A sheet's data changed at a milestone by ``points`` raises (``/advance``): keep
        whatever the system's creation check needs to tell a grown sheet from a new one
        (Dresden Files Condensed's ``milestone_skills``). Fate checks the column only, at
        creation and after: nothing to keep."""

    def view(self, ch, *, secret: bool = False) -> tuple[dict, list[tuple[str, str]]]:
        return {}, []

    def split_skill(self, name: str) -> tuple[str, str | None]:
        """The skill and the second term named with it; Fate names only the skill."""
        return name, None

    def approach(self, ch, name: str | None, *, chosen: bool, source: str = "", skill: str = ""):
        """The pool's second term (a ``Modifier`` of source "skill"), or None. ``chosen``:
        the player named the skill (and so must name this too); else the best is taken."""
        return None

    def stunts(self, ch) -> list:
        return ch.stunts

    def aspects(self, ch) -> list[str]:
        """Aspects layered on the character now, beyond its own (a mech's while piloting)."""
        return []

    def board(self, ch, boarding: bool, *, title: str, source: str = ""):
        """``/mech in`` or ``out``: the Change it makes to the state, or a RulesError. A
        system without mechs refuses it."""
        raise RulesError(f"{title} has no mechs: /mech is for a system whose characters pilot one",
                         source=source, expected="a command of this system", example="/sheet")


NO_STATE = CharacterState()
