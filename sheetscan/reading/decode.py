"""Decode: the sheet record that best fits what was read and what the rules allow.

The readers give each cell and box its candidates with probabilities. A sheet's readings are
judged together: a reading that makes the sheet contradict itself (a turn the garden cannot
place, a written number the rules do not give, a bonsai leaf too many) is less likely than a
runner-up that does not. The decoder searches for the record that minimises

    sum of log(p_best / p_chosen) over every reading changed  +  FINDING_COST x mistakes

where the mistakes are those the auditor's findings need (see sheet_cost). Each round takes the
change that lowers it most: one reading, or, when no single one helps, two together (two
misread cells that only explain a written number jointly). A mistake costs about what a reading
error with probability ratio exp(-FINDING_COST) does: the player's own mistakes are rare, but real, and
stay flagged when no plausible reading explains them away. Every change is said, with why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Callable, Mapping

import numpy as np

from sheetscan.game.audit import Finding, audit, human_cell
from sheetscan.reading.boxes import BoxReading, Candidate
from sheetscan.game.garden import ALL_CELLS, Cell, SheetRecord, turn_text
from sheetscan.reading.labelling import (DRAWN_AS, KINDS, LATE_TREE, SAME_DRAWING, Labelling, known_fit, label_together,
                                         logged_drawings)
from sheetscan.reading.read import DECORATION_CLASSES, GardenReading, decoration_class, decoration_of_class
from sheetscan.game.rules import DEFAULT_DICE_FACES, Decoration, RuleSet
from sheetscan.game.score import Score, score

# A mistake weighs as a reading error with probability ratio e^-5.5: a player miswrites a given
# number about once in 250. Chosen on validation photos (bench seeds 77 and 78, 400 sheets, none
# a bench figure's): against 4.5, false differences fell from 9 to 6 with flags unchanged
# (196 of 201); the readers' tails are still overconfident after calibration.
FINDING_COST = 5.5
# A reading costlier than two mistakes is never changed: it would take three findings to pay
# for it. Up to there, a confident misreading (an erased drawing read with 99.99%, a felt pen's
# thick tree dot) is corrected when the turn log and the written numbers both disagree with
# it. On the validation seeds, against e^-6: false differences 6 -> 3 of 199, exact totals 387
# -> 391 of 400, flags unchanged (196 of 201).
MAX_MOVE_COST = 2 * FINDING_COST
# A group of cells drawn alike (groups.py) may take another kind together: each cell then costs
# at most this much, since the networks' view of a drawing unlike any they trained on is no
# evidence against the turn log and the written numbers. Chosen on validation seeds 77 and 78 (own hands,
# 60 phone sheets): the smallest cap that loses no sheet there (2, 3 and 4 each lost one).
GROUP_CELL_COST = 6.0
# Labelling a sheet's drawings together (labelling.py) is taken when the findings it removes
# outweigh what its changes cost (see _labelled_together): this much for each kind read as
# another, and at most MARK_CELL_COST for a Spring/Summer mark read the other way. Chosen on
# validation photos (seeds 77 and 78, 40 phone sheets each): held-out hands exact 56 of 80 at 0.5
# against 53 at 1 and 45 at 2 (before the marks were labelled too); own hands with the player's
# mistakes (mistake rate 0.5, 40 sheets) 40 of 40 exact at each; the mark's cap from 1 to 4
# changed nothing.
RELABEL_GROUP_COST = 0.5
MARK_CELL_COST = 2.0
# A turn box misread by a writer the readers never saw anchors that labelling on a wrong turn log.
# Where the labelling from the log as read still leaves findings, each turn's other readings
# costing less than this are tried in its place, one turn at a time. Chosen on validation photos
# of held-out hands (seeds 77 and 78, 40 phone sheets each): exact totals 61 of 80 without, 63 at
# 3, 65 at 6, 64 at 6 with the 8 cheapest (one pad sheet took 22 s without that bound, 4.5 s with
# it); own hands 40 of 40 at each.
OTHER_TURN_COST = 6.0
MAX_OTHER_TURNS = 8  # of those, the cheapest: each labels the sheet again
MAX_ROUNDS = 12  # each round takes the best change: one move, or a pair
MAX_PAIRS = 300  # pairs of moves tried when no single move helps, cheapest first


@dataclass(frozen=True)
class Move:
    """One change of reading: what it applies to the record, its cost and how to say it."""

    apply: Callable[[SheetRecord], SheetRecord]
    cost: float
    what: str  # e.g. "cell (3,4) read as moss (62%), taken as rock (35%)"
    target: str  # what it changes: once changed, its other moves are dropped


@dataclass(frozen=True)
class DecodedSheet:
    """The decoded record, its score and findings, and the readings the decoder changed, with why."""

    record: SheetRecord
    score: Score  # of the record's garden
    findings: tuple[Finding, ...]
    changes: tuple[str, ...]


def _ratio_cost(best: float, chosen: float) -> float:
    return math.log(max(best, 1e-12) / max(chosen, 1e-12))


def _cell_moves(reading: GardenReading, keep: frozenset[Cell] = frozenset()) -> list[Move]:
    """Every other plausible decoration of each cell but those to ``keep`` (an erased drawing may
    be read as anything, so not only the runner-up), and every cell's other terrain."""
    moves = []
    probabilities, water = reading.decoration_probabilities, reading.water_probability
    for cell in ALL_CELLS:
        p = probabilities[cell]
        best = int(np.argmax(p))
        for other in np.argsort(p)[::-1][1:] if cell not in keep else ():
            cost = _ratio_cost(p[best], p[other])
            if cost < MAX_MOVE_COST:
                decoration, late = decoration_of_class(int(other))
                moves.append(Move(
                    lambda record, cell=cell, decoration=decoration, late=late: replace(
                        record, garden=record.garden.with_cell(cell, decoration, late=late)),
                    cost,
                    f"cell {human_cell(cell)} read as {DECORATION_CLASSES[best].replace('_', ' ')} ({p[best]:.0%}), "
                    f"taken as {DECORATION_CLASSES[other].replace('_', ' ')} ({p[other]:.0%})", f"decoration {cell}"))
        is_water = reading.garden.is_water(cell)
        p_read = water[cell] if is_water else 1 - water[cell]
        cost = _ratio_cost(p_read, 1 - p_read)
        if cost < MAX_MOVE_COST:
            read, taken = ("water", "earth") if is_water else ("earth", "water")
            moves.append(Move(
                lambda record, cell=cell, is_water=is_water: replace(
                    record, garden=record.garden.with_cell(cell, water=not is_water)),
                cost, f"cell {human_cell(cell)} read as {read} ({p_read:.0%}), taken as {taken} ({1 - p_read:.0%})",
                f"water {cell}"))
    return moves


