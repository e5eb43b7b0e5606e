"""sheetscan: read and score Jardín Japonés roll-and-write sheets."""

__version__ = "0.1.0"
