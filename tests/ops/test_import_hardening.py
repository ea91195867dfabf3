"""`teamchat import` of a hostile export: its HTML never reaches a client unsanitized, it
cannot make us read outside the export, archives are bounded, and whatever goes wrong is one
line of error with no database left behind."""

from __future__ import annotations

import json
import shutil
import tarfile
from pathlib import Path

from tests.support.api import Api, assert_success
from tests.support.server import ServerProcess, cli

FIXTURE = Path(__file__).parent.parent / "fixtures" / "zulip_export"
HAMLET = "hamlet@zulip.example"
PASSWORD = "Verona-balcony-1597"
SCRIPT = '<img src=x onerror="alert(1)"><script>alert(2)</script>'


def export_copy(tmp_path: Path) -> Path:
    export = tmp_path / "export"
    shutil.copytree(FIXTURE, export)
    return export


def edit_json(path: Path, change: object) -> None:
    data = json.loads(path.read_text())
    change(data)  # type: ignore[operator]
    path.write_text(json.dumps(data))


def refused(db: Path, source: Path, message: str) -> str:
    result = cli(db, "import", str(source), check=False)
    text = " ".join(result.stderr.split())
    assert result.returncode == 1, result.stdout + result.stderr
    assert message in text, text
    assert "Traceback" not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) <= 3, result.stderr  # one (wrapped) line
    leftovers = [p.name for p in db.parent.iterdir() if p.name.startswith(db.name)]
    assert leftovers == [], leftovers
    return text


def test_html_in_an_export_is_rendered_again_or_sanitized(tmp_path: Path) -> None:
    export = export_copy(tmp_path)

    def poison_realm(data: dict[str, list[dict[str, object]]]) -> None:
        for row in data["zerver_stream"] + data["zerver_channelfolder"]:
            row["rendered_description"] = SCRIPT
        for row in data["zerver_customprofilefieldvalue"]:
            row["rendered_value"] = SCRIPT

    def poison_history(data: dict[str, list[dict[str, object]]]) -> None:
        for message in data["zerver_message"]:
            if message["id"] == 101:
                history = json.loads(str(message["edit_history"]))
                history[1]["prev_rendered_content"] = SCRIPT
                message["edit_history"] = json.dumps(history)

    edit_json(export / "realm.json", poison_realm)
    edit_json(export / "messages-000001.json", poison_history)
    proc = ServerProcess(tmp_path / "srv")
    proc.directory.mkdir()
    cli(proc.db, "import", str(export))
    cli(proc.db, "admin", "set-password", HAMLET, "--password", PASSWORD)
    proc.start()
    try:
        with Api(proc.url) as anonymous:
            key = assert_success(
                anonymous.post("/fetch_api_key", username=HAMLET, password=PASSWORD)
            )["api_key"]
        with Api(proc.url, HAMLET, str(key)) as hamlet:
            state = hamlet.ok("POST", "/register", fetch_event_types=json.dumps(
                ["subscription", "channel_folders", "realm_user"]))  # fmt: skip
            seen = json.dumps(
                [
                    hamlet.ok("GET", "/streams")["streams"],
                    state["channel_folders"],
                    state["subscriptions"],
                    hamlet.ok("GET", "/users/11", include_custom_profile_fields=True),
                    hamlet.ok("GET", "/messages/101/history"),
                ]
            )
            streams = {s["name"]: s for s in hamlet.ok("GET", "/streams")["streams"]}
            history = hamlet.ok("GET", "/messages/101/history")["message_history"]
    finally:
        proc.stop()
    assert "onerror" not in seen and "<script" not in seen and "alert(" not in seen
    assert streams["Denmark"]["rendered_description"] == "<p>About Denmark</p>"
    assert state["channel_folders"][0]["rendered_description"] == "<p>Realms of men</p>"
    assert history[1]["prev_rendered_content"].startswith("<img src=")  # kept, defused


def test_a_symlinked_uploads_folder_is_refused(tmp_path: Path) -> None:
    export = export_copy(tmp_path)
    outside = tmp_path / "outside"
    shutil.move(export / "uploads", outside)
    (export / "uploads").symlink_to(outside)
    refused(tmp_path / "new.db", export, "uploads is a symbolic link")


def test_a_file_linking_outside_the_export_is_refused(tmp_path: Path) -> None:
    export = export_copy(tmp_path)
    upload = export / "uploads" / "2" / "ab" / "xyzsecret" / "notes.txt"
    upload.unlink()
    upload.symlink_to("/etc/passwd")
    refused(tmp_path / "new.db", export, "notes.txt is a symbolic link")


def test_a_tarball_with_a_link_is_refused(tmp_path: Path) -> None:
    export = export_copy(tmp_path)
    (export / "uploads" / "passwd").symlink_to("/etc/passwd")
    tarball = tmp_path / "export.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(export, arcname="zulip-export")
    refused(tmp_path / "new.db", tarball, "is a link or a special file")


def test_a_truncated_tarball_is_one_line(tmp_path: Path) -> None:
    tarball = tmp_path / "export.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(FIXTURE, arcname="zulip-export")
    data = tarball.read_bytes()
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(data[: len(data) * 2 // 3])
    refused(tmp_path / "new.db", truncated, "cannot unpack")


def test_a_tarball_bigger_than_the_disk_is_refused_before_unpacking(tmp_path: Path) -> None:
    tarball = tmp_path / "bomb.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        info = tarfile.TarInfo("zulip-export/huge.bin")
        info.size = 2**45  # 32 TiB of zeros: a few MB compressed, had we written it all
        tar.addfile(info)  # a header only: the archive ends early, as a bomb's check would see
    text = refused(tmp_path / "new.db", tarball, "tarball")
    assert "unpacks to more than" in text or "cannot unpack" in text


def with_realm_text(tmp_path: Path, old: str, new: str) -> Path:
    export = export_copy(tmp_path)
    text = (export / "realm.json").read_text()
    assert old in text
    (export / "realm.json").write_text(text.replace(old, new, 1))
    return export


def test_an_id_beyond_64_bits_is_one_line(tmp_path: Path) -> None:
    export = export_copy(tmp_path)
    edit_json(export / "realm.json", lambda d: d["zerver_stream"][0].update(id=2**70))
    refused(tmp_path / "new.db", export, f"the number {2**70} in the export is out of range")


def test_a_number_beyond_floats_is_one_line(tmp_path: Path) -> None:
    export = with_realm_text(tmp_path, '"date_created": 1700000120.0', '"date_created": 1e400')
    refused(tmp_path / "new.db", export, "Number out of range")


def test_deeply_nested_json_is_one_line(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    export = with_realm_text(tmp_path, '"zerver_alertword"', f'"x": {deep}, "zerver_alertword"')
    refused(tmp_path / "new.db", export, "nested too deeply")
