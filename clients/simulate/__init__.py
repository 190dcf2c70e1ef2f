"""Offline play: whole games with the bot policies, summarised (``rollhouse simulate``)."""
