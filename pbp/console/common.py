"""What the ``pbp`` commands share: exit statuses, the configuration and database opened,
the names and dice an operator types, posts read from files, JSON printed."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from pbp.config import DEFAULT_CONFIG_NAME, Config, load_config
from pbp.errors import PbpError
from pbp.textsafety import shorten


EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BAD_INPUT = 0, 1, 2, 3
"""Exit statuses: done; a failure (a server, the database, a check, a bug); the command line
itself is wrong (argparse's own 2); the input was refused (a sheet file, a post, a value,
a name, a path): a script can tell "fix what you gave" from "try again later"."""

EXIT_CODES = """exit status:
  0  done
  1  failed: a server, the database or a check did not work (the error says which)
  2  usage: an option or argument pbp does not take (see pbp COMMAND --help)
  3  bad input: a sheet file, a post, a value or a name was refused; nothing changed"""




def config_path(args) -> Path:
    return Path(args.config or os.environ.get("PBP_CONFIG") or DEFAULT_CONFIG_NAME)


def open_config(args) -> Config:
    from pbp.store.db import open_database

    config = load_config(config_path(args))
    open_database(config.database_url)
    return config


def system_name(word: str) -> str:
    """A system named by name or alias (``dfc``), as its registered name; an unknown word is
    left for argparse's choices to refuse with the list."""
    from pbp.rules.systems import UnknownSystem, get_system

    try:
        return get_system(word).name
    except UnknownSystem:
        return word


#: How --dice is written (README, "Fixed dice").
DICE_FORMAT = ('one group of faces per throw, groups separated by commas, each with exactly the dice the roll '
               'throws: Fate faces "0++-" (4dF), numbered faces separated by spaces "8 9 3 10 1 5" (6d10); '
               'e.g. --dice "0++-,+0-0" or --dice "8 9 3 10 1 5,2 7"')


def parse_dice(spec: str | None):
    from pbp.rules.dice import FixedDice, RandomDice

    where = "--dice" if spec is not None else "PBP_DICE"
    spec = spec if spec is not None else os.environ.get("PBP_DICE")
    if not spec:
        return RandomDice()
    try:
        return FixedDice(spec, announce=where)
    except ValueError as exc:
        raise PbpError(f"{where} {shorten(spec)!r}: {exc}", hint=DICE_FORMAT) from None


def read_posts(paths: list[str]) -> list[tuple[str, bytes]]:
    """Every message file named, read before any is processed: a missing, unreadable or
    directory path stops the run with one line each, before anything changes."""
    read, problems = [], []
    for path in paths:
        if path == "-":
            read.append((path, sys.stdin.buffer.read()))
            continue
        try:
            read.append((path, Path(path).read_bytes()))
        except IsADirectoryError:
            problems.append(f"{path} is a directory; give the message files in it, e.g. {path.rstrip('/')}/*.eml")
        except OSError as exc:
            problems.append(f"cannot read {path}: {exc.strerror or exc}")
    if problems:
        raise PbpError("; ".join(problems), hint="pbp process takes saved mails (.eml files), or - for standard input")
    return read


def print_json(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False, default=str))
