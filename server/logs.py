"""Structured logs: one JSON object per line on stderr (``--log-format text`` for humans)."""

from __future__ import annotations

import json
import logging
import sys
import time


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": round(time.time(), 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry)


class DenialNoise(logging.Filter):
    """Drops uvicorn's "returned without completing handshake" after a denial response:
    refusing a websocket handshake with an HTTP answer (403, 429) is what the server
    means to do (uvicorn 0.54 logs it as an error all the same)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "returned without completing handshake" not in record.getMessage()


def quiet_denials() -> None:
    """Install :class:`DenialNoise` on uvicorn's error log (idempotent)."""
    target = logging.getLogger("uvicorn.error")
    if not any(isinstance(f, DenialNoise) for f in target.filters):
        target.addFilter(DenialNoise())


def setup_logging(level: str = "info", fmt: str = "json") -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("rollhouse")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
