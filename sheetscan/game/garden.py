"""The game model: a garden, the turn log, and what else a sheet records.

Plain frozen data; nothing here knows about images or scoring.
Cells are 0-based ``(row, column)`` tuples.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import Enum
from functools import lru_cache
from operator import attrgetter
from types import MappingProxyType
from typing import Callable, Iterator, Mapping

from sheetscan.game.rules import GRID_SIZE, Decoration

Cell = tuple[int, int]
ALL_CELLS: tuple[Cell, ...] = tuple((r, c) for r in range(GRID_SIZE) for c in range(GRID_SIZE))
ORTHOGONAL_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
SURROUNDING_STEPS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0))


def _inside(row: int, col: int) -> bool:
    return 0 <= row < GRID_SIZE and 0 <= col < GRID_SIZE


@lru_cache(maxsize=None)
def orthogonal_neighbours(cell: Cell) -> tuple[Cell, ...]:
    """The up to 4 cells sharing a side with ``cell``."""
    r, c = cell
    return tuple((r + dr, c + dc) for dr, dc in ORTHOGONAL_STEPS if _inside(r + dr, c + dc))


@lru_cache(maxsize=None)
def surrounding_cells(cell: Cell) -> tuple[Cell, ...]:
    """The up to 8 cells sharing a side or a corner with ``cell``."""
    r, c = cell
    return tuple((r + dr, c + dc) for dr, dc in SURROUNDING_STEPS if _inside(r + dr, c + dc))


@lru_cache(maxsize=None)
def cross_cells(location: int) -> tuple[Cell, ...]:
    """The cells of row and column ``location`` (a 1-based die number), in reading order."""
    return tuple(cell for cell in ALL_CELLS if cell[0] == location - 1 or cell[1] == location - 1)


_COLUMNS = range(GRID_SIZE)


def _hash_once(self) -> int:
    """The hash dataclass would give (of the fields' tuple), worked out once per object: the
    decoder's caches key on the same gardens and turns thousands of times a sheet, and an
    Enum's hash runs in Python."""
    cached = self.__dict__.get("_hash")
    if cached is None:
        cached = hash(self._fields_of(self))
        object.__setattr__(self, "_hash", cached)
    return cached


def _hashed_once(cls):
    """``cls`` (a frozen dataclass) hashed by _hash_once: its fields' tuple read by one getter,
    made once (asking dataclasses.fields of every new garden cost a third of its hash)."""
    cls._fields_of = attrgetter(*(f.name for f in fields(cls)))
    cls.__hash__ = _hash_once
    return cls


def _state_without_caches(self) -> dict:
    """What pickles: the fields, not what is worked out from them (a str's hash differs between
    processes)."""
    return {name: value for name, value in self.__dict__.items() if not name.startswith("_")}


@_hashed_once
@dataclass(frozen=True)
class Garden:
    """The 6x6 garden: a decoration or None per cell, earth or water, late trees.

    Attributes
    ----------
    decorations : tuple of 6 tuples of 6 Decoration or None
    water : tuple of 6 tuples of 6 bool
        True where the cell lies inside a traced pond outline.
    tree_late : frozenset of Cell
        Trees drawn in Spring or Summer (they carry a dot and score 2 on earth).
    """

    decorations: tuple[tuple[Decoration | None, ...], ...]
    water: tuple[tuple[bool, ...], ...]
    tree_late: frozenset[Cell] = frozenset()

    __getstate__ = _state_without_caches

    @classmethod
    def empty(cls) -> "Garden":
        row_none = (None,) * GRID_SIZE
        row_earth = (False,) * GRID_SIZE
        return cls((row_none,) * GRID_SIZE, (row_earth,) * GRID_SIZE)

    def decoration(self, cell: Cell) -> Decoration | None:
        return self.decorations[cell[0]][cell[1]]

    def is_water(self, cell: Cell) -> bool:
        return self.water[cell[0]][cell[1]]

    def decorated_cells(self) -> Iterator[tuple[Cell, Decoration]]:
        """(cell, decoration) of each drawn cell, in reading order (the rows read directly: the
        scorer and the auditor ask of every garden the decoder weighs)."""
        decorations = self.decorations
        for cell in ALL_CELLS:
            decoration = decorations[cell[0]][cell[1]]
            if decoration is not None:
                yield cell, decoration

    def with_cell(
        self,
        cell: Cell,
        decoration: Decoration | None | type[...] = ...,
        water: bool | None = None,
        late: bool | None = None,
    ) -> "Garden":
        """A copy with one cell changed; arguments left out keep their value."""
        r, c = cell
        decorations = self.decorations
        if decoration is not ...:
            row = list(decorations[r])
            row[c] = decoration
            decorations = decorations[:r] + (tuple(row),) + decorations[r + 1 :]
        water_rows = self.water
        if water is not None:
            row = list(water_rows[r])
            row[c] = water
            water_rows = water_rows[:r] + (tuple(row),) + water_rows[r + 1 :]
        tree_late = self.tree_late
        if late is not None:
            tree_late = tree_late | {cell} if late else tree_late - {cell}
        garden = Garden(decorations, water_rows, frozenset(tree_late))
        if water is None and "_ponds" in self.__dict__:
            # the ponds are the water's alone: a decoration changed keeps them (the decoder
            # scores hundreds of gardens a sheet, each one cell from another)
            object.__setattr__(garden, "_ponds", self.__dict__["_ponds"])
        return garden

    def changed_from(self, before: "Garden") -> tuple[frozenset[Cell], frozenset[Decoration | None]]:
        """The cells whose decoration or Spring/Summer mark differs from ``before``'s (the water
        aside), and the decorations they held or hold (rows shared with ``before`` are skipped:
        the decoder compares hundreds of gardens a sheet, each a cell or two from another, and
        asks twice of each: kept for the last ``before`` asked of)."""
        kept = self.__dict__.get("_changed_from")
        if kept is not None and kept[0] is before:
            return kept[1]
        decorations, before_decorations = self.decorations, before.decorations
        changed = set() if self.tree_late is before.tree_late else set(self.tree_late ^ before.tree_late)
        for r, (row, before_row) in enumerate(zip(decorations, before_decorations)):
            if row is not before_row:
                changed.update([(r, c) for c in _COLUMNS if row[c] is not before_row[c]])
        kinds = {decorations[r][c] for r, c in changed}
        kinds.update([before_decorations[r][c] for r, c in changed])
        found = (frozenset(changed), frozenset(kinds))
        object.__setattr__(self, "_changed_from", (before, found))
        return found

    def mapped(self, move: Callable[[Cell], Cell]) -> "Garden":
        """The garden with every cell moved by ``move`` (a permutation of the grid)."""
        decorations = [[None] * GRID_SIZE for _ in range(GRID_SIZE)]
        water = [[False] * GRID_SIZE for _ in range(GRID_SIZE)]
        for cell in ALL_CELLS:
            r, c = move(cell)
            decorations[r][c] = self.decoration(cell)
            water[r][c] = self.is_water(cell)
        return Garden(
            tuple(map(tuple, decorations)),
            tuple(map(tuple, water)),
            frozenset(move(cell) for cell in self.tree_late),
        )


def ponds(garden: Garden) -> list[frozenset[Cell]]:
    """The ponds: orthogonally connected groups of water cells, in reading order. Found once per
    garden (the scorer and the auditor both ask, of hundreds of gardens a sheet in the decoder)."""
    found = garden.__dict__.get("_ponds")
    if found is None:
        found = _connected_water(garden.water)
        object.__setattr__(garden, "_ponds", found)
    return list(found)


def _connected_water(water: tuple[tuple[bool, ...], ...]) -> tuple[frozenset[Cell], ...]:
    """The orthogonally connected groups of True cells of ``water``, in reading order."""
    seen: set[Cell] = set()
    found = []
    for start in ALL_CELLS:
        if start in seen or not water[start[0]][start[1]]:
            continue
        # grown depth first: the order its cells join the set is the order a frozenset of
        # them iterates in, which the synthetic sheets' pond drawings follow
        group = {start}
        frontier = [start]
        while frontier:
            for neighbour in orthogonal_neighbours(frontier.pop()):
                if neighbour not in group and water[neighbour[0]][neighbour[1]]:
                    group.add(neighbour)
                    frontier.append(neighbour)
        seen |= group
        found.append(frozenset(group))
    return tuple(found)


class TurnKind(Enum):
    DRAW = "draw"  # two decoration dice and a location die
    PRUNE = "prune"  # one decoration die, any empty cell; a bonsai leaf is marked
    SKIP = "skip"  # an impossible turn, written X

    __hash__ = object.__hash__  # as Decoration's: the decoder hashes thousands of turn logs a sheet


@_hashed_once
@dataclass(frozen=True)
class Turn:
    """One turn box.

    Attributes
    ----------
    kind : TurnKind
    dice : tuple of int
        Decoration die numbers (1-6): two for a draw, one for a pruning, none for a skip.
    location : int or None
        The location die (1-6) of a draw: the row and column numbered so.
    cell : Cell or None
        The 0-based cell of a pruning.
    """

    kind: TurnKind
    dice: tuple[int, ...] = ()
    location: int | None = None
    cell: Cell | None = None

    __getstate__ = _state_without_caches


def turn_text(turn: Turn) -> str:
    """A turn box as a player writes it: ``2-3 / 6``, ``5 / 24`` (a pruning), ``X``."""
    if turn.kind is TurnKind.SKIP:
        return "X"
    if turn.kind is TurnKind.DRAW:
        return f"{turn.dice[0]}-{turn.dice[1]} / {turn.location}"
    return f"{turn.dice[0]} / {turn.cell[0] + 1}{turn.cell[1] + 1}"


@dataclass(frozen=True)
class SheetRecord:
    """Everything a sheet records: the garden and, when known, the rest of the sheet."""

    garden: Garden
    turns: tuple[Turn, ...] | None = None
    bonsai_pruned: int | None = None
    ponds_marked: tuple[bool, ...] | None = None
    written: Mapping[str, int] | None = field(default=None)

    def __post_init__(self):
        if self.written is not None and not isinstance(self.written, MappingProxyType):
            object.__setattr__(self, "written", MappingProxyType(dict(self.written)))

    def with_garden(self, garden: Garden) -> "SheetRecord":
        """A copy with ``garden`` (dataclasses.replace, without its look at every field: the
        decoder weighs a thousand candidates a sheet, each a garden changed)."""
        return SheetRecord(garden, self.turns, self.bonsai_pruned, self.ponds_marked, self.written)

    def __reduce__(self):  # a mapping proxy does not pickle; batches send records between processes
        written = None if self.written is None else dict(self.written)
        return type(self), (self.garden, self.turns, self.bonsai_pruned, self.ponds_marked, written)