def _group_moves(reading: GardenReading) -> list[Move]:
    """Each group of cells drawn alike taken as another kind, all together (a tree keeps or
    loses its Spring/Summer mark as its cell's own reading says)."""
    probabilities = reading.decoration_probabilities
    tree, late = decoration_class(Decoration.TREE), decoration_class(Decoration.TREE, late=True)
    moves = []
    for index, group in enumerate(reading.groups):
        for kind in Decoration:
            if all(reading.garden.decoration(cell) is kind for cell in group):
                continue
            classes = {cell: decoration_class(kind, late=probabilities[cell][late] > probabilities[cell][tree])
                       for cell in group}
            cost = sum(min(_ratio_cost(probabilities[cell].max(), probabilities[cell][classes[cell]]), GROUP_CELL_COST)
                       for cell in group)

            def apply(record, classes=classes):
                garden = record.garden
                for cell, class_index in classes.items():
                    decoration, is_late = decoration_of_class(class_index)
                    garden = garden.with_cell(cell, decoration, late=is_late)
                return replace(record, garden=garden)

            cells = ", ".join(human_cell(cell) for cell in group)
            moves.append(Move(apply, cost, f"cells {cells}, drawn alike, taken as {kind.category}", f"group {index}"))
    return moves


def _alternatives(candidates: tuple[Candidate, ...]) -> list[tuple[Candidate, float]]:
    costs = [(c, _ratio_cost(candidates[0].probability, c.probability)) for c in candidates[1:]]
    return [(c, cost) for c, cost in costs if cost < MAX_MOVE_COST]


