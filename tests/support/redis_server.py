"""Placeholder: the redis_server fixture is written with the event store."""
