"""Reading a Zulip `manage.py export` (its directory or .tar.gz) for `teamchat import`.

The format's names and codes live in `zulip_export_format`; this module does the file I/O.
Facts from Zulip's zerver/lib/export.py and zerver/lib/import_realm.py: realm.json holds
every table but messages and attachments as {table: [row, ...]}; messages-NNNNNN.json hold
zerver_message and zerver_usermessage (flags as `flags_mask`, Zulip's bit order);
attachment.json holds zerver_attachment (with `messages`, a list of ids); uploads/, avatars/
and emoji/ hold the files, each folder listed by its records.json. Dates are epoch floats.
"""

from __future__ import annotations

import re
import shutil
import tarfile
import tempfile
from pathlib import Path
from types import TracebackType

import msgspec

from teamchat.lib import zulip_export_format as fmt

Record = dict[str, object]
TableData = dict[str, list[Record]]

MESSAGE_FILE = re.compile(r"messages-\d{6}\.json")


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
        elif not self.source.is_dir():
            raise ExportFormatError(f"{self.source} does not exist")
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
        path = self.root / relative
        try:
            return msgspec.json.decode(path.read_bytes())
        except (OSError, msgspec.DecodeError) as exc:
            raise ExportFormatError(f"cannot read {relative}: {exc}") from None

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
        base = (self.root / folder).resolve()
        path = (base / relative).resolve()
        if not path.is_relative_to(base) or not path.is_file():
            return None
        return path.read_bytes()


def _unpack(tarball: Path, into: Path) -> Path:
    """Unpack `tarball` safely; return the folder holding realm.json."""
    try:
        with tarfile.open(tarball, "r:*") as tar:
            tar.extractall(into, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise ExportFormatError(f"cannot unpack {tarball}: {exc}") from None
    if (into / fmt.REALM_FILE).exists():
        return into
    for child in into.iterdir():
        if (child / fmt.REALM_FILE).exists():
            return child
    raise ExportFormatError(f"{tarball} holds no realm.json: not a Zulip export")
