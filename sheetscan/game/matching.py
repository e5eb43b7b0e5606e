"""A maximum matching of items to distinct partners: turns' decorations to cells (audit.py), the
labelling's logged drawings to cells (reading/labelling_energy.py)."""

from __future__ import annotations

from typing import Hashable, Sequence


def maximum_matching(candidates: Sequence[Sequence[Hashable]]) -> dict[int, Hashable]:
    """A maximum matching of items to distinct partners (augmenting paths): item index -> its
    partner, each item's possible partners being ``candidates[index]``."""
    owner: dict[Hashable, int] = {}
    for index, partners in enumerate(candidates):
        if partners and partners[0] not in owner:
            owner[partners[0]] = index  # what _placed() does first, without its call: the usual case
        elif partners:
            _placed(index, candidates, owner, set())
    return {index: partner for partner, index in owner.items()}


def _placed(index: int, candidates: Sequence[Sequence[Hashable]], owner: dict[Hashable, int], visited: set) -> bool:
    """Whether item ``index`` finds a partner by an augmenting path (``owner`` updated). Not a closure:
    one that calls itself is a cycle only the garbage collector frees, and a decode matches thousands."""
    for partner in candidates[index]:
        if partner in visited:
            continue
        visited.add(partner)
        if partner not in owner or _placed(owner[partner], candidates, owner, visited):
            owner[partner] = index
            return True
    return False
