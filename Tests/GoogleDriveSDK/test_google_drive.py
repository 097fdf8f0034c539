"""Google's official Python client (`google-api-python-client`, static discovery), a client nobody here wrote,
against `ferry dev-server`'s Drive v3 emulation over TLS.

Run by scripts/sdk-test.sh (which starts the server); see conftest.py for the fixtures.
"""

import hashlib
import io
import os
import random
import tempfile

import google.auth.exceptions
import google.auth.transport.requests
import pytest
from googleapiclient.errors import HttpError
from googleapiclient.http import MediaFileUpload, MediaIoBaseDownload, MediaIoBaseUpload

from conftest import authorized_http, credentials

FOLDER = "application/vnd.google-apps.folder"
FIELDS = "id,name,mimeType,parents,size,md5Checksum,sha256Checksum,modifiedTime,headRevisionId"


def folder(drive, name, parent="root"):
    return drive.files().create(body={"name": name, "mimeType": FOLDER, "parents": [parent]}, fields="id").execute()["id"]


def download(drive, file_id, chunksize=100 * 1024):
    buffer = io.BytesIO()
    downloader = MediaIoBaseDownload(buffer, drive.files().get_media(fileId=file_id), chunksize=chunksize)
    done = False
    while not done:
        _, done = downloader.next_chunk()
    return buffer.getvalue()


def test_create_folder_and_list_pages(drive):
    parent = folder(drive, "Albums")
    for index in range(5):
        folder(drive, f"album-{index}", parent)
    names, token, pages = [], None, 0
    while True:
        page = drive.files().list(
            q=f"'{parent}' in parents and mimeType = '{FOLDER}' and trashed = false", pageSize=2, pageToken=token,
            fields="nextPageToken,files(id,name)").execute()
        names += [item["name"] for item in page["files"]]
        pages += 1
        token = page.get("nextPageToken")
        if not token:
            break
    assert names == [f"album-{index}" for index in range(5)]
    assert pages == 3


def test_multipart_upload_keeps_modified_time_and_checksums(drive):
    data = random.Random(3).randbytes(300_000)
    media = MediaIoBaseUpload(io.BytesIO(data), mimetype="application/octet-stream", resumable=False)
    created = drive.files().create(
        body={"name": "Größe 😀.bin", "parents": ["root"], "modifiedTime": "2024-02-03T04:05:06.000Z"}, media_body=media,
        fields=FIELDS).execute()
    assert created["name"] == "Größe 😀.bin"
    assert int(created["size"]) == len(data)
    assert created["md5Checksum"] == hashlib.md5(data).hexdigest()
    assert created["sha256Checksum"] == hashlib.sha256(data).hexdigest()
    assert created["modifiedTime"] == "2024-02-03T04:05:06.000Z"
    assert download(drive, created["id"]) == data
    assert drive.files().get_media(fileId=created["id"]).execute() == data


def test_resumable_upload_in_chunks(drive, server):
    data = random.Random(4).randbytes(5 * 256 * 1024 + 777)
    with tempfile.NamedTemporaryFile(delete=False) as handle:
        handle.write(data)
    try:
        media = MediaFileUpload(handle.name, mimetype="application/octet-stream", chunksize=2 * 256 * 1024, resumable=True)
        request = drive.files().create(body={"name": "video.mov"}, media_body=media, fields=FIELDS)
        response, progress = None, []
        while response is None:
            status, response = request.next_chunk()
            if status:
                progress.append(status.resumable_progress)
    finally:
        os.unlink(handle.name)
    assert progress == [2 * 256 * 1024, 4 * 256 * 1024]
    assert response["md5Checksum"] == hashlib.md5(data).hexdigest()
    assert download(drive, response["id"], chunksize=1024 * 1024) == data
    starts = [offsets for offsets in server.drive_stats()["chunk_starts_per_session"].values() if offsets[-1] == 4 * 256 * 1024]
    assert [0, 2 * 256 * 1024, 4 * 256 * 1024] in starts


