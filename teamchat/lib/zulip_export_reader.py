"""Reading a Zulip `manage.py export` (its directory or .tar.gz) for `teamchat import`.

The format's names and codes live in `zulip_export_format`; this module does the file I/O.
Facts from Zulip's zerver/lib/export.py and zerver/lib/import_realm.py: realm.json holds
every table but messages and attachments as {table: [row, ...]}; messages-NNNNNN.json hold
zerver_message and zerver_usermessage (flags as `flags_mask`, Zulip's bit order);
attachment.json holds zerver_attachment (with `messages`, a list of ids); uploads/, avatars/
and emoji/ hold the files, each folder listed by its records.json. Dates are epoch floats.
"""

from __future__ import annotations

import lzma
import os
import re
import shutil
import stat
import tarfile
import tempfile
import zlib
from pathlib import Path, PurePosixPath
from types import TracebackType

import msgspec

from teamchat.lib import zulip_export_format as fmt

Record = dict[str, object]
TableData = dict[str, list[Record]]

MESSAGE_FILE = re.compile(r"messages-[0-9]{6}\.json")
# Bounds on what an export may make us unpack or read (a Zulip export of a large
# organization is tens of GiB in a few hundred thousand files; a bomb is far more).
MAX_ARCHIVE_MEMBERS = 2_000_000
MAX_UNPACKED_BYTES = 200 * 1024**3
MAX_FILE_BYTES = 2 * 1024**3
# Space left free on the disk we unpack to.
UNPACK_HEADROOM_BYTES = 256 * 1024**2


class ExportFormatError(Exception):
    """The path is not a Zulip export we can read (the message says what is wrong)."""


class ExportReader:
    """An export's files: a directory, or a .tar.gz unpacked into a temporary one.

    Use as a context manager; the temporary directory is removed on exit.
    """

    def __init__(self, path: Path) -> None:
        self.source = path
        self._tmp: str | None = None
        self.root = path

    def __enter__(self) -> ExportReader:
        if self.source.is_file():
            self._tmp = tempfile.mkdtemp(prefix="teamchat-import-")
            self.root = _unpack(self.source, Path(self._tmp))
        elif self.source.is_dir():
            self.root = self.source.resolve()  # the operator's own link to it is fine
        else:
            raise ExportFormatError(f"{self.source} does not exist")
        _refuse_links(self.root)
        if not (self.root / fmt.REALM_FILE).is_file():
            raise ExportFormatError(f"{self.source} has no realm.json: not a Zulip export")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def _json(self, relative: str) -> object:
        try:
            return msgspec.json.decode(self._read(relative))
        except (OSError, msgspec.DecodeError) as exc:
            raise ExportFormatError(f"cannot read {relative}: {exc}") from None
        except RecursionError:
            raise ExportFormatError(f"cannot read {relative}: JSON nested too deeply") from None

    def _read(self, relative: str) -> bytes:
        """A regular file inside the export, never through a symbolic link."""
        path = self.root / relative
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

    def tables(self, relative: str) -> TableData:
        """A {table: rows} file such as realm.json; a missing optional file is empty."""
        if relative != fmt.REALM_FILE and not (self.root / relative).exists():
            return {}
        data = self._json(relative)
        if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
            raise ExportFormatError(f"{relative} is not a {{table: [rows]}} object")
        return data

    def message_files(self) -> list[str]:
        """The messages-NNNNNN.json files in order."""
        return sorted(p.name for p in self.root.iterdir() if MESSAGE_FILE.fullmatch(p.name))

    def records(self, folder: str) -> list[Record]:
        """The records.json of uploads/, avatars/ or emoji/ (empty when absent)."""
        if not (self.root / folder / fmt.RECORDS_FILE).exists():
            return []
        data = self._json(f"{folder}/{fmt.RECORDS_FILE}")
        if not isinstance(data, list):
            raise ExportFormatError(f"{folder}/records.json is not a list")
        return data

    def file_bytes(self, folder: str, relative: str) -> bytes | None:
        """A file under `folder`, or None when absent; never outside the export."""
        parts = PurePosixPath(relative).parts
        if not parts or relative.startswith("/") or ".." in parts:
            return None
        path = self.root.joinpath(folder, *parts)
        if not path.is_file():
            return None
        try:
            return self._read(f"{folder}/{'/'.join(parts)}")
        except OSError as exc:
            raise ExportFormatError(f"cannot read {folder}/{relative}: {exc}") from None


def _refuse_links(root: Path) -> None:
    """Refuse an export holding a symbolic link anywhere (it could point out of it)."""
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = Path(folder, name)
            if path.is_symlink():
                raise ExportFormatError(
                    f"refusing the export: {path.relative_to(root)} is a symbolic link"
                    " (an export holds plain files only)"
                )


def _check_members(tar: tarfile.TarFile, tarball: Path, into: Path) -> None:
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
        if count > MAX_ARCHIVE_MEMBERS:
            raise ExportFormatError(f"refusing {tarball}: more than {MAX_ARCHIVE_MEMBERS} files")
        if total > MAX_UNPACKED_BYTES:
            raise ExportFormatError(
                f"refusing {tarball}: it unpacks to more than {MAX_UNPACKED_BYTES} bytes"
            )
    free = shutil.disk_usage(into).free - UNPACK_HEADROOM_BYTES
    if total > free:
        raise ExportFormatError(
            f"cannot unpack {tarball}: it needs {total} bytes, {max(free, 0)} are free in {into}"
        )


def _unpack(tarball: Path, into: Path) -> Path:
    """Unpack `tarball` safely; return the folder holding realm.json."""
    try:
        with tarfile.open(tarball, "r:*") as tar:
            _check_members(tar, tarball, into)
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise ExportFormatError(f"cannot unpack {tarball}: {exc or type(exc).__name__}") from None
    if (into / fmt.REALM_FILE).exists():
        return into
    for child in into.iterdir():
        if (child / fmt.REALM_FILE).exists():
            return child
    raise ExportFormatError(f"{tarball} holds no realm.json: not a Zulip export")
