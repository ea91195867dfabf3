"""Reading a Slack workspace export (unpacked in a folder) as the files of a Zulip export.

An `ExportSource` (see export_open): realm.json, messages-NNNNNN.json, attachment.json and
uploads/ are made on demand from users.json, channels.json, groups.json, dms.json,
mpims.json and the day files `<conversation>/<YYYY-MM-DD>.json`, so the Zulip import's loader
writes them. Two passes over the day files: the first finds the senders the export does not
describe (integration bots, people from other workspaces), who pinned what, and how many
messages there are; the second converts the messages, a chunk at a time, in time order
across conversations (so memory holds one day of messages, not the workspace).
Files: Slack's own export holds links only; exports made with files (`__uploads/<file id>/
<name>`, or `<conversation>/attachments/<file id>-<name>`) give uploads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import msgspec

from teamchat.lib import zulip_export_format as fmt
from teamchat.lib.export_archive import ExportFormatError, read_export_file
from teamchat.lib.slack_export_messages import MessageRows, is_message, pin_notice, ts_seconds
from teamchat.lib.slack_export_org import SlackOrg, new_realm_tables, realm_name
from teamchat.lib.zulip_export_reader import Record, TableData

SLACK_MARKER_FILES = ("users.json", "channels.json")
_DAY_FILE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\.json")
UPLOADS_FOLDER = "__uploads"


class SlackExport:
    """The Slack export in the folder `root`, seen as a Zulip export."""

    kind = "slack"

    def __init__(self, root: Path, *, host: str, now: int, export_name: str = "") -> None:
        self.root = root
        self.org = SlackOrg(host=host, now=now, name=realm_name(export_name or root.name))
        self.org.tables = new_realm_tables(self.org.name, now)
        self.org.add_users(self._list("users.json"))
        self.org.add_channels(self._list("channels.json"), private=False)
        self.org.add_channels(self._list("groups.json", optional=True), private=True)
        self.org.add_group_dms(self._list("mpims.json", optional=True))
        self.org.add_dms(self._list("dms.json", optional=True))
        self._days = self._day_files()
        pinners, count = self._scan()
        self.org.finish()
        self._rows = MessageRows(self.org, self.org.names(), self._find_upload, pinners)
        self._chunks = self._convert()
        self._files = [fmt.message_file_name(n + 1) for n in range(math.ceil(count / 1000))]
        self._served = 0

    # --- ExportSource -------------------------------------------------------------
    def tables(self, relative: str) -> TableData:
        if relative == fmt.REALM_FILE:
            return self.org.tables
        if relative == fmt.ATTACHMENT_FILE:
            return {fmt.ATTACHMENT_TABLE: self._rows.attachments}
        if relative in self._files:
            if relative != self._files[self._served]:
                raise ExportFormatError(f"{relative} read out of order")
            self._served += 1
            return next(self._chunks, {})
        return {}

    def message_files(self) -> list[str]:
        return list(self._files)

    def records(self, folder: str) -> list[Record]:
        return []  # avatars and custom emoji live on Slack's servers, not in the export

    def file_bytes(self, folder: str, relative: str) -> bytes | None:
        held = self._rows.upload_paths.get(relative) if folder == fmt.UPLOADS_DIR else None
        return None if held is None else read_export_file(self.root, held)

    # --- reading ----------------------------------------------------------------------
    def _json(self, relative: str) -> object:
        try:
            return msgspec.json.decode(read_export_file(self.root, relative))
        except (OSError, msgspec.DecodeError) as exc:
            raise ExportFormatError(f"cannot read {relative}: {exc}") from None
        except RecursionError:
            raise ExportFormatError(f"cannot read {relative}: JSON nested too deeply") from None

    def _list(self, relative: str, *, optional: bool = False) -> list[object]:
        if optional and not (self.root / relative).exists():
            return []
        data = self._json(relative)
        if not isinstance(data, list):
            raise ExportFormatError(f"{relative} is not a list")
        return data

    def _day_files(self) -> list[tuple[str, list[str]]]:
        """(day file name, conversation folders holding one) by date."""
        days: dict[str, list[str]] = {}
        for folder in self.org.conversations:
            path = self.root / folder
            if not path.is_dir():
                continue
            for child in path.iterdir():
                if _DAY_FILE.fullmatch(child.name):
                    days.setdefault(child.name, []).append(folder)
        return sorted(days.items())

    def _messages(self) -> Iterator[tuple[str, dict[str, object]]]:
        """(folder, message) of every day file, in time order across conversations."""
        for day, folders in self._days:
            batch: list[tuple[float, int, str, dict[str, object]]] = []
            for folder in folders:
                entries = self._json(f"{folder}/{day}")
                if not isinstance(entries, list):
                    raise ExportFormatError(f"{folder}/{day} is not a list of messages")
                for entry in entries:
                    if isinstance(entry, dict):
                        batch.append((ts_seconds(entry.get("ts")), len(batch), folder, entry))
            batch.sort(key=lambda item: (item[0], item[1]))
            for _, _, folder, entry in batch:
                yield folder, entry

    def _scan(self) -> tuple[dict[tuple[str, str], set[int]], int]:
        """The first pass: senders, pins and the number of messages."""
        pinners: dict[tuple[str, str], set[int]] = {}
        count = 0
        for folder, message in self._messages():
            notice = pin_notice(message)
            if notice is not None:
                pinners.setdefault((folder, notice[1]), set()).add(self.org.user_id(notice[0]))
            if not is_message(message):
                continue
            count += 1
            self.org.sender_id(message)
            info = message.get("pinned_info")
            for pin in info.values() if isinstance(info, dict) else ():
                by = pin.get("pinned_by") if isinstance(pin, dict) else None
                if isinstance(by, str) and by:
                    key = (folder, str(message.get("ts")))
                    pinners.setdefault(key, set()).add(self.org.user_id(by))
        return pinners, count

    def _convert(self) -> Iterator[TableData]:
        """The second pass: chunks of converted messages."""
        in_chunk = 0
        for folder, message in self._messages():
            if not is_message(message):
                continue
            self._rows.add(self.org.conversations[folder], message)
            in_chunk += 1
            if in_chunk == fmt.MESSAGES_PER_FILE:
                yield self._rows.chunk()
                in_chunk = 0
        if in_chunk:
            yield self._rows.chunk()

    def _find_upload(self, file_id: str, name: str, folder: str) -> str | None:
        """The export's copy of a file, if it holds one."""
        if not file_id or not name or "/" in name or "\\" in name or name in (".", ".."):
            return None
        if "/" in file_id or "\\" in file_id or file_id in (".", ".."):
            return None
        for relative in (
            f"{UPLOADS_FOLDER}/{file_id}/{name}",
            f"{folder}/attachments/{file_id}-{name}",
        ):
            path = self.root.joinpath(*PurePosixPath(relative).parts)
            if path.is_file() and not path.is_symlink():
                return relative
        return None
