"""Microsoft's official Graph SDK for Python against the dev server's OneDrive emulation: the drive, a simple
upload by path (`root:/path:` item ids, percent-encoded by the SDK), children pages (`@odata.nextLink`), a
download, and an upload session the SDK creates (320 KiB ranges, `nextExpectedRanges`)."""

import asyncio
import os

from msgraph.generated.drives.item.items.item.create_upload_session.create_upload_session_post_request_body import (
    CreateUploadSessionPostRequestBody,
)
from msgraph.generated.models.drive_item_uploadable_properties import DriveItemUploadableProperties
import requests

from conftest import CA_FILE


def run(coroutine):
    return asyncio.run(coroutine)


def test_simple_upload_download_and_children(server, account, graph):
    async def scenario():
        drive = await graph.me.drive.get()
        assert drive.id
        items = graph.drives.by_drive_id(drive.id).items
        stored = await items.by_drive_item_id("root:/sdk/hello.txt:").content.put(b"hello from msgraph-sdk")
        assert stored.name == "hello.txt" and stored.size == 22
        assert stored.file.hashes.quick_xor_hash
        assert await items.by_drive_item_id(stored.id).content.get() == b"hello from msgraph-sdk"
        folder = await items.by_drive_item_id("root:/sdk:").get()
        for index in range(4):
            server.put_file(account[0], f"/sdk/f{index}.txt", str(index))
        server.settings(page_size=2)
        page = await items.by_drive_item_id(folder.id).children.get()
        names = [item.name for item in page.value]
        while page.odata_next_link:
            page = await items.by_drive_item_id(folder.id).children.with_url(page.odata_next_link).get()
            names += [item.name for item in page.value]
        server.settings(page_size=200)
        assert sorted(names) == ["f0.txt", "f1.txt", "f2.txt", "f3.txt", "hello.txt"]

    run(scenario())


def test_large_file_through_an_upload_session(server, account, graph):
    """The SDK makes the session; its ranges go up as Graph documents them (the SDK's LargeFileUploadTask of this
    version appends "-" to a `nextExpectedRanges` entry of the documented "N-" form and then fails parsing it, so
    the ranges are sent with plain HTTP here, without the access token: the session URL is the credential)."""
    data = os.urandom(3 * 320 * 1024 + 4321)

    async def create():
        drive = await graph.me.drive.get()
        body = CreateUploadSessionPostRequestBody(
            item=DriveItemUploadableProperties(additional_data={"@microsoft.graph.conflictBehavior": "fail"}))
        return await graph.drives.by_drive_id(drive.id).items.by_drive_item_id("root:/sdk/big.bin:").create_upload_session.post(body)

    session = run(create())
    assert session.upload_url and session.upload_url.startswith("https://localhost:"), "another host than Graph's"
    assert session.next_expected_ranges == ["0-"]
    http = requests.Session()
    http.verify = CA_FILE
    offset, unit = 0, 320 * 1024
    while True:
        end = min(len(data), offset + unit)
        answer = http.put(session.upload_url, data=data[offset:end], headers={"Content-Range": f"bytes {offset}-{end - 1}/{len(data)}"})
        if end == len(data):
            assert answer.status_code == 201, answer.text
            assert answer.json()["size"] == len(data)
            break
        assert answer.status_code == 202, answer.text
        offset = int(answer.json()["nextExpectedRanges"][0].split("-")[0])
        assert offset == end
        # Where it stands, as another machine would ask after a crash.
        assert http.get(session.upload_url).json()["nextExpectedRanges"] == [f"{offset}-"]
    stored = server.items(account[0])["/sdk/big.bin"]
    assert stored["size"] == len(data) and stored["file"]["hashes"]["quickXorHash"]
