"""``python -m sheetscan``: the same command line as ``sheetscan``."""

from cli import main

if __name__ == "__main__":
    main()
