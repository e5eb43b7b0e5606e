"""The game: its rules, gardens and their files, the score, the audit, simulated games and the table. No images."""
