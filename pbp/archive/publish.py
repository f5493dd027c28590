"""The daemon's copy of the archive (``[archive]`` in the config, docs/archive.md).

Every ``every_minutes`` the daemon rewrites the site of each campaign that had posts since
the site was last written (the newest ``ArchivePost`` id written is kept per campaign and
folder), into ``dir/SLUG`` (and the GM's into ``gm_dir/SLUG``). A site is written into a
temporary folder beside its place and swapped in whole, so a web server serving the folder
never reads a half-written site: with Linux's ``renameat2(RENAME_EXCHANGE)`` the swap is one
step; elsewhere the old folder is renamed aside and the new one renamed in (a moment with no
folder, never a mixed one). A campaign whose site cannot be written is logged once with a
hint and the others go on.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import logging
import os
import shutil
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pbp.archive.site import write_site
from pbp.config import ArchiveConfig
from pbp.errors import ConfigError
from pbp.leases import shared
from pbp.store import models as m

log = logging.getLogger("pbp.archive")

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2``); False where that is not available."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def swap_in(new: Path, target: Path) -> None:
    """Put the complete folder ``new`` at ``target`` (beside it, same file system), replacing
    what was there; the old folder is removed once it is out of the way."""
    if not target.exists():
        os.rename(new, target)
        return
    if _exchange(new, target):
        shutil.rmtree(new)          # ``new`` holds the old site now
        return
    old = target.with_name(f".{target.name}.old-{uuid.uuid4().hex[:8]}")
    os.rename(target, old)
    os.rename(new, target)
    shutil.rmtree(old)


def write_swapped(campaign: m.Campaign, target: Path, *, gm: bool) -> None:
    """The campaign's site written beside ``target`` and swapped in whole."""
    if target.exists() and not target.is_dir():
        raise OSError(f"{target} is a file, and the archive needs a folder there")
    target.parent.mkdir(parents=True, exist_ok=True)
    temp = target.with_name(f".{target.name}.new-{uuid.uuid4().hex[:8]}")
    try:
        write_site(campaign, temp, gm=gm)
        temp.chmod(0o755)           # a web server's user reads it, as it would a folder made by hand
        swap_in(temp, target)
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)


def check_folder(folder: Path, key: str) -> str:
    """``pbp check-config``: the folder is made if need be and a file can be written in it,
    as the daemon will."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".pbp-check-{uuid.uuid4().hex[:8]}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(f"{folder}: the daemon cannot write the archive there ({exc.strerror or exc})",
                          hint=f"make the folder writable by the daemon's user, or name another: "
                               f'[archive] {key} = "/srv/pbp-archive"') from None
    sites = sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    return "writable" + (f" ({len(sites)} campaign sites in it)" if sites else "")


@contextmanager
def snapshot():
    """One read-only view of the database for a whole site, so its pages agree with each
    other and with the post id recorded for it, whatever is applied meanwhile: SQLite's WAL
    gives a reading transaction its snapshot without holding up the writer; PostgreSQL needs
    REPEATABLE READ for it."""
    with m.db.atomic():
        if shared():
            m.db.execute_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        yield


@dataclass
class Publisher:
    """What the daemon has written: per (folder, campaign), the newest post id in it."""

    settings: ArchiveConfig
    written: dict[tuple[Path, int], int] = field(default_factory=dict)
    failing: set[tuple[Path, int]] = field(default_factory=set)

    def folders(self) -> list[tuple[Path, bool]]:
        out = [(self.settings.dir, False)]
        if self.settings.gm_dir is not None:
            out.append((self.settings.gm_dir, True))
        return out

    def run(self, stopping=None) -> int:
        """Rewrite every site that is behind; returns how many were written."""
        done = 0
        for campaign in list(m.Campaign.select().order_by(m.Campaign.id)):
            if stopping is not None and stopping.is_set():
                break
            with snapshot():
                done += self._campaign(campaign)
        return done

    def _campaign(self, campaign: m.Campaign) -> int:
        done = 0
        newest = (m.ArchivePost.select(m.ArchivePost.id).where(m.ArchivePost.campaign == campaign)
                  .order_by(m.ArchivePost.id.desc()).scalar()) or 0
        for folder, gm in self.folders():
            key = (folder, campaign.id)
            target = folder / campaign.slug
            if self.written.get(key) == newest and target.is_dir():
                continue
            try:
                write_swapped(campaign, target, gm=gm)
            except Exception as exc:   # this campaign's site alone; the next round tries again
                if key not in self.failing:
                    self.failing.add(key)
                    log.warning("archive of %s not written to %s: %s (hint: the folder must be writable by "
                                "the daemon's user, on a disk with room; [archive] in the config names it; "
                                "tried again every %g minutes, logged again only once it worked)",
                                campaign.slug, target, exc, self.settings.every_minutes)
                continue
            if key in self.failing:
                self.failing.discard(key)
                log.info("archive of %s written to %s again", campaign.slug, target)
            self.written[key] = newest
            done += 1
        return done
