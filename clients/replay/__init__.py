"""A finished game outside the server: verify its dice, export, import, replay."""
