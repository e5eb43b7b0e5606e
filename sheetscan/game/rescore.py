"""Rescore garden files: load, score, audit; one result per file, errors kept per file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sheetscan.game.audit import Finding, audit
from sheetscan.errors import SheetscanError
from sheetscan.game.gardenfile import load_record
from sheetscan.game.garden import SheetRecord
from sheetscan.game.rules import RuleSet
from sheetscan.game.score import Score, score


@dataclass(frozen=True)
class RescoreResult:
    """A garden file's outcome: its record, score and findings, or the error that stopped it."""

    path: str
    record: SheetRecord | None = None
    score: Score | None = None
    findings: tuple[Finding, ...] = ()
    name: str | None = None
    expected: dict | None = None
    error: str | None = None


def rescore_file(path: str | Path, rules: RuleSet = RuleSet()) -> RescoreResult:
    """Score and audit one garden file; a bad file gives a result carrying its error."""
    try:
        record, document = load_record(path)
    except SheetscanError as error:
        return RescoreResult(str(path), error=error.message)
    garden_score = score(record.garden, rules)
    expected = document.get("expected")
    return RescoreResult(
        str(path),
        record,
        garden_score,
        tuple(audit(record, garden_score)),
        name=document.get("name"),
        expected=expected if isinstance(expected, dict) else None,
    )