def _box_moves(boxes: BoxReading) -> list[Move]:
    """Runner-up readings of the turn boxes, the marks and the written numbers."""
    moves = []
    for index, candidates in enumerate(boxes.turns):
        for candidate, cost in _alternatives(candidates):
            moves.append(Move(
                lambda record, index=index, turn=candidate.value: replace(
                    record, turns=record.turns[:index] + (turn,) + record.turns[index + 1 :]),
                cost, f"turn {index + 1} read as {turn_text(candidates[0].value)} ({candidates[0].probability:.0%}), "
                      f"taken as {turn_text(candidate.value)} ({candidate.probability:.0%})", f"turn {index}"))
    for index, candidates in enumerate(boxes.leaves):
        for candidate, cost in _alternatives(candidates):
            step = 1 if candidate.value else -1
            moves.append(Move(
                lambda record, step=step: replace(record, bonsai_pruned=record.bonsai_pruned + step),
                cost, f"bonsai leaf {index + 1} read as {_marked(candidates[0])}, taken as {_marked(candidate)}",
                f"leaf {index}"))
    for index, candidates in enumerate(boxes.pond_icons):
        for candidate, cost in _alternatives(candidates):
            moves.append(Move(
                lambda record, index=index, marked=candidate.value: replace(
                    record, ponds_marked=record.ponds_marked[:index] + (marked,) + record.ponds_marked[index + 1 :]),
                cost, f"pond icon {index + 1} read as {_marked(candidates[0])}, taken as {_marked(candidate)}",
                f"pond icon {index}"))
    for category, candidates in boxes.written.items():
        for candidate, cost in _alternatives(candidates):
            moves.append(Move(
                lambda record, category=category, value=candidate.value: replace(
                    record, written={**record.written, category: value}),
                cost, f"written {category} read as {candidates[0].value} ({candidates[0].probability:.0%}), "
                      f"taken as {candidate.value} ({candidate.probability:.0%})", f"written {category}"))
    return moves


def _marked(candidate: Candidate) -> str:
    return f"{'marked' if candidate.value else 'blank'} ({candidate.probability:.0%})"


def best_reading(reading: GardenReading, boxes: BoxReading) -> SheetRecord:
    """The record of every reader's first choice."""
    return SheetRecord(
        reading.garden,
        tuple(candidates[0].value for candidates in boxes.turns),
        sum(candidates[0].value for candidates in boxes.leaves),
        tuple(candidates[0].value for candidates in boxes.pond_icons),
        {category: candidates[0].value for category, candidates in boxes.written.items()},
    )


def sheet_cost(findings: list[Finding]) -> float:
    """What a sheet's findings weigh: FINDING_COST for each mistake they need. The written total
    differs whenever anything written does, so it is no mistake of its own: a wrong category
    that the player added up faithfully is one mistake (the category), and so is a wrong sum
    (``written_sum``, the total the only number off)."""
    total_differs = any(f.kind == "written_differs" and f.boxes == ("written total",) for f in findings)
    explained = any(f.kind == "written_sum" or f.kind == "written_differs" and f.boxes != ("written total",)
                    for f in findings)
    mistakes = sum(not (f.kind == "written_differs" and f.boxes == ("written total",)) for f in findings)
    return FINDING_COST * (mistakes + (total_differs and not explained))


def _pairs(moves: list[Move], cost: float) -> list[tuple[Move, Move]]:
    """Pairs of moves on different readings that together cost less than ``cost``, cheapest
    first, at most MAX_PAIRS: two misreadings that only explain a finding together."""
    cheap = sorted((m for m in moves if m.cost < cost), key=lambda m: m.cost)
    pairs = []
    for index, first in enumerate(cheap):
        for second in cheap[index + 1 :]:
            if first.cost + second.cost >= cost:
                break  # the rest cost more still
            if first.target != second.target:
                pairs.append((first, second))
    return sorted(pairs, key=lambda pair: pair[0].cost + pair[1].cost)[:MAX_PAIRS]


def _best_change(record: SheetRecord, cost: float, changes: list[tuple[Move, ...]],
                 findings_of: Callable[[SheetRecord], list[Finding]]):
    """(gain, change, record, findings) of the change (one or more moves) that most lowers
    the sheet's ``cost``, or None when none does."""
    best = None
    for change in sorted(changes, key=lambda change: sum(move.cost for move in change)):
        change_cost = sum(move.cost for move in change)
        if change_cost >= cost - (best[0] if best else 0):
            break  # even clearing every finding would not pay for it, or beat the best
        candidate = record
        for move in change:
            candidate = move.apply(candidate)
        candidate_findings = findings_of(candidate)
        gain = cost - sheet_cost(candidate_findings) - change_cost
        if gain > 0 and (best is None or gain > best[0]):
            best = (gain, change, candidate, candidate_findings)
    return best


