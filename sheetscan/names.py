"""Names shared by the command line and the package, kept in a module with no heavy imports
so that the command line starts without loading the vision stack."""

CAMERA_LEVELS = ("scan", "phone", "hard")  # the synthetic camera's levels, mildest first
TRAINING_PLANS = ("cells", "cells-tables", "boxes", "boxes-tables", "drawings", "digits")  # what `sheetscan train --networks` makes
# How a synthetic sheet's corner markers are printed: all four, none (the publisher's pad, a
# sheet printed without them), or some (one to three covered: a thumb, a cropped corner).
MARKER_PRINTS = ("all", "none", "some")
# The sheet designs the package draws and reads (sheetscan/design/data/NAME.json): the
# project's print-and-play sheet (A4, with corner markers), the publisher's pad as the
# rulebook describes it (A5, no markers) and a player's home-made sheet (A4 landscape, no
# markers).
LAYOUT_NAMES = ("print-and-play", "pad", "homemade")
# The home-made sheet stands for a design nobody here saw: no training plan draws it, and it
# was measured before anything was tuned on it (docs/benchmarks.md, thirteenth round).
HELD_OUT_LAYOUT = "homemade"
DEFAULT_LAYOUT = "print-and-play"
# How the command line's help reads its docstrings: as Markdown, so that a paragraph's source
# line breaks flow to the terminal's width (Typer's "rich" mode keeps them) and `code` shows as code.
HELP_MARKUP = "markdown"
