"""Decode: the sheet record that best fits what was read and what the rules allow.

The readers give each cell and box its candidates with probabilities. A sheet's readings are
judged together: a reading that makes the sheet contradict itself (a turn the garden cannot
place, a written number the rules do not give, a bonsai leaf too many) is less likely than a
runner-up that does not. The decoder searches for the record that minimises

    sum of log(p_best / p_chosen) over every reading changed  +  FINDING_COST x mistakes

where the mistakes are those the auditor's findings need (sheet_audit.sheet_cost). It descends cell by
cell (descent.py); where the sheet still contradicts itself, its drawings are read together with
its turn log (labelling.py), the log and the drawings read otherwise where that fits. A mistake
costs about what a reading error with probability ratio exp(-FINDING_COST) does: the player's own
mistakes are rare but real, and stay flagged when no plausible reading explains them. Every change
is said, with why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Mapping, NamedTuple

import numpy as np

from sheetscan.game.audit import Finding, human_cell
from sheetscan.reading.boxes import BoxReading
from sheetscan.game.garden import ALL_CELLS, Cell, Garden, SheetRecord
from sheetscan.reading.descent import Descent, LogFitted, best_reading, numbers_alone
from sheetscan.reading.sheet_audit import SheetAudit, sheet_cost
from sheetscan.reading.labelling import (Labelling, cell_swaps, kind_permutations, label_together, logged_drawings,
                                         sheet_remembered)
from sheetscan.reading.labelling_energy import DRAWN_AS, KINDS, LATE_TREE, SAME_DRAWING, known_fit
from sheetscan.reading.logs import logs_read_otherwise, turn_pairs_read_otherwise
from sheetscan.reading.moves import (FINDING_COST, GROUP_CELL_COST, box_moves, cell_moves, group_moves, ratio_cost,
                                     readings_without_drawing, records_with_drawings)
from sheetscan.reading.read import DECORATION_CLASSES, GardenReading, decoration_class
from sheetscan.game.rules import DEFAULT_DICE_FACES, Decoration, RuleSet
from sheetscan.game.score import Score

# Labelling a sheet's drawings together (labelling.py) is taken when the findings it removes
# outweigh what its changes cost (see _labelled_together): this much for each kind read as
# another, and at most MARK_CELL_COST for a Spring/Summer mark read the other way. Chosen on
# validation photos (docs/benchmarks.md, fifty-first round, gives the figures).
RELABEL_GROUP_COST = 0.5
MARK_CELL_COST = 2.0
# The cheapest log read otherwise is read otherwise again (one more turn, one more group of digits,
# or one more drawing read as empty) while it still leaves findings, LOG_ROUNDS rounds in all: a
# small photo's turn boxes may hold several digits misread unlike one another (digits from a
# coarse source, up to six). Chosen on validation photos of held-out hands (docs/benchmarks.md).
LOG_ROUNDS = 6
# Where no log read otherwise in a round leaves the sheet cheaper, the one that leaves it costing
# least, if within LOG_SLACK of the best so far, is read otherwise again in the next round: a
# writer the networks never saw may have two turns misread so that either, set right alone,
# leaves the drawings labelled to fit the other, and only both set right fit. Chosen on
# validation photos of held-out hands with coarse digits (docs/benchmarks.md).
LOG_SLACK = 1.0
# Where no log read otherwise in a round is cheaper or near, the one the drawings fit best (its
# labelling's energy and what reading it otherwise costs, LOG_FIT_MARGIN below the log now's) is
# read otherwise again: a turn misread as another kind's die leaves two kinds traded, the written
# numbers against them, and only that log's trades and another turn set right fit. Chosen on
# validation photos of held-out hands with coarse varied digits (docs/benchmarks.md).
LOG_FIT_MARGIN = 1.0
# Two or three ways to draw no network saw may fit the turn log either way round (the same counts,
# rows and columns), and two drawings alike to both kinds may sit where the log allows either: the
# labelling's least energy then takes one, and only what the player wrote can tell. Where the
# labelling leaves findings, labellings near it are judged with their findings (_traded_labellings):
# the kinds trading drawings (the MAX_PERMUTATIONS likeliest ways, labelling.kind_permutations),
# two cells trading labels (the MAX_CELL_SWAPS at most CELL_SWAP_MARGIN above it), then the same
# from the TRADE_BEAM best of those; each at most SWAP_ENERGY_MARGIN above the labelling's energy,
# its extra energy counted at SWAP_ENERGY_COST; the TRADES_DECODED best are decoded in full.
# Chosen on validation photos of held-out hands (docs/benchmarks.md, fifty-first round).
SWAP_ENERGY_MARGIN, SWAP_ENERGY_COST = 3.0, 1.0
CELL_SWAP_MARGIN, MAX_CELL_SWAPS = 1.0, 6
TRADE_ROUNDS, TRADE_BEAM, TRADES_DECODED = 2, 3, 3
# The cell by cell descent takes ROUNDS_ALONE rounds, and more while its findings need at most
# MISTAKES_LEFT_ALONE mistakes, before the drawings are read together where it still leaves
# findings: a misreading or two of a hand the networks know is set right alone. Where they are
# read together, the descent goes on only while it could still end cheaper than the labelling
# (Descent.costs_more_than). Those rounds take a move alone: pairs of moves wait for the labelling
# to say what they must beat. Chosen for speed, every record the same (docs/benchmarks.md).
ROUNDS_ALONE = 2
MISTAKES_LEFT_ALONE = 2


@dataclass(frozen=True)
class _Together:
    """A sheet read with its drawings labelled together: what it costs (the relabelling's, its other
    changes' and its findings'), the record, its findings, the changes said, the labelling and
    (DecodedSheet's) fitted and logs_fitted."""

    cost: float
    record: SheetRecord
    findings: list[Finding]
    changes: list[str]
    labelling: Labelling
    fitted: tuple[tuple[Garden, Garden], ...] = ()
    logs_fitted: tuple[LogFitted, ...] = ()


@dataclass(frozen=True)
class DecodedSheet:
    """The decoded record, its score and findings, the readings the decoder changed, with why, and
    what it changed for the written numbers alone (slips.py)."""

    record: SheetRecord
    score: Score  # of the record's garden
    findings: tuple[Finding, ...]
    changes: tuple[str, ...]
    fitted: tuple[tuple[Garden, Garden], ...] = ()  # (garden before, after) of each change
    logs_fitted: tuple[LogFitted, ...] = ()  # each turn log read otherwise


def _class_name(garden, cell) -> str:
    return DECORATION_CLASSES[decoration_class(garden.decoration(cell), cell in garden.tree_late)].replace("_", " ")


def _labelling_inputs(reading: GardenReading, base: SheetRecord, dice_faces: Mapping[int, Decoration]) -> tuple:
    """What the labelling of ``base``'s decorated cells takes (label_together's arguments but
    ``start``), and the classes its labels stand for."""
    cells = [cell for cell, _ in reading.garden.decorated_cells()]
    index = [ALL_CELLS.index(cell) for cell in cells]
    p = reading.decoration_probabilities.reshape(len(ALL_CELLS), -1)[index]
    classes = [decoration_class(kind) for kind in KINDS] + [decoration_class(Decoration.TREE, late=True)]
    similarity = reading.similarity[np.ix_(index, index)]
    known = None if reading.known_similarity is None else known_fit(reading.known_similarity[index], reading.known_kinds)
    return (p[:, classes], similarity, cells, logged_drawings(base.turns, dice_faces), known), p, classes


def _labelled_together(reading: GardenReading, base: SheetRecord, dice_faces: Mapping[int, Decoration],
                       start: Labelling | None = None, made: Labelling | None = None
                       ) -> tuple[SheetRecord, float, list[Cell], Labelling]:
    """``base`` with its decorated cells labelled together with its turn log (labelling.py; from
    ``start``'s labels, when given), what that costs, the cells it changed and the labelling.
    Cells that join drawings alike to them (and more alike than those they leave) move as a
    group: RELABEL_GROUP_COST for each kind read as another, however many cells (one way to draw,
    misread everywhere, is one misreading). Any other change costs what its networks' reading
    says, capped at GROUP_CELL_COST: a player's own mistake in the turn log must not be explained
    away by moving a cell away from its like. A tree's mark read the other way costs what its
    networks say, capped at MARK_CELL_COST."""
    arguments, p, classes = _labelling_inputs(reading, base, dice_faces)
    cells, similarity = arguments[2], arguments[1]
    labelling = made or label_together(*arguments, None if start is None else start.labels)
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
            cost += min(ratio_cost(row.max(), row[classes[label]]), MARK_CELL_COST)
        elif joined.any() and similarity[i, joined].mean() > SAME_DRAWING and (
                not left.any() or similarity[i, joined].mean() > similarity[i, left].mean()):
            moved.add((drawn_before[i], drawn[i]))
        else:
            cost += min(ratio_cost(row.max(), row[classes[label]]), GROUP_CELL_COST)
        changed.append(cell)
    # without a kind read as another, it changes single cells: the cell by cell decoder's work
    cost = cost + RELABEL_GROUP_COST * len(moved) if moved else math.inf
    return base.with_garden(garden), cost, changed, labelling


def _counts_differ(record: SheetRecord, dice_faces: Mapping[int, Decoration]) -> bool:
    """Whether the garden holds other numbers of each kind than its turn log gives (the cell by
    cell descent may have fitted a misread garden to the written numbers instead)."""
    logged = sorted(DRAWN_AS[label] for label, _ in logged_drawings(record.turns, dice_faces))
    return logged != sorted(KINDS.index(decoration) for _, decoration in record.garden.decorated_cells())


class _Reread(NamedTuple):
    """A sheet read otherwise (its log, or a drawing read as empty): what that cost, how it is
    said, the reading and record it leaves, and the labelling a log read otherwise must fit."""

    spent: float
    said: tuple[str, ...]
    reading: GardenReading
    base: SheetRecord
    rival: Labelling | None


def _together_start(reading: GardenReading, base: SheetRecord, boxes: BoxReading,
                    dice_faces: Mapping[int, Decoration], audit: SheetAudit) -> tuple[_Reread, _Together]:
    """``base`` with its drawings labelled together with its turn log, its boxes then decoded,
    or where cheaper, with cells read as empty taken as drawings (records_with_drawings): how it was
    read, and what that gives."""
    starts = [(_Reread(0.0, (), reading, base, None), _read_together_with(reading, base, boxes, dice_faces, audit))]
    for cost, what, drawn, base_then in records_with_drawings(reading, base, dice_faces):
        starts.append((_Reread(cost, (f"{what} with the drawings",), drawn, base_then, None),
                       _read_together_with(drawn, base_then, boxes, dice_faces, audit)))
    return min(starts, key=lambda start: start[0].spent + start[1].cost)


def _read_together(reading: GardenReading, base: SheetRecord, boxes: BoxReading, dice_faces: Mapping[int, Decoration],
                   audit: SheetAudit, start: tuple[_Reread, _Together]) -> _Together:
    """From ``base`` read together (``start``, _together_start), the cheapest of it, of its
    labelling with kinds or cells trading labels (_with_trades), and of the sheet read otherwise:
    a log read otherwise (logs_read_otherwise; the drawings labelled with it, their extra energy
    paid where they fit it worse), a drawing read as empty (readings_without_drawing) or cells read
    as empty as drawings (records_with_drawings); each then its boxes decoded, what was read
    otherwise counted. Where the cheapest read otherwise still leaves findings, its labellings'
    trades are tried (a misread turn and two trees' marks the log allows either way are two
    misreadings, and only both set right fit), and it is read otherwise again (LOG_ROUNDS in all),
    from the cheapest or else the nearest (LOG_SLACK) or the best fit (LOG_FIT_MARGIN). Where
    findings are left even so, two turns of the log as read are read otherwise at once
    (turn_pairs_read_otherwise). A log read otherwise for the numbers alone is noted (LogFitted)."""
    now, together = start
    best = _with_trades(now.reading, now.base, boxes, dice_faces, audit, together, now.spent, now.said)
    now = now._replace(rival=together.labelling)
    for _ in range(LOG_ROUNDS):
        tries = [(cost, what, now.reading, replace(now.base, turns=turns), now.rival)
                 for cost, what, turns in logs_read_otherwise(now.base.turns, base.turns, boxes)]
        # a drawing taken as empty, or cells read as empty taken as drawn, leave other cells to label:
        # their labelling starts afresh
        tries += [(cost, what, without, now.base.with_garden(without.garden), None)
                  for cost, what, without in readings_without_drawing(now.reading)]
        if now.reading is not reading or now.base.turns != base.turns:  # else tried as a start
            tries += [(cost, what, drawn, base_then, None)
                      for cost, what, drawn, base_then in records_with_drawings(now.reading, now.base, dice_faces)]
        found = near = fitting = None  # the cheapest; the nearest; the best fit (LOG_FIT_MARGIN)
        fit_below = together.labelling.energy - LOG_FIT_MARGIN  # the log now's
        for cost, what, reading_then, base_then, rival in tries:
            cost += now.spent
            if cost >= best.cost + LOG_SLACK:
                continue  # it cannot pay, nor come near
            together = _read_together_with(reading_then, base_then, boxes, dice_faces, audit, rival,
                                           below=best.cost + LOG_SLACK - cost)
            said = (*now.said, f"{what} with the drawings")
            reread = (_Reread(cost, said, reading_then, base_then, together.labelling if rival is None else rival),
                      together)
            total = together.cost + cost
            if total < best.cost:
                best, found = _log_read_for_numbers(best, _said(together, cost, said)), reread
            elif total < best.cost + LOG_SLACK and (near is None or total < near[0]):
                near = (total, reread)
            if (fit := together.labelling.energy + cost - now.spent) < fit_below:
                fitting, fit_below = reread, fit
        if not best.findings or (found is None and near is None and fitting is None):
            break
        now, together = found or (near[1] if near else fitting)
        traded = _with_trades(now.reading, now.base, boxes, dice_faces, audit, together, now.spent, now.said)
        if traded.cost < best.cost:
            best = _log_read_for_numbers(best, traded)
        if not best.findings:
            break
    now, started = start
    for cost, what, turns in turn_pairs_read_otherwise(now.base.turns, boxes) if best.findings else ():
        if (cost := cost + now.spent) < best.cost:
            together = _read_together_with(now.reading, replace(now.base, turns=turns), boxes, dice_faces, audit,
                                           started.labelling, below=best.cost - cost)
            if together.cost + cost < best.cost:
                best = _log_read_for_numbers(best, _said(together, cost, (*now.said, f"{what} with the drawings")))
    return best


def _log_read_for_numbers(old: _Together, new: _Together) -> _Together:
    """``new``, cheaper than ``old``, noting old's log and garden (and old's own notes) where new
    reads the log otherwise and old's findings were the written numbers' alone."""
    if not numbers_alone(old.findings) or new.record.turns == old.record.turns:
        return new
    noted = LogFitted(old.record.turns, old.record.garden, old.cost - new.cost)
    return replace(new, logs_fitted=(*old.logs_fitted, noted, *new.logs_fitted))


def _said(together: _Together, cost: float, what: tuple[str, ...]) -> _Together:
    """``together`` costing ``cost`` more, for the changes ``what``, said before its own."""
    return replace(together, cost=together.cost + cost, changes=[*what, *together.changes])


def _with_trades(reading: GardenReading, base: SheetRecord, boxes: BoxReading, dice_faces: Mapping[int, Decoration],
                 audit: SheetAudit, together: _Together, cost: float = 0.0,
                 what: tuple[str, ...] = ()) -> _Together:
    """``together`` (``base`` read together; ``cost`` more, said as ``what``, for how its log was
    read) or, where cheaper, ``base`` read with one of the labellings near its own
    (_traded_labellings), their extra energy counted at SWAP_ENERGY_COST."""
    best = _said(together, cost, what)
    for worse, traded_what, swapped in _traded_labellings(reading, base, dice_faces, audit, together.labelling):
        extra = cost + SWAP_ENERGY_COST * worse
        traded = _said(_read_together_with(reading, base, boxes, dice_faces, audit, made=swapped,
                                           below=best.cost - extra),
                       extra, (*what, f"{traded_what}, as the turn log and the written numbers have them"))
        if traded.cost < best.cost:
            best = replace(traded, fitted=(*traded.fitted, (together.record.garden, traded.record.garden)))
    return best


def _traded_labellings(reading: GardenReading, base: SheetRecord, dice_faces: Mapping[int, Decoration],
                       audit: SheetAudit, first: Labelling) -> list[tuple]:
    """Labellings near ``first`` that the written numbers may prefer: kinds trading drawings
    (labelling.kind_permutations) and two cells trading kinds (labelling.cell_swaps), then the
    same from the TRADE_BEAM best of those, for TRADE_ROUNDS rounds; each at most
    SWAP_ENERGY_MARGIN above ``first``'s energy, judged before its boxes are decoded (its
    relabelling's cost, its findings, its extra energy). The TRADES_DECODED best, as (extra
    energy, what was traded, labelling)."""
    arguments = _labelling_inputs(reading, base, dice_faces)[0]
    seen, frontier, judged = {first.labels.tobytes()}, [first], []
    for _ in range(TRADE_ROUNDS):
        found = []
        for start in frontier:
            traded = [("kinds given each other's drawings", swapped)
                      for swapped in kind_permutations(*arguments, start.labels)]
            traded += [("two drawings given each other's kinds", swapped)
                       for swapped in cell_swaps(*arguments, start.labels, CELL_SWAP_MARGIN)[:MAX_CELL_SWAPS]]
            for what, swapped in traded:
                worse = max(swapped.energy - first.energy, 0)
                if worse > SWAP_ENERGY_MARGIN or swapped.labels.tobytes() in seen:
                    continue
                seen.add(swapped.labels.tobytes())
                relabelled, cost, _, _ = _labelled_together(reading, base, dice_faces, made=swapped)
                if cost < math.inf:
                    judged_cost = cost + sheet_cost(audit.findings(relabelled)) + SWAP_ENERGY_COST * worse
                    found.append((judged_cost, len(judged) + len(found), worse, what, swapped))
        found.sort(key=lambda item: item[:2])
        judged += found
        frontier = [item[-1] for item in found[:TRADE_BEAM]]
    return [item[2:] for item in sorted(judged, key=lambda item: item[:2])[:TRADES_DECODED]]


def _read_together_with(reading: GardenReading, base: SheetRecord, boxes: BoxReading,
                        dice_faces: Mapping[int, Decoration], audit: SheetAudit,
                        rival: Labelling | None = None, made: Labelling | None = None,
                        below: float = math.inf) -> _Together:
    """``base`` with its drawings labelled together with its turn log, then its boxes decoded.
    Given a ``rival`` labelling (of another turn log), the labelling starts from it, and where
    the drawings fit this log worse than the rival's, the extra energy counts as a trade's does
    (SWAP_ENERGY_COST), however much: alike drawings of two kinds labelled one kind fit a log
    misread as one better than the true log fits them apart (held-out hands, validation seed
    80: one sheet in 40 more exact than with no more than SWAP_ENERGY_MARGIN allowed). Where the
    labelling alone costs ``below`` or more, its boxes are not decoded (that only adds): the
    cost is infinite."""
    relabelled, cost, changed, labelling = _labelled_together(reading, base, dice_faces, rival, made)
    worse = 0.0 if rival is None else max(labelling.energy - rival.energy, 0.0)
    cost += SWAP_ENERGY_COST * worse
    if cost >= below:  # an infinite cost (no kind read as another) too
        return _Together(math.inf, base, [], [], labelling)
    findings = audit.findings(relabelled)
    # the cells it did not change may still be misread one by one, as the decoder reads them
    moves = box_moves(boxes) + cell_moves(reading, keep=frozenset(changed))
    descent = Descent(relabelled, findings, moves, audit).finish()
    read_as = ", ".join(f"{human_cell(cell)} as {_class_name(relabelled.garden, cell)}" for cell in changed)
    said = (f"cells {read_as}: the drawings read together with the turn log "
            f"({len(audit.findings(base)) - len(findings)} finding(s) fewer)")
    return _Together(cost + descent.spent + sheet_cost(descent.findings), descent.record, descent.findings,
                     [said, *descent.changes], labelling, tuple(descent.fitted), tuple(descent.logs_fitted))


@sheet_remembered()  # for the sheet's labellings, as its audit keeps its gardens' scores
def decode_sheet(reading: GardenReading, boxes: BoxReading, rules: RuleSet = RuleSet(),
                 dice_faces: Mapping[int, Decoration] = DEFAULT_DICE_FACES, *, groups: bool = True) -> DecodedSheet:
    """The record that best fits the readings and the rules (see the module's note); with
    ``groups``, cells drawn alike may also take another kind together, and when the sheet still
    contradicts itself its drawings are labelled together with its turn log (labelling.py)."""
    audit, first = SheetAudit(rules, dice_faces), best_reading(reading, boxes)
    moves = cell_moves(reading) + box_moves(boxes) + (group_moves(reading) if groups else [])
    cell_by_cell = Descent(first, audit.findings(first), moves, audit)
    can_read_together = groups and reading.similarity is not None and first.turns is not None
    while not cell_by_cell.done and (cell_by_cell.rounds < ROUNDS_ALONE
                                     or sheet_cost(cell_by_cell.findings) <= MISTAKES_LEFT_ALONE * FINDING_COST):
        if not cell_by_cell.step(pairs=not can_read_together):
            break
    if can_read_together and _leaves_findings(cell_by_cell, dice_faces):
        # from the boxes as first read: the descent may have taken a turn box to fit a misread cell
        now, together = start = _together_start(reading, first, boxes, dice_faces, audit)
        if not together.findings and cell_by_cell.costs_more_than(now.spent + together.cost):
            return _decoded(reading, audit, _said(together, now.spent, now.said))
        # the drawings read together leave findings, or cost more than the descent may end at:
        # where it ends with none, it is the reading; else the search goes on, to beat it
        if _leaves_findings(cell_by_cell.finish(), dice_faces):
            together = _read_together(reading, first, boxes, dice_faces, audit, start)
            if together.cost < cell_by_cell.cost:
                return _decoded(reading, audit, together)
    return _decoded(reading, audit, cell_by_cell.finish())


def _leaves_findings(descent: Descent, dice_faces: Mapping[int, Decoration]) -> bool:
    """Whether ``descent`` goes on, or ends with findings or other numbers of each kind than its
    turn log gives (it may have fitted a misread garden to the written numbers instead)."""
    return not descent.done or bool(sheet_cost(descent.findings)) or _counts_differ(descent.record, dice_faces)


def _decoded(reading: GardenReading, audit: SheetAudit, read: _Together | Descent) -> DecodedSheet:
    """The sheet as ``read`` (the drawings read together, or the descent), its changes after the reader's own."""
    return DecodedSheet(read.record, audit.score(read.record.garden), tuple(read.findings),
                        (*reading.decoder_changes, *read.changes), tuple(read.fitted), tuple(read.logs_fitted))
