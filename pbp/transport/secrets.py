"""Where mail passwords come from: an environment variable or a file, never config.toml."""
from __future__ import annotations

import logging
import os
import stat
from collections.abc import Mapping

from pbp.errors import ConfigError

log = logging.getLogger(__name__)


def resolve_secret(
    env: str | None, file: str | os.PathLike | None, *, environ: Mapping[str, str] | None = None
) -> str:
    """Return the secret from the environment variable named ``env``, else from ``file``.

    The variable wins when it is set and not empty. A file's trailing newline (what ``echo``
    and editors add) is stripped; nothing else is. Raises ``ConfigError`` naming what was
    tried when neither gives a non-empty secret.
    """
    environ = os.environ if environ is None else environ
    if env:
        value = environ.get(env, "")
        if value:
            return value
    if file:
        path = os.fspath(file)
        try:
            with open(path, encoding="utf-8") as handle:
                value = handle.read()
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise ConfigError(
                f"cannot read the password file {path}: {exc.strerror or exc}",
                hint="check the path and that the daemon's user may read it",
            ) from exc
        value = value.rstrip("\r\n")
        if not value:
            raise ConfigError(f"the password file {path} is empty", hint="write the password into it")
        if mode & (stat.S_IRGRP | stat.S_IROTH):
            log.warning("password file %s is readable by other users; chmod 600 it", path)
        return value
    tried = " or ".join(
        part for part in (env and f"the environment variable {env}", file and f"the file {file}") if part
    )
    if env and not file:
        message = f"the environment variable {env} is not set"
    elif tried:
        message = f"no password found in {tried}"
    else:
        message = "no password source configured"
    raise ConfigError(
        message,
        hint="export the password in the environment variable, or name a file holding it with "
        "password_file; passwords are never read from config.toml",
    )
