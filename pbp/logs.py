"""Which loggers speak at which level: pbp's own at the level asked for, libraries only about
problems unless the level is DEBUG (docs/operating.md, "Logs")."""
from __future__ import annotations

import logging

#: Libraries whose INFO lines are routine (APScheduler logs every job run, httpx every
#: request): WARNING unless DEBUG.
CHATTY_LIBRARIES = ("apscheduler", "peewee", "aiosmtplib", "imapclient", "asyncio", "httpx", "httpcore")


def quiet_libraries(level: str | int) -> None:
    """Set the chatty libraries to DEBUG when ``level`` is DEBUG, else WARNING."""
    debug = level in ("DEBUG", logging.DEBUG)
    for name in CHATTY_LIBRARIES:
        logging.getLogger(name).setLevel(logging.DEBUG if debug else logging.WARNING)
