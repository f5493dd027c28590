"""Where secrets come from (mail passwords, the forum's API key): an environment variable or a
file, never pbp.toml."""
from __future__ import annotations

import logging
import os
import stat
from collections.abc import Mapping

from pbp.errors import ConfigError

log = logging.getLogger(__name__)


def resolve_secret(
    env: str | None,
    file: str | os.PathLike | None,
    *,
    environ: Mapping[str, str] | None = None,
    what: str = "password",
    file_key: str = "password_file",
) -> str:
    """Return the secret from the environment variable named ``env``, else from ``file``.

    The variable wins when it is set and not empty. A file's trailing newline (what ``echo``
    and editors add) is stripped; nothing else is. Raises ``ConfigError`` naming what was
    tried when neither gives a non-empty secret; ``what`` and ``file_key`` name the secret
    and its config key in those messages ("API key", ``api_key_file``).
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
                f"cannot read the {what} file {path}: {exc.strerror or exc}",
                hint="check the path and that the daemon's user may read it",
            ) from exc
        value = value.rstrip("\r\n")
        if not value:
            raise ConfigError(f"the {what} file {path} is empty", hint=f"write the {what} into it")
        if mode & (stat.S_IRGRP | stat.S_IROTH):
            log.warning("%s file %s is readable by other users; chmod 600 it", what, path)
        return value
    tried = " or ".join(
        part for part in (env and f"the environment variable {env}", file and f"the file {file}") if part
    )
    if env and not file:
        message = f"the environment variable {env} is not set"
    elif tried:
        message = f"no {what} found in {tried}"
    else:
        message = f"no {what} source configured"
    raise ConfigError(
        message,
        hint=f"export the {what} in the environment variable, or name a file holding it with "
        f"{file_key}; {what}s are never read from pbp.toml",
    )
