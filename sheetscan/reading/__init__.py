"""Reading a photo: find each sheet, rectify it, read its cells and boxes, decode the record."""
