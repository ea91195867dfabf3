"""Unpacking an export for `teamchat import` (a Zulip .tar.gz, a Slack .zip) safely.

Shared by every source format: plain files and folders only (no links, devices or paths
leaving the folder), bounded in count and size, checked against the free disk space before
anything is written; a refused or damaged archive is one line of error.
"""

from __future__ import annotations

import lzma
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

# Bounds on what an export may make us unpack or read (a Zulip export of a large
# organization is tens of GiB in a few hundred thousand files; a bomb is far more).
MAX_ARCHIVE_MEMBERS = 2_000_000
MAX_UNPACKED_BYTES = 200 * 1024**3
MAX_FILE_BYTES = 2 * 1024**3
# Space left free on the disk we unpack to.
UNPACK_HEADROOM_BYTES = 256 * 1024**2
# Zip's "file name is UTF-8" flag; Slack's exports leave it unset on UTF-8 names.
_ZIP_UTF8_FLAG = 0x800
_COPY_CHUNK_BYTES = 1024 * 1024


class ExportFormatError(Exception):
    """The path is not an export we can read (the message says what is wrong)."""


def refuse_links(root: Path) -> None:
    """Refuse an export holding a symbolic link anywhere (it could point out of it)."""
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(folder, name)
            if path.is_symlink():
                raise ExportFormatError(
                    f"refusing the export: {path.relative_to(root)} is a symbolic link"
                    " (an export holds plain files only)"
                )


def unpack(archive: Path, into: Path) -> None:
    """Unpack a .tar(.gz/.xz/.bz2) or .zip `archive` into the empty folder `into`."""
    try:
        if zipfile.is_zipfile(archive):
            _unpack_zip(archive, into)
            return
        with tarfile.open(archive, "r:*") as tar:
            _check_tar_members(tar, archive, into)
            tar.extractall(into, filter="data")
    except (tarfile.TarError, zipfile.BadZipFile, OSError, EOFError, zlib.error,
            lzma.LZMAError, NotImplementedError) as exc:  # fmt: skip
        raise ExportFormatError(f"cannot unpack {archive}: {exc or type(exc).__name__}") from None


def _check_totals(archive: Path, count: int, total: int) -> None:
    if count > MAX_ARCHIVE_MEMBERS:
        raise ExportFormatError(f"refusing {archive}: more than {MAX_ARCHIVE_MEMBERS} files")
    if total > MAX_UNPACKED_BYTES:
        raise ExportFormatError(
            f"refusing {archive}: it unpacks to more than {MAX_UNPACKED_BYTES} bytes"
        )


def _check_free_space(archive: Path, into: Path, total: int) -> None:
    free = shutil.disk_usage(into).free - UNPACK_HEADROOM_BYTES
    if total > free:
        raise ExportFormatError(
            f"cannot unpack {archive}: it needs {total} bytes, {max(free, 0)} are free in {into}"
        )


def _check_tar_members(tar: tarfile.TarFile, tarball: Path, into: Path) -> None:
    """Count and size the members before anything is written: plain files and folders only,
    within MAX_ARCHIVE_MEMBERS, MAX_UNPACKED_BYTES and the free space of the disk."""
    total = 0
    for count, member in enumerate(tar, 1):
        total += member.size
        if not (member.isfile() or member.isdir()):
            raise ExportFormatError(
                f"refusing {tarball}: {member.name} is a link or a special file"
                " (an export holds plain files only)"
            )
        _check_totals(tarball, count, total)
    _check_free_space(tarball, into, total)


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The member's name, UTF-8 even when the archive forgot to say so (Slack's do)."""
    if info.flag_bits & _ZIP_UTF8_FLAG:
        return info.filename
    try:
        return info.filename.encode("cp437").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return info.filename


def _zip_members(
    archive: zipfile.ZipFile, path: Path, into: Path
) -> list[tuple[str, zipfile.ZipInfo]]:
    """(relative path, member) of every entry, checked as `_check_tar_members` does, and
    refusing names that are absolute or climb out with `..`."""
    members: list[tuple[str, zipfile.ZipInfo]] = []
    total = 0
    for count, info in enumerate(archive.infolist(), 1):
        name = _zip_name(info)
        parts = PurePosixPath(name.replace("\\", "/")).parts
        mode = info.external_attr >> 16
        kind = stat.S_IFMT(mode)
        if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
            raise ExportFormatError(
                f"refusing {path}: {name} is a link or a special file"
                " (an export holds plain files only)"
            )
        if not parts or name.startswith(("/", "\\")) or ".." in parts or ":" in parts[0]:
            raise ExportFormatError(f"refusing {path}: {name} is outside the archive's folder")
        total += info.file_size
        _check_totals(path, count, total)
        members.append(("/".join(parts), info))
    _check_free_space(path, into, total)
    return members


def _unpack_zip(path: Path, into: Path) -> None:
    with zipfile.ZipFile(path) as archive:
        members = _zip_members(archive, path, into)
        for relative, info in members:
            target = into.joinpath(*relative.split("/"))
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            # O_EXCL | O_NOFOLLOW: a duplicate name cannot overwrite or write through a link.
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            # The declared size bounds what zipfile gives back (it stops at file_size).
            with archive.open(info) as source, os.fdopen(fd, "wb") as sink:
                shutil.copyfileobj(source, sink, _COPY_CHUNK_BYTES)


def read_export_file(root: Path, relative: str) -> bytes:
    """A regular file inside the export at `root`, never through a symbolic link, and no
    larger than MAX_FILE_BYTES."""
    path = root / relative
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ExportFormatError(f"{relative} is not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise ExportFormatError(
                f"{relative} is {info.st_size} bytes, more than the {MAX_FILE_BYTES}"
                " a file of an export may be"
            )
        return handle.read()
