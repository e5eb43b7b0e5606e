"""The table: every player's sheet ranked by total, with the rulebook's tie-break.

Knows nothing of images: it takes each sheet's breakdown, bonsai and findings.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from typing import Mapping

from sheetscan.game.audit import Finding
from sheetscan.game.rules import CATEGORIES, MAX_PRUNINGS, solo_rank


@dataclass(frozen=True)
class Player:
    """One sheet at the table."""

    name: str
    photo: str
    sheet: int  # 1-based, in the photo's reading order
    breakdown: Mapping[str, int]
    bonsai_pruned: int
    findings: tuple[Finding, ...]
    verdict: str = "sure"  # the reading's verdict: "sure", or "check" (see reading.verdict)

    @property
    def total(self) -> int:
        return self.breakdown["total"]

    @property
    def leaves_left(self) -> int:
        """Unpruned bonsai leaves: the tie-break."""
        return MAX_PRUNINGS - self.bonsai_pruned


@dataclass(frozen=True)
class Standing:
    place: int  # 1 is the winner; players tied on total and leaves share a place
    shared: bool
    player: Player


def _order(player: Player) -> tuple[int, int]:
    return -player.total, -player.leaves_left


def rank(players: list[Player]) -> list[Standing]:
    """Players by total, then by unpruned bonsai leaves; a tie on both shares the place."""
    ordered = sorted(players, key=_order)
    ties = Counter(_order(p) for p in ordered)
    standings = []
    for index, player in enumerate(ordered):
        place = index + 1 if index == 0 or _order(ordered[index - 1]) != _order(player) else standings[-1].place
        standings.append(Standing(place, ties[_order(player)] > 1, player))
    return standings


def winners(standings: list[Standing]) -> list[Player]:
    """The players in first place (more than one when they tie on total and leaves)."""
    return [s.player for s in standings if s.place == 1]


def name_players(sheets: list[tuple[str, int]], names: list[str]) -> list[str]:
    """A name per (photo, sheet) in reading order: ``names`` first, then "photo #n"."""
    return [names[i] if i < len(names) else f"{photo} #{sheet}" for i, (photo, sheet) in enumerate(sheets)]


def findings_summary(findings: tuple[Finding, ...]) -> str:
    """e.g. ``2 findings: written_differs x2`` or ``no findings``."""
    if not findings:
        return "no findings"
    kinds = Counter(f.kind for f in findings)
    return f"{len(findings)} finding(s): " + ", ".join(f"{kind} x{n}" if n > 1 else kind for kind, n in kinds.items())


def standing_to_dict(standing: Standing) -> dict:
    player = standing.player
    return {"place": standing.place, "shared": standing.shared, "player": player.name, "photo": player.photo,
            "sheet": player.sheet, "total": player.total, "leaves_left": player.leaves_left,
            "score": {c: player.breakdown[c] for c in CATEGORIES},
            "findings_summary": findings_summary(player.findings),
            "findings": [f.to_dict() for f in player.findings], "verdict": player.verdict}


def table_to_dict(standings: list[Standing]) -> dict:
    """The table's JSON: standings, the winners, and the solo rank for a lone sheet."""
    return {"standings": [standing_to_dict(s) for s in standings], "winners": [p.name for p in winners(standings)],
            "solo_rank": solo_rank(standings[0].player.total) if len(standings) == 1 else None}


def table_text(standings: list[Standing]) -> str:
    """The table for people: place, player, total, tie-break, breakdown, the reading's verdict, findings."""
    short = [c[:6] for c in CATEGORIES[:-1]]
    header = (f"{'place':<6}{'player':<24}{'total':>6}{'leaves':>7}  " + " ".join(f"{c:>6}" for c in short)
              + f"  {'read':<6}findings")
    lines = [header]
    for s in standings:
        p = s.player
        place = f"{s.place}{'=' if s.shared else ''}"
        lines.append(f"{place:<6}{p.name[:23]:<24}{p.total:>6}{p.leaves_left:>7}  "
                     + " ".join(f"{p.breakdown[c]:>6}" for c in CATEGORIES[:-1]) + f"  {p.verdict:<6}{findings_summary(p.findings)}")
    first = [p.name for p in winners(standings)]
    if len(standings) == 1:
        lines.append(f"solo rank: {solo_rank(standings[0].player.total)}")
    elif len(first) > 1:
        lines.append("shared victory: " + ", ".join(first) + " (same total and unpruned leaves)")
    else:
        lines.append(f"winner: {first[0]}")
    return "\n".join(lines)


def table_csv(standings: list[Standing]) -> str:
    """One row per sheet: place, player, photo, sheet, the breakdown, leaves left, findings."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["place", "shared", "player", "photo", "sheet", *CATEGORIES, "leaves_left", "findings", "verdict"])
    for s in standings:
        p = s.player
        writer.writerow([s.place, s.shared, p.name, p.photo, p.sheet, *(p.breakdown[c] for c in CATEGORIES),
                         p.leaves_left, findings_summary(p.findings), p.verdict])
    return out.getvalue()