def _descend(record: SheetRecord, findings: list[Finding], moves: list[Move], changes: list[str],
             findings_of: Callable[[SheetRecord], list[Finding]]) -> tuple[SheetRecord, list[Finding], float]:
    """Take the change that most lowers the sheet's cost, round after round, while one does;
    each change taken is said in ``changes``. The record, its findings and what the changes cost."""
    spent = 0.0
    for _ in range(MAX_ROUNDS):
        cost = sheet_cost(findings)
        if not cost:
            break
        best = (_best_change(record, cost, [(move,) for move in moves], findings_of)
                or _best_change(record, cost, _pairs(moves, cost), findings_of))
        if best is None:
            break
        _, change, record, after = best
        resolved = sorted({f.kind for f in findings if f not in after})
        what = " and ".join(move.what for move in change)
        changes.append(f"{what}: {len(findings) - len(after)} finding(s) fewer ({', '.join(resolved)})")
        findings = after
        targets = {move.target for move in change}
        moves = [m for m in moves if m.target not in targets]
        spent += sum(move.cost for move in change)
    return record, findings, spent


def _class_name(garden, cell) -> str:
    return DECORATION_CLASSES[decoration_class(garden.decoration(cell), cell in garden.tree_late)].replace("_", " ")


def _labelled_together(reading: GardenReading, base: SheetRecord, dice_faces: Mapping[int, Decoration],
                       start: Labelling | None = None) -> tuple[SheetRecord, float, list[Cell], Labelling]:
    """``base`` with its decorated cells labelled together with its turn log (labelling.py; from
    ``start``'s labels, when given), what that costs, the cells it changed and the labelling. Cells that join drawings alike to them (and more alike
    than those they leave) move as a group: RELABEL_GROUP_COST for each kind read as another,
    however many cells (one way to draw, misread everywhere, is one misreading). Any other change
    costs what its networks' reading says, capped at GROUP_CELL_COST: a player's own mistake in
    the turn log must not be explained away by moving a cell away from its like. A tree's mark
    read the other way costs what its networks say, capped at MARK_CELL_COST."""
    cells = [cell for cell, _ in reading.garden.decorated_cells()]
    index = [ALL_CELLS.index(cell) for cell in cells]
    p = reading.decoration_probabilities.reshape(len(ALL_CELLS), -1)[index]
    classes = [decoration_class(kind) for kind in KINDS] + [decoration_class(Decoration.TREE, late=True)]
    similarity = reading.similarity[np.ix_(index, index)]
    known = None if reading.known_similarity is None else known_fit(reading.known_similarity[index], reading.known_kinds)
    labelling = label_together(p[:, classes], similarity, cells, logged_drawings(base.turns, dice_faces), known,
                               None if start is None else start.labels)
    labels = labelling.labels
    before = np.array([classes.index(decoration_class(base.garden.decoration(cell), cell in base.garden.tree_late))
                       if base.garden.decoration(cell) else -1 for cell in cells], int)
    drawn, drawn_before = DRAWN_AS[labels], np.where(before >= 0, DRAWN_AS[before], -1)
    garden, cost, changed, moved = base.garden, 0.0, [], set()
    for i, (cell, row, label) in enumerate(zip(cells, p, labels, strict=True)):
        decoration = KINDS[drawn[i]]
        garden = garden.with_cell(cell, decoration, late=label == LATE_TREE)
        if before[i] == label:
            continue
        others = np.arange(len(cells)) != i
        joined = others & (drawn == drawn[i])
        left = others & (drawn_before == drawn_before[i]) & (drawn == drawn_before[i])
        if drawn_before[i] == drawn[i]:  # a tree's Spring/Summer mark read the other way
            cost += min(_ratio_cost(row.max(), row[classes[label]]), MARK_CELL_COST)
        elif joined.any() and similarity[i, joined].mean() > SAME_DRAWING and (
                not left.any() or similarity[i, joined].mean() > similarity[i, left].mean()):
            moved.add((drawn_before[i], drawn[i]))
        else:
            cost += min(_ratio_cost(row.max(), row[classes[label]]), GROUP_CELL_COST)
        changed.append(cell)
    # without a kind read as another, it changes single cells: the cell by cell decoder's work
    cost = cost + RELABEL_GROUP_COST * len(moved) if moved else math.inf
    return replace(base, garden=garden), cost, changed, labelling


def _counts_differ(record: SheetRecord, dice_faces: Mapping[int, Decoration]) -> bool:
    """Whether the garden holds other numbers of each kind than its turn log gives (the cell by
    cell descent may have fitted a misread garden to the written numbers instead)."""
    logged = sorted(DRAWN_AS[label] for label, _ in logged_drawings(record.turns, dice_faces))
    return logged != sorted(KINDS.index(decoration) for _, decoration in record.garden.decorated_cells())


