"""Statistics for the benches' figures."""

from __future__ import annotations

import math


def wilson_interval(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share (95% for the default ``z``): where the share of a
    much larger run would likely fall. Sound near 0% and 100%, where the normal one is not."""
    if not trials:
        return 0.0, 1.0
    share, spread = successes / trials, z * z / trials
    centre = (share + spread / 2) / (1 + spread)
    half = z * math.sqrt(share * (1 - share) / trials + spread / (4 * trials)) / (1 + spread)
    return max(0.0, centre - half), min(1.0, centre + half)
