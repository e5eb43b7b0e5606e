"""Names shared by the command line and the package, kept in a module with no heavy imports
so that the command line starts without loading the vision stack."""

CAMERA_LEVELS = ("scan", "phone", "hard")  # the synthetic camera's levels, mildest first
TRAINING_PLANS = ("cells", "cells-tables", "boxes", "boxes-tables")  # what `sheetscan train --networks` makes
