"""The verdict on a read sheet: "sure", or "check" with the readings to check, least sure first.

A reading is doubtful when the networks gave the value the decoder kept less than SURE_ABOVE: a
drawing unlike the ones trained spreads its probability, a decoder's change keeps a value the
networks did not prefer. A sheet that still contradicts itself (a turn its garden cannot place, a
leaf too many) is never sure either, however sure each reading: a drawing misread with
confidence shows there. Only the written numbers may differ from the rules on a sure sheet: that
is the player's arithmetic, which the audit reports. The threshold is chosen on validation
photos (docs/benchmarks.md), so that the sheets called sure are read exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from sheetscan.game.audit import Finding
from sheetscan.game.garden import ALL_CELLS, SheetRecord, turn_text
from sheetscan.game.rules import Decoration
from sheetscan.reading.boxes import BoxReading, Candidate
from sheetscan.reading.read import DECORATION_CLASSES, GardenReading

# Below this probability of the value kept, a cell or a box is one to check. Chosen on the
# validation seeds 77 and 78 (see docs/benchmarks.md "The verdict").
SURE_ABOVE = 0.9
PLAYERS_ARITHMETIC = ("written_differs", "written_sum")  # findings a sure sheet may carry


@dataclass(frozen=True)
class Doubt:
    """One reading to check: what (``"cell (3,4)"``, ``"turn 5"``, ``"written moss"``), how likely
    the value kept is, and what it was read as."""

    what: str
    confidence: float
    reading: str

    def to_dict(self) -> dict:
        return {"what": self.what, "confidence": round(self.confidence, 3), "reading": self.reading}


@dataclass(frozen=True)
class Verdict:
    """``sure`` when no reading is in doubt; else the doubts, least sure first."""

    doubts: tuple[Doubt, ...]

    @property
    def sure(self) -> bool:
        return not self.doubts

    @property
    def label(self) -> str:
        return "sure" if self.sure else "check"


def _class_name(decoration: Decoration | None, late: bool) -> str:
    return "empty" if decoration is None else "tree_late" if late else decoration.name.lower()


def _kept(candidates: tuple[Candidate, ...], value: object) -> float:
    """The probability of ``value`` among ``candidates`` (0 when the reader did not offer it)."""
    return next((c.probability for c in candidates if c.value == value), 0.0)


def cell_doubts(reading: GardenReading, record: SheetRecord, sure_above: float) -> list[Doubt]:
    """The cells whose decoded decoration (with its Spring/Summer mark) or terrain the networks
    gave less than ``sure_above``."""
    doubts = []
    garden = record.garden
    for r, c in ALL_CELLS:
        name = _class_name(garden.decoration((r, c)), (r, c) in garden.tree_late)
        water = garden.is_water((r, c))
        p_water = float(reading.water_probability[r, c])
        confidence = min(float(reading.decoration_probabilities[r, c, DECORATION_CLASSES.index(name)]),
                         p_water if water else 1 - p_water)
        if confidence < sure_above:
            said = ("tree with its Spring/Summer mark" if name == "tree_late" else name) + (" in water" if water else "")
            doubts.append(Doubt(f"cell ({r + 1},{c + 1})", confidence, said))
    return doubts


def box_doubts(boxes: BoxReading, record: SheetRecord, sure_above: float) -> list[Doubt]:
    """The turn boxes, marks and written numbers whose decoded value the networks gave less
    than ``sure_above``."""
    kept = [(f"turn {i + 1}", _kept(candidates, turn), turn_text(turn))
            for i, (candidates, turn) in enumerate(zip(boxes.turns, record.turns, strict=True))]
    kept += [(f"pond icon {i + 1}", _kept(candidates, marked), "marked" if marked else "blank")
             for i, (candidates, marked) in enumerate(zip(boxes.pond_icons, record.ponds_marked, strict=True))]
    # the leaves are a count: each leaf's own reading stands unless the decoder changed the count
    leaves_first = sum(candidates[0].value for candidates in boxes.leaves)
    kept += [(f"leaf {i + 1}", candidates[0].probability if leaves_first == record.bonsai_pruned else 0.0,
              "marked" if candidates[0].value else "blank") for i, candidates in enumerate(boxes.leaves)]
    kept += [(f"written {category}", _kept(candidates, record.written.get(category)), str(record.written.get(category)))
             for category, candidates in boxes.written.items()]
    return [Doubt(what, confidence, said) for what, confidence, said in kept if confidence < sure_above]


def finding_doubts(findings: tuple[Finding, ...]) -> list[Doubt]:
    """The sheet's contradictions, other than the player's arithmetic: each is to check."""
    return [Doubt(", ".join(finding.boxes) or finding.kind, 0.0, finding.sentence)
            for finding in findings if finding.kind not in PLAYERS_ARITHMETIC]


def sheet_verdict(reading: GardenReading, boxes: BoxReading, record: SheetRecord, findings: tuple[Finding, ...] = (),
                  *, sure_above: float = SURE_ABOVE) -> Verdict:
    """The verdict on a decoded sheet ``record`` read as ``reading`` and ``boxes``, with its
    audit ``findings``."""
    doubts = cell_doubts(reading, record, sure_above) + box_doubts(boxes, record, sure_above) + finding_doubts(findings)
    return Verdict(tuple(sorted(doubts, key=lambda doubt: doubt.confidence)))
