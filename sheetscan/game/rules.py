"""The game's vocabulary: decorations, seasons, dice faces and the rule options."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from enum import Enum
from importlib import resources
from types import MappingProxyType

from sheetscan.errors import RuleOptionError

GRID_SIZE = 6  # the garden is GRID_SIZE x GRID_SIZE cells
TURNS_PER_SEASON = 3
MAX_PRUNINGS = 3  # the bonsai has three leaves
MAX_PONDS = 4  # at most one pond per season
POND_POINTS = 3
BRIDGE_POINTS = (0, 1, 4, 9, 15)  # by number of valid bridges; more than 4 score the last
CATEGORIES = ("lantern", "bamboo", "tree", "rock", "moss", "bridge", "pond", "penalty", "total")
# Solo ranks by total (rulebook): the highest total of each band, and its name. The rulebook
# names the lowest and highest bands; the others go by their range.
SOLO_RANKS = ((19, "Mushin (up to 19)"), (30, "20-30"), (40, "31-40"), (50, "41-50"), (60, "51-60"))
SOLO_TOP_RANK = "Yugen (61 and more)"


def solo_rank(total: int) -> str:
    """The rulebook's solo rank of a total."""
    return next((name for highest, name in SOLO_RANKS if total <= highest), SOLO_TOP_RANK)


class Decoration(Enum):
    """A decoration, with the letter the garden files use for it."""

    LANTERN = "L"
    BAMBOO = "B"
    TREE = "T"
    ROCK = "R"
    MOSS = "M"
    BRIDGE = "="

    # hashed as the object it is, in C: Enum's own hash runs in Python, and the decoder hashes
    # thousands of gardens a sheet, 36 cells each (a member is equal to itself alone)
    __hash__ = object.__hash__

    def __init__(self, letter: str):
        self.category = self._name_.lower()  # the scoring category (the breakdown key)


EMPTY_LETTER = "."
WATER_LETTER = "~"
EARTH_LETTER = "."
DECORATION_BY_LETTER = MappingProxyType({d.value: d for d in Decoration})
DECORATION_BY_CATEGORY = MappingProxyType({d.category: d for d in Decoration})


class Season(Enum):
    """The four seasons in the order they are played."""

    AUTUMN = 0
    WINTER = 1
    SPRING = 2
    SUMMER = 3

    @property
    def is_late(self) -> bool:
        """Trees drawn in Spring or Summer carry a dot and score 2."""
        return self in (Season.SPRING, Season.SUMMER)

    @classmethod
    def of_turn(cls, turn_index: int) -> "Season":
        """The season of the 0-based turn index (0-11)."""
        return cls(turn_index // TURNS_PER_SEASON)


TURN_COUNT = TURNS_PER_SEASON * len(Season)


def _load_default_dice_faces() -> dict[int, Decoration]:
    text = resources.files("sheetscan.game.data").joinpath("dice_faces.json").read_text()
    return {int(number): DECORATION_BY_CATEGORY[name] for number, name in json.loads(text).items()}


# Die number -> decoration. Data, not code: a sheet profile may bring another mapping.
DEFAULT_DICE_FACES = MappingProxyType(_load_default_dice_faces())


@dataclass(frozen=True)
class RuleSet:
    """Named rule options; every default is the reading of ../shared/RULES.md.

    Each field, when True, switches to the other reading of a point the sources disagree on.
    """

    lantern_needs_pair: bool = False  # a lantern scores only if another lantern is on the grid
    lantern_in_water_ignored: bool = False  # lanterns in water do not count for spacing
    bamboo_partner_on_earth: bool = False  # the neighbouring bamboo must itself be on earth
    rock_cancel_same_terrain: bool = False  # only rocks on the same terrain cancel each other
    bridge_blocked_by_water_only: bool = False  # only bridges in water block a neighbour bridge

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_names(cls, names: list[str] | tuple[str, ...]) -> "RuleSet":
        """Switch on the named options; an unknown name raises RuleOptionError."""
        known = cls.option_names()
        unknown = [name for name in names if name not in known]
        if unknown:
            raise RuleOptionError(
                f"unknown rule option {unknown[0]!r}; known options: {', '.join(known)}"
            )
        return cls(**{name: True for name in names})

    def active_names(self) -> tuple[str, ...]:
        return tuple(name for name in self.option_names() if getattr(self, name))
