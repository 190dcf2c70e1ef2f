"""The terminal client (``rollhouse play`` / ``rollhouse watch``): one module per game."""
