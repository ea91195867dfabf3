"""Opening what `teamchat import PATH` names: a folder or an archive, from Zulip or Slack.

Every source format reads into the same intermediate records, the tables of a Zulip export
(`ExportSource`), which one bulk loader writes (actions/ops/zulip_import): a new format is a
reader, not a second loader. Archives are unpacked into a temporary folder by
`export_archive` (same limits for every format) and the folder is removed on exit.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from types import TracebackType
from typing import Protocol

from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.export_archive import ExportFormatError, refuse_links, unpack
from teamchat.lib.slack_export import SLACK_MARKER_FILES, SlackExport
from teamchat.lib.zulip_export_reader import ExportReader, Record, TableData


class ExportSource(Protocol):
    """An export seen as Zulip's files (realm.json, messages-NNNNNN.json, attachment.json,
    uploads/, avatars/, emoji/), whatever it was made by."""

    kind: str

    def tables(self, relative: str) -> TableData: ...

    def message_files(self) -> list[str]: ...

    def records(self, folder: str) -> list[Record]: ...

    def file_bytes(self, folder: str, relative: str) -> bytes | None: ...


class OpenedExport:
    """`with OpenedExport(path, host=..., now=...) as source:` an ExportSource."""

    def __init__(self, path: Path, *, host: str, now: int) -> None:
        self.path, self.host, self.now = path, host, now
        self._tmp: str | None = None

    def __enter__(self) -> ExportSource:
        if self.path.is_file():
            self._tmp = tempfile.mkdtemp(prefix="teamchat-import-")
            unpack(self.path, Path(self._tmp))
            folder = Path(self._tmp)
        elif self.path.is_dir():
            folder = self.path.resolve()  # the operator's own link to it is fine
        else:
            raise ExportFormatError(f"{self.path} does not exist")
        refuse_links(folder)
        return self._source(folder)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def _source(self, folder: str | Path) -> ExportSource:
        """The export in `folder` or in its only subfolder (archives often add one)."""
        folder = Path(folder)
        candidates = [folder, *sorted(p for p in folder.iterdir() if p.is_dir())]
        for root in candidates:
            if (root / fmt.REALM_FILE).is_file():
                return ExportReader(root)
            if all((root / name).is_file() for name in SLACK_MARKER_FILES):
                return SlackExport(root, host=self.host, now=self.now, export_name=self.path.name)
        raise ExportFormatError(
            f"{self.path} is neither a Zulip export (no realm.json) nor a Slack export"
            " (no users.json and channels.json)"
        )
