"""The game simulator: deterministic, legal (see test_audit), and spread over the score range."""

from sheetscan.game.rules import CATEGORIES
from sheetscan.game.simulate import play_game


def test_same_seed_same_game():
    assert play_game(5) == play_game(5)
    assert play_game(5).record != play_game(6).record


def test_scores_span_a_realistic_range():
    totals = [play_game(seed).breakdown["total"] for seed in range(300)]
    assert min(totals) <= 0 and max(totals) >= 40


def test_mistakes_follow_the_rate():
    games = [play_game(seed, mistake_rate=0.5) for seed in range(200)]
    mistaken = sum(dict(game.record.written) != game.breakdown for game in games)
    assert 70 <= mistaken <= 130
    honest = [play_game(seed, mistake_rate=0.0) for seed in range(50)]
    assert all(dict(g.record.written) == g.breakdown for g in honest)
    assert all(set(g.record.written) == set(CATEGORIES) for g in honest)
