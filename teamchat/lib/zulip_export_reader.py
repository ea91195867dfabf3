"""Reading a Zulip `manage.py export` (unpacked in a folder) for `teamchat import`.

The format's names and codes live in `zulip_export_format`; this module does the file I/O.
Facts from Zulip's zerver/lib/export.py and zerver/lib/import_realm.py: realm.json holds
every table but messages and attachments as {table: [row, ...]}; messages-NNNNNN.json hold
zerver_message and zerver_usermessage (flags as `flags_mask`, Zulip's bit order);
attachment.json holds zerver_attachment (with `messages`, a list of ids); uploads/, avatars/
and emoji/ hold the files, each folder listed by its records.json. Dates are epoch floats.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import msgspec

from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.export_archive import ExportFormatError, read_export_file

__all__ = ["ExportFormatError", "ExportReader", "Record", "TableData"]

Record = dict[str, object]
TableData = dict[str, list[Record]]

MESSAGE_FILE = re.compile(r"messages-[0-9]{6}\.json")


class ExportReader:
    """The files of a Zulip export unpacked in the folder `root` (see export_open)."""

    kind = "zulip"

    def __init__(self, root: Path) -> None:
        self.root = root
        if not (root / fmt.REALM_FILE).is_file():
            raise ExportFormatError(f"{root} has no realm.json: not a Zulip export")

    def _json(self, relative: str) -> object:
        try:
            return msgspec.json.decode(self._read(relative))
        except (OSError, msgspec.DecodeError) as exc:
            raise ExportFormatError(f"cannot read {relative}: {exc}") from None
        except RecursionError:
            raise ExportFormatError(f"cannot read {relative}: JSON nested too deeply") from None

    def _read(self, relative: str) -> bytes:
        return read_export_file(self.root, relative)

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