def _read_together(reading: GardenReading, base: SheetRecord, boxes: BoxReading, dice_faces: Mapping[int, Decoration],
                   findings_of: Callable[[SheetRecord], list[Finding]]) -> tuple[float, SheetRecord, list[Finding], list[str]]:
    """``base`` with its drawings labelled together with its turn log, or with a log where one
    turn is read otherwise (OTHER_TURN_COST) and the drawings fit it better, then its boxes
    decoded: (cost, record, findings, changes) of the cheapest, the cost being the turn's, the
    relabelling's and the findings'."""
    best, labelling = _read_together_with(reading, base, boxes, dice_faces, findings_of)
    if not best[2]:
        return best
    others = sorted(((cost, index, candidate) for index, candidates in enumerate(boxes.turns)
                     for candidate, cost in _alternatives(candidates) if cost < OTHER_TURN_COST), key=lambda other: other[:2])
    for cost, index, candidate in others[:MAX_OTHER_TURNS]:
        if cost >= best[0]:
            break  # the rest cost more still
        other = replace(base, turns=base.turns[:index] + (candidate.value,) + base.turns[index + 1:])
        together, _ = _read_together_with(reading, other, boxes, dice_faces, findings_of, labelling)
        if together[0] + cost < best[0]:
            read = boxes.turns[index][0]
            said = (f"turn {index + 1} read as {turn_text(read.value)} ({read.probability:.0%}), "
                    f"taken as {turn_text(candidate.value)} ({candidate.probability:.0%}) with the drawings")
            best = (together[0] + cost, together[1], together[2], [said, *together[3]])
    return best


def _read_together_with(reading: GardenReading, base: SheetRecord, boxes: BoxReading,
                        dice_faces: Mapping[int, Decoration], findings_of: Callable[[SheetRecord], list[Finding]],
                        rival: Labelling | None = None) -> tuple[tuple[float, SheetRecord, list[Finding], list[str]], Labelling]:
    """``base`` with its drawings labelled together with its turn log, then its boxes decoded:
    (cost, record, findings, changes), the cost being the relabelling's and the findings', with
    the labelling. Given a ``rival`` labelling (of another turn log), the labelling starts from
    it, and where the drawings fit this log no better than the rival's, the cost is infinite."""
    relabelled, cost, changed, labelling = _labelled_together(reading, base, dice_faces, rival)
    if cost == math.inf or rival is not None and labelling.energy >= rival.energy:
        return (math.inf, base, [], []), labelling
    findings = findings_of(relabelled)
    changes: list[str] = []
    # the cells it did not change may still be misread one by one, as the decoder reads them
    moves = _box_moves(boxes) + _cell_moves(reading, keep=frozenset(changed))
    record, after, spent = _descend(relabelled, findings, moves, changes, findings_of)
    read_as = ", ".join(f"{human_cell(cell)} as {_class_name(relabelled.garden, cell)}" for cell in changed)
    said = (f"cells {read_as}: the drawings read together with the turn log "
            f"({len(findings_of(base)) - len(findings)} finding(s) fewer)")
    return (cost + spent + sheet_cost(after), record, after, [said, *changes]), labelling


def decode_sheet(reading: GardenReading, boxes: BoxReading, rules: RuleSet = RuleSet(),
                 dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES, *, groups: bool = True) -> DecodedSheet:
    """The record that best fits the readings and the rules (see the module's note); with
    ``groups``, cells drawn alike may also take another kind together, and when the sheet still
    contradicts itself its drawings are labelled together with its turn log (labelling.py)."""

    scores = lru_cache(maxsize=None)(partial(score, rules=rules))  # many records share a garden

    def findings_of(record: SheetRecord) -> list[Finding]:
        return audit(record, scores(record.garden), dice_faces)

    first = best_reading(reading, boxes)
    moves = _cell_moves(reading) + _box_moves(boxes) + (_group_moves(reading) if groups else [])
    changes = list(reading.decoder_changes)
    record, findings, spent = _descend(first, findings_of(first), moves, changes, findings_of)
    if groups and reading.similarity is not None and first.turns is not None and (
            sheet_cost(findings) or _counts_differ(record, dice_faces)):
        # from the boxes as first read: the descent may have taken a turn box to fit a misread cell
        cost, together, together_findings, together_changes = _read_together(reading, first, boxes, dice_faces, findings_of)
        if cost < spent + sheet_cost(findings):
            changes[len(reading.decoder_changes):] = together_changes  # instead of the cell by cell changes
            record, findings = together, together_findings
    return DecodedSheet(record, scores(record.garden), tuple(findings), tuple(changes))
