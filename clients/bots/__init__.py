"""Bots that play real seats over the websocket: the play loop and the ``bots`` command."""
