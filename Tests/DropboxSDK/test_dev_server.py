"""The official Dropbox Python SDK, a client nobody here wrote, against `ferry dev-server` over TLS.

Run by scripts/sdk-test.sh (which starts the server); see conftest.py for the fixtures.
"""

import json
import random
import struct
import time
import zlib

import dropbox
import pytest
import requests
from dropbox import files
from dropbox.content_hash import DropboxContentHasher
from dropbox.exceptions import ApiError, AuthError, BadInputError, InternalServerError, RateLimitError

from conftest import APP_KEY, APP_SECRET, CA_FILE, SERVER


def content_hash(data):
    hasher = DropboxContentHasher()
    hasher.update(data)
    return hasher.hexdigest()


def png(width, height):
    """A real greyscale PNG of the given size."""
    def chunk(kind, payload):
        return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))
    rows = b"".join(b"\x00" + bytes([(x * 7) & 0xFF for x in range(width)]) for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def image_size(data):
    """(width, height) of a PNG or baseline JPEG."""
    if data.startswith(b"\x89PNG"):
        return struct.unpack(">II", data[16:24])
    assert data.startswith(b"\xff\xd8"), data[:4]
    index = 2
    while index < len(data):
        marker, length = data[index + 1], struct.unpack(">H", data[index + 2:index + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[index + 5:index + 9])
            return width, height
        index += 2 + length
    raise AssertionError("no JPEG frame header")


def upload_session(dbx, data, path, chunk=300_000):
    """start (empty) → append_v2 per chunk (close on the last) → finish: the pattern rclone and Ferry use."""
    session_id = dbx.files_upload_session_start(b"").session_id
    offset = 0
    while offset < len(data):
        piece = data[offset:offset + chunk]
        cursor = files.UploadSessionCursor(session_id, offset)
        dbx.files_upload_session_append_v2(piece, cursor, close=offset + len(piece) == len(data))
        offset += len(piece)
    return session_id, offset


# Uploads and sessions


def test_upload_returns_metadata_with_the_sdk_content_hash(dbx):
    data = random.Random(1).randbytes(200_000)
    path = "/Fotos/Größe 😀.bin"  # the SDK escapes it as \uXXXX in Dropbox-API-Arg
    metadata = dbx.files_upload(data, path)
    assert metadata.path_display == path
    assert metadata.size == len(data)
    assert metadata.content_hash == content_hash(data)
    assert len(metadata.rev) >= 9
    again = dbx.files_get_metadata(path)
    assert isinstance(again, files.FileMetadata)
    assert again.id == metadata.id

    # Identical bytes again in add mode are not a conflict; different bytes are.
    assert dbx.files_upload(data, path).rev == metadata.rev
    with pytest.raises(ApiError) as failure:
        dbx.files_upload(data + b"!", path)
    assert failure.value.error.is_path()
    assert failure.value.error.get_path().reason.get_conflict().is_file()


def test_upload_with_a_wrong_content_hash_is_refused(dbx):
    with pytest.raises(ApiError) as failure:
        dbx.files_upload(b"pixels", "/hash.bin", content_hash=content_hash(b"other"))
    assert failure.value.error.is_content_hash_mismatch()


def test_upload_session_start_append_finish(dbx):
    data = random.Random(2).randbytes(1_000_000)
    session_id = dbx.files_upload_session_start(data[:100_000]).session_id
    dbx.files_upload_session_append_v2(data[100_000:700_000], files.UploadSessionCursor(session_id, 100_000))
    metadata = dbx.files_upload_session_finish(
        data[700_000:], files.UploadSessionCursor(session_id, 700_000),
        files.CommitInfo("/sessions/one.bin", mode=files.WriteMode.overwrite))
    assert metadata.size == len(data)
    assert metadata.content_hash == content_hash(data)
    _, response = dbx.files_download("/sessions/one.bin")
    assert response.content == data


def test_append_at_a_wrong_offset_names_the_correct_one(dbx):
    session_id = dbx.files_upload_session_start(b"abc").session_id
    with pytest.raises(ApiError) as failure:
        dbx.files_upload_session_append_v2(b"xyz", files.UploadSessionCursor(session_id, 1))
    error = failure.value.error
    assert error.is_incorrect_offset()
    assert error.get_incorrect_offset().correct_offset == 3


def test_finish_batch_v2_and_the_async_finish_batch_with_check(dbx):
    entries = []
    blobs = {}
    for index in range(3):
        data = random.Random(10 + index).randbytes(50_000 + index)
        path = f"/batch/file-{index}.bin"
        session_id, offset = upload_session(dbx, data, path, chunk=20_000)
        entries.append(files.UploadSessionFinishArg(files.UploadSessionCursor(session_id, offset), files.CommitInfo(path)))
        blobs[path] = data
    # An open session cannot be committed by a batch: that entry fails on its own.
    open_session = dbx.files_upload_session_start(b"open").session_id
    entries.append(files.UploadSessionFinishArg(files.UploadSessionCursor(open_session, 4), files.CommitInfo("/batch/open.bin")))

    result = dbx.files_upload_session_finish_batch_v2(entries)
    assert [entry.is_success() for entry in result.entries] == [True, True, True, False]
    for entry in result.entries[:3]:
        metadata = entry.get_success()
        assert metadata.content_hash == content_hash(blobs[metadata.path_display])
    failure = result.entries[3].get_failure()
    assert failure.is_lookup_failed() and failure.get_lookup_failed().is_not_closed()

    # The deprecated asynchronous form: a job id, then finish_batch/check.
    data = b"async batch"
    session_id = dbx.files_upload_session_start(data, close=True).session_id
    launch = dbx.files_upload_session_finish_batch(
        [files.UploadSessionFinishArg(files.UploadSessionCursor(session_id, len(data)), files.CommitInfo("/batch/async.txt"))])
    if launch.is_async_job_id():
        status = dbx.files_upload_session_finish_batch_check(launch.get_async_job_id())
        assert status.is_complete()
        entries = status.get_complete().entries
    else:
        entries = launch.get_complete().entries
    assert entries[0].get_success().path_display == "/batch/async.txt"


def test_closed_starts_committed_by_finish_batch_v2_with_a_per_entry_failure(dbx, server):
    """What Ferry's batch commit does: every small file in one upload_session/start with close=True, then one
    finish_batch_v2 for all; an entry the server refuses (fail_commit_paths) fails alone, in the SDK's shapes."""
    server.faults(fail_commit_paths=["/closed/refused"])
    entries = []
    blobs = {}
    for index in range(5):
        data = random.Random(40 + index).randbytes(65_536)
        name = "refused" if index == 2 else f"file-{index}"
        path = f"/closed/{name}.bin"
        session_id = dbx.files_upload_session_start(data, close=True).session_id
        entries.append(files.UploadSessionFinishArg(files.UploadSessionCursor(session_id, len(data)), files.CommitInfo(path)))
        blobs[path] = data
    before = server.stats()["finish_batch_entries"]
    result = dbx.files_upload_session_finish_batch_v2(entries)
    assert [entry.is_success() for entry in result.entries] == [True, True, False, True, True]
    for entry in result.entries:
        if entry.is_success():
            metadata = entry.get_success()
            assert metadata.content_hash == content_hash(blobs[metadata.path_display])
    failure = result.entries[2].get_failure()
    assert failure.is_path() and failure.get_path().is_insufficient_space()
    assert server.stats()["finish_batch_entries"] == before + [5]

    # Committed once: the same sessions again are gone (lookup_failed/not_found), nothing is written twice.
    again = dbx.files_upload_session_finish_batch_v2(entries[:2])
    for entry in again.entries:
        assert entry.is_failure() and entry.get_failure().get_lookup_failed().is_not_found()


def test_namespace_lock_contention_is_a_429_the_sdk_reads(dbx, server):
    """Commits at once to one account with a long namespace lock: the losers get HTTP 429 with RateLimitError's
    shape (reason too_many_write_operations, retry_after), which the SDK raises as its RateLimitError."""
    import threading
    from dropbox.exceptions import RateLimitError
    server.faults(namespace_lock_milliseconds=300)
    uploaded, refused = [], []

    def upload(index):
        try:
            uploaded.append(dbx.files_upload(b"contended %d" % index, f"/lock/file-{index}.txt"))
        except RateLimitError as error:
            refused.append(error)

    threads = [threading.Thread(target=upload, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert uploaded and refused
    assert len(uploaded) + len(refused) == 4
    for error in refused:
        assert error.error.reason.is_too_many_write_operations()
        assert error.backoff == 1
    assert server.stats()["namespace_lock_contention"] == len(refused)


def test_concurrent_session_appends_out_of_order_then_finish(dbx):
    """session_type=concurrent: chunks at multiples of 4 MiB, sent in any order, the last one closing the session."""
    block = 4 * 1024 * 1024
    data = random.Random(77).randbytes(2 * block + 4321)
    session_id = dbx.files_upload_session_start(b"", session_type=files.UploadSessionType.concurrent).session_id
    for offset, close in [(block, False), (2 * block, True), (0, False)]:
        end = min(len(data), offset + block)
        dbx.files_upload_session_append_v2(data[offset:end], files.UploadSessionCursor(session_id, offset), close=close)
    with pytest.raises(ApiError) as failure:
        dbx.files_upload_session_append_v2(b"x" * 10, files.UploadSessionCursor(session_id, 3))
    assert failure.value.error.is_concurrent_session_invalid_offset() or failure.value.error.is_closed()
    metadata = dbx.files_upload_session_finish(b"", files.UploadSessionCursor(session_id, len(data)), files.CommitInfo("/concurrent/c.bin"))
    assert metadata.size == len(data)
    assert metadata.content_hash == content_hash(data)


# Listing and downloads


def test_list_folder_pages_with_cursors_and_follows_changes(dbx, account, server):
    name, _ = account
    server.control("POST", "/__dev/seed", {"account": name, "folder": "/many", "count": 25, "size": 32})
    page = dbx.files_list_folder("/many", limit=10)
    seen = [entry.name for entry in page.entries]
    pages = 1
    while page.has_more:
        page = dbx.files_list_folder_continue(page.cursor)
        seen += [entry.name for entry in page.entries]
        pages += 1
    assert pages == 3
    assert sorted(seen) == [f"file-{index:05d}.bin" for index in range(25)]

    latest = dbx.files_list_folder_get_latest_cursor("/many").cursor
    dbx.files_upload(b"new", "/many/late.txt")
    changes = dbx.files_list_folder_continue(latest)
    assert [entry.name for entry in changes.entries] == ["late.txt"]

    with pytest.raises(BadInputError):
        dbx.files_list_folder_continue("AAFnot-a-cursor")


def test_download_with_range(dbx):
    data = bytes(range(256)) * 40
    uploaded = dbx.files_upload(data, "/range.bin")
    metadata, response = dbx.files_download("/range.bin", extra_headers={"Range": "bytes=1000-1099"})
    assert response.status_code == 206
    assert response.headers["Content-Range"] == f"bytes 1000-1099/{len(data)}"
    assert response.content == data[1000:1100]
    assert metadata.rev == uploaded.rev
    _, whole = dbx.files_download("/range.bin")
    assert whole.status_code == 200 and whole.content == data


# Thumbnails


@pytest.mark.parametrize("mode, size, expected", [
    # 500x1000 portrait into a 480x320 box.
    (files.ThumbnailMode.strict, files.ThumbnailSize.w480h320, (160, 320)),  # fits inside the box
    (files.ThumbnailMode.bestfit, files.ThumbnailSize.w480h320, (240, 480)),  # fits inside the box turned 90°
    (files.ThumbnailMode.fitone_bestfit, files.ThumbnailSize.w480h320, (320, 640)),  # covers the box turned 90°
    (files.ThumbnailMode.strict, files.ThumbnailSize.w64h64, (32, 64)),
])
def test_get_thumbnail_v2_keeps_the_aspect_ratio(dbx, mode, size, expected):
    dbx.files_upload(png(500, 1000), "/pictures/tall.png", mode=files.WriteMode.overwrite)
    for image_format, magic in [(files.ThumbnailFormat.jpeg, b"\xff\xd8"), (files.ThumbnailFormat.png, b"\x89PNG")]:
        result, response = dbx.files_get_thumbnail_v2(
            files.PathOrLink.path("/pictures/tall.png"), format=image_format, size=size, mode=mode)
        assert result.file_metadata.path_display == "/pictures/tall.png"
        assert response.content.startswith(magic)
        assert image_size(response.content) == expected


def test_thumbnail_errors(dbx):
    dbx.files_upload(b"not an image at all", "/pictures/fake.jpg")
    with pytest.raises(ApiError) as failure:
        dbx.files_get_thumbnail_v2(files.PathOrLink.path("/pictures/fake.jpg"))
    assert failure.value.error.is_unsupported_image()

    dbx.files_upload(b"text", "/pictures/notes.txt")
    with pytest.raises(ApiError) as failure:
        dbx.files_get_thumbnail_v2(files.PathOrLink.path("/pictures/notes.txt"))
    assert failure.value.error.is_unsupported_extension()

    with pytest.raises(ApiError) as failure:
        dbx.files_get_thumbnail_v2(files.PathOrLink.path("/pictures/missing.png"))
    assert failure.value.error.is_path() and failure.value.error.get_path().is_not_found()


# OAuth


def test_refresh_token_grant_needs_the_app_secret(account, server):
    name, refresh_token = account
    with dropbox.Dropbox(oauth2_refresh_token=refresh_token, app_key=APP_KEY, app_secret=APP_SECRET, ca_certs=CA_FILE) as dbx:
        me = dbx.users_get_current_account()
    assert len(me.account_id) == 40
    assert server.stats()["token_refreshes_per_account"][name] == 1

    # A confidential app that forgets its secret, or sends a wrong one, is refused (400 invalid_client).
    for secret in (None, APP_SECRET + "x"):
        with dropbox.Dropbox(oauth2_refresh_token=refresh_token, app_key=APP_KEY, app_secret=secret, ca_certs=CA_FILE) as dbx:
            with pytest.raises(BadInputError) as failure:
                dbx.users_get_current_account()
        assert "invalid_client" in failure.value.message
    assert server.stats()["token_refreshes_per_account"][name] == 1


def authorize(flow, account_name):
    """What a user clicking "Allow" does: the dev server issues the code at once and shows it as text."""
    url = flow.start() + "&account=" + account_name
    assert url.startswith(SERVER + "/oauth2/authorize?")
    response = requests.get(url, verify=CA_FILE)
    response.raise_for_status()
    return response.text.strip()


def test_pkce_code_exchange_gives_a_refresh_token_usable_without_a_secret(server):
    flow = dropbox.DropboxOAuth2FlowNoRedirect(APP_KEY, use_pkce=True, token_access_type="offline", ca_certs=CA_FILE)
    code = authorize(flow, "sdk-pkce-user")
    result = flow.finish(code)
    assert result.refresh_token
    assert len(result.account_id) == 40
    with dropbox.Dropbox(oauth2_refresh_token=result.refresh_token, app_key=APP_KEY, ca_certs=CA_FILE) as dbx:
        assert dbx.users_get_current_account().account_id == result.account_id

    # A code is single use, and the verifier must be the one the challenge was made from.
    with pytest.raises(requests.HTTPError):
        flow.finish(code)
    other = dropbox.DropboxOAuth2FlowNoRedirect(APP_KEY, use_pkce=True, token_access_type="offline", ca_certs=CA_FILE)
    code = authorize(other, "sdk-pkce-user")
    other.code_verifier = "x" * 64
    with pytest.raises(requests.HTTPError) as failure:
        other.finish(code)
    assert failure.value.response.status_code == 400
    assert failure.value.response.json()["error"] == "invalid_grant"


def test_confidential_code_exchange_with_the_app_secret():
    flow = dropbox.DropboxOAuth2FlowNoRedirect(APP_KEY, consumer_secret=APP_SECRET, token_access_type="offline", ca_certs=CA_FILE)
    result = flow.finish(authorize(flow, "sdk-code-user"))
    with dropbox.Dropbox(oauth2_refresh_token=result.refresh_token, app_key=APP_KEY, app_secret=APP_SECRET, ca_certs=CA_FILE) as dbx:
        assert dbx.users_get_current_account().account_id == result.account_id
    wrong = dropbox.DropboxOAuth2FlowNoRedirect(APP_KEY, consumer_secret="wrong", token_access_type="offline", ca_certs=CA_FILE)
    with pytest.raises(requests.HTTPError):
        wrong.finish(authorize(wrong, "sdk-code-user"))


def test_revoke_disables_the_token_and_its_refresh_token(dbx, account):
    _, refresh_token = account
    dbx.users_get_current_account()
    dbx.auth_token_revoke()
    with pytest.raises(AuthError) as failure:
        dbx.users_get_current_account()
    assert failure.value.error.is_invalid_access_token()
    # The SDK reports the token endpoint's invalid_grant as an AuthError too.
    with dropbox.Dropbox(oauth2_refresh_token=refresh_token, app_key=APP_KEY, app_secret=APP_SECRET, ca_certs=CA_FILE) as again:
        with pytest.raises(AuthError):
            again.users_get_current_account()


# Error shapes


def test_route_errors_are_typed(dbx):
    with pytest.raises(ApiError) as failure:
        dbx.files_get_metadata("/nowhere/at/all.txt")
    assert failure.value.error.is_path() and failure.value.error.get_path().is_not_found()
    with pytest.raises(ApiError) as failure:
        dbx.files_download("/nowhere.txt")
    assert failure.value.error.get_path().is_not_found()
    # Dropbox wants the root as "", and says so with a 400.
    with pytest.raises(BadInputError):
        dbx.files_list_folder("/")


def test_unknown_fields_and_void_arguments_are_bad_input(dbx):
    dbx.users_get_current_account()  # fetches a token
    call = dbx.request_json_string
    with pytest.raises(BadInputError) as failure:
        call("api", "files/list_folder", "rpc", json.dumps({"path": "", "bogus": True}), "user", None)
    assert "bogus" in failure.value.message
    with pytest.raises(BadInputError):
        call("api", "files/get_metadata", "rpc", json.dumps({"path": "/a", "includ_deleted": True}), "user", None)
    with pytest.raises(BadInputError):
        call("content", "files/upload", "upload", json.dumps({"path": "/x.bin", "autoname": True}), "user", b"x")
    session_id = dbx.files_upload_session_start(b"data").session_id
    finish = {"cursor": {"session_id": session_id, "offset": 4}, "commit": {"path": "/x.bin", "mood": "add"}}
    with pytest.raises(BadInputError) as failure:
        call("content", "files/upload_session/finish", "upload", json.dumps(finish), "user", b"")
    assert "mood" in failure.value.message
    with pytest.raises(BadInputError):
        call("content", "files/download", "download", json.dumps({"path": "/x.bin", "range": "0-1"}), "user", None)

    # Routes without an argument take null (what the SDK sends); {} is an argument they do not have.
    assert call("api", "users/get_current_account", "rpc", "null", "user", None)
    with pytest.raises(BadInputError):
        call("api", "users/get_current_account", "rpc", "{}", "user", None)


def test_raw_non_ascii_in_dropbox_api_arg_is_bad_input(dbx):
    dbx.users_get_current_account()
    # The SDK escapes as Dropbox requires; send UTF-8 bytes the way a careless client would.
    raw = json.dumps({"path": "/Größe.txt"}, ensure_ascii=False).encode("utf-8").decode("latin-1")
    with pytest.raises(BadInputError):
        dbx.request_json_string("content", "files/upload", "upload", raw, "user", b"x")
    escaped = json.dumps({"path": "/Größe.txt"})
    dbx.request_json_string("content", "files/upload", "upload", escaped, "user", b"x")
    assert dbx.files_get_metadata("/Größe.txt").size == 1


def test_bad_tokens(server):
    # Not a token at all (spaces, quotes): 400 for the malformed header, not 401.
    for token in ("two words", 'quo"te'):
        with dropbox.Dropbox(oauth2_access_token=token, ca_certs=CA_FILE) as dbx:
            with pytest.raises(BadInputError):
                dbx.users_get_current_account()
    # A well-formed token the server never issued: 401 invalid_access_token.
    with dropbox.Dropbox(oauth2_access_token="sl.notissued123", ca_certs=CA_FILE) as dbx:
        with pytest.raises(AuthError) as failure:
            dbx.users_get_current_account()
    assert failure.value.error.is_invalid_access_token()


def test_write_contention_409_and_429(dbx, server):
    dbx.users_get_current_account()
    server.faults(write_contention_rate=1.0, routes=["files/upload_session/finish"])
    session_id = dbx.files_upload_session_start(b"abc", close=True).session_id
    with pytest.raises(ApiError) as failure:
        dbx.files_upload_session_finish(b"", files.UploadSessionCursor(session_id, 3), files.CommitInfo("/busy.txt"))
    assert failure.value.error.is_too_many_write_operations()

    server.faults(write_rate_limit_rate=1.0, retry_after_seconds=2, routes=["files/upload"])
    with pytest.raises(RateLimitError) as failure:
        dbx.files_upload(b"abc", "/busy.txt")
    assert failure.value.error.reason.is_too_many_write_operations()
    assert failure.value.error.retry_after == 2
    assert failure.value.backoff == 2
    server.faults()
    assert dbx.files_upload_session_finish(b"", files.UploadSessionCursor(session_id, 3), files.CommitInfo("/busy.txt")).size == 3


def test_server_errors_and_rate_limits(dbx, server):
    dbx.users_get_current_account()
    server.faults(failure_rate=1.0, routes=["users/get_current_account"])
    with pytest.raises(InternalServerError) as failure:
        dbx.users_get_current_account()
    assert failure.value.status_code in (500, 503)

    server.faults(rate_limit_rate=1.0, retry_after_seconds=3, routes=["users/get_current_account"])
    with pytest.raises(RateLimitError) as failure:
        dbx.users_get_current_account()
    assert failure.value.error.reason.is_too_many_requests()
    assert failure.value.backoff == 3


def test_a_per_second_budget_is_waited_out_by_the_sdk(account, server):
    _, refresh_token = account
    server.faults(requests_per_second=2, routes=["users/get_current_account"])
    before = server.stats()["rate_limited_responses"]
    started = time.monotonic()
    # The SDK's default client retries 429s, honouring retry_after.
    with dropbox.Dropbox(oauth2_refresh_token=refresh_token, app_key=APP_KEY, app_secret=APP_SECRET, ca_certs=CA_FILE) as dbx:
        for _ in range(6):
            dbx.users_get_current_account()
    elapsed = time.monotonic() - started
    assert server.stats()["rate_limited_responses"] > before
    assert elapsed >= 1.0, "six calls at two per second cannot all pass at once"
    assert server.stats()["faults_injected"].get("rate_budget", 0) > 0


def test_a_partially_kept_chunk_is_resumed_by_sending_only_its_tail(dbx, server):
    data = random.Random(3).randbytes(600_000)
    session_id = dbx.files_upload_session_start(data[:100_000]).session_id
    server.faults(partial_chunk_rate=1.0, routes=["files/upload_session/append_v2"])
    # The server keeps the first half of this chunk and closes the connection without answering.
    with pytest.raises(requests.exceptions.ConnectionError):
        dbx.files_upload_session_append_v2(data[100_000:500_000], files.UploadSessionCursor(session_id, 100_000))
    server.faults()
    with pytest.raises(ApiError) as failure:
        dbx.files_upload_session_append_v2(data[100_000:500_000], files.UploadSessionCursor(session_id, 100_000))
    correct = failure.value.error.get_incorrect_offset().correct_offset
    assert correct == 300_000, "inside the chunk: half of it was kept"
    dbx.files_upload_session_append_v2(data[correct:500_000], files.UploadSessionCursor(session_id, correct))
    metadata = dbx.files_upload_session_finish(
        data[500_000:], files.UploadSessionCursor(session_id, 500_000), files.CommitInfo("/partial.bin"))
    assert metadata.content_hash == content_hash(data)
    assert server.stats()["faults_injected"]["partial_chunk"] == 1
