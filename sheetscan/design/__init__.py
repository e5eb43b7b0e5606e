"""The printed sheets' designs: each a layout of boxes in sheet units, as data."""