def test_update_stores_a_new_revision_of_the_same_file(drive):
    first = drive.files().create(
        body={"name": "notes.txt"}, media_body=MediaIoBaseUpload(io.BytesIO(b"one"), mimetype="text/plain"), fields=FIELDS).execute()
    newer = random.Random(5).randbytes(600_000)
    media = MediaIoBaseUpload(io.BytesIO(newer), mimetype="text/plain", chunksize=256 * 1024, resumable=True)
    updated = drive.files().update(fileId=first["id"], body={"name": "notes.txt"}, media_body=media, fields=FIELDS).execute()
    assert updated["id"] == first["id"]
    assert updated["headRevisionId"] != first["headRevisionId"]
    assert int(updated["size"]) == len(newer)
    assert download(drive, first["id"]) == newer


def test_copy_and_delete(drive):
    data = b"copied on the server"
    original = drive.files().create(
        body={"name": "a.txt"}, media_body=MediaIoBaseUpload(io.BytesIO(data), mimetype="text/plain"), fields="id").execute()
    target = folder(drive, "Copies")
    copy = drive.files().copy(fileId=original["id"], body={"name": "b.txt", "parents": [target]}, fields=FIELDS).execute()
    assert copy["parents"] == [target] and copy["md5Checksum"] == hashlib.md5(data).hexdigest()
    drive.files().delete(fileId=original["id"]).execute()
    with pytest.raises(HttpError) as failure:
        drive.files().get(fileId=original["id"]).execute()
    assert failure.value.resp.status == 404
    assert download(drive, copy["id"]) == data


def test_export_google_docs(drive):
    doc = drive.files().create(body={"name": "Plan", "mimeType": "application/vnd.google-apps.document"}, fields="id").execute()
    text = drive.files().export(fileId=doc["id"], mimeType="text/plain").execute()
    assert b"Plan" in text
    with pytest.raises(HttpError) as failure:
        drive.files().get_media(fileId=doc["id"]).execute()
    assert failure.value.resp.status == 403 and failure.value.error_details[0]["reason"] == "fileNotDownloadable"


def test_hostile_names_in_queries(drive):
    parent = folder(drive, "Hostile")
    name = "it's \\ x' or name contains '"
    drive.files().create(body={"name": name, "parents": [parent]}, media_body=MediaIoBaseUpload(io.BytesIO(b"x"), mimetype="text/plain")).execute()
    drive.files().create(body={"name": "other", "parents": [parent]}, media_body=MediaIoBaseUpload(io.BytesIO(b"y"), mimetype="text/plain")).execute()
    quoted = name.replace("\\", "\\\\").replace("'", "\\'")
    found = drive.files().list(q=f"name = '{quoted}' and '{parent}' in parents").execute()["files"]
    assert [item["name"] for item in found] == [name]


def test_rate_limits_are_retried_by_the_client(drive, server):
    server.faults(requestsPerSecond=1, routes=["drive/file"])
    for _ in range(3):
        assert drive.files().get(fileId="root").execute(num_retries=6)["id"]
    assert server.stats()["rate_limited_responses"] > 0


def test_refresh_and_invalid_grant(server, account):
    _, refresh_token = account
    creds = credentials(refresh_token)
    http = authorized_http(creds)
    response, _ = http.request(os.environ["FERRY_SDK_SERVER"] + "/drive/v3/files/root")
    assert response.status == 200 and creds.token.startswith("ya29.")
    server.control("POST", "/__dev/gdrive/revoke", {"refresh_token": refresh_token})
    with pytest.raises(google.auth.exceptions.RefreshError) as failure:
        credentials(refresh_token).refresh(google.auth.transport.requests.Request(session=server.session))
    assert "invalid_grant" in str(failure.value)


def test_expired_session_answers_404(drive, server, account):
    data = random.Random(6).randbytes(3 * 256 * 1024)
    media = MediaIoBaseUpload(io.BytesIO(data), mimetype="application/octet-stream", chunksize=256 * 1024, resumable=True)
    request = drive.files().create(body={"name": "late.bin"}, media_body=media)
    status, _ = request.next_chunk()
    assert status.resumable_progress == 256 * 1024
    server.control("POST", "/__dev/gdrive/expire-sessions", {"account": account[0]})
    with pytest.raises(HttpError) as failure:
        request.next_chunk()
    assert failure.value.resp.status == 404
