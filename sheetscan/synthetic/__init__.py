"""The synthetic world: printed sheets, hands that fill them, and a camera that photographs them."""
