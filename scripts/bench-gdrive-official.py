"""The baseline of scripts/bench-gdrive.sh: Google's official Python client (`google-api-python-client`, static
discovery, `google-auth` credentials refreshed at the dev server's /token) uploading every file of a folder into
one new Drive folder with N threads, as a user's script would: one `files.create` multipart request per file
(`MediaFileUpload`, resumable=False; the files are at most 5 MiB), the name, parent and `modifiedTime` set, and the
stored size and md5Checksum compared with the local file's. With --lookup each create is preceded by a
`files.list` for a file of the same name in the folder, the request Ferry makes per file (Drive allows same-name
siblings, so a client that must not add a second copy has to ask).

The client keeps https for media uploads whatever `api_endpoint` says (it swaps only the host), and Ferry's HTTP
client trusts only the system's CA store. With --plain-http the transport (httplib2) is handed the upload URL with
`http:` instead of `https:`, so both sides speak plain HTTP to one server; the client's own code is untouched.
Without it, give --ca-file and an https server.

Each thread has its own service object and connection (httplib2 is not thread-safe); services are built, tokens
fetched and connections opened before the clock starts. Prints one JSON object: files, seconds, files_per_second,
cpu_seconds (this process), failed.

Usage: bench-gdrive-official.py --server BASE --client-id ID --client-secret-file F --refresh-token-file F DIR
       [--plain-http | --ca-file CA] [--threads 8]
"""

import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import resource
import sys
import threading
import time
import uuid

import google_auth_httplib2
import httplib2
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.http import MediaFileUpload

FOLDER = "application/vnd.google-apps.folder"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True, help="http(s)://127.0.0.1:PORT")
    parser.add_argument("--client-id", required=True)
    parser.add_argument("--client-secret-file", required=True)
    parser.add_argument("--refresh-token-file", required=True)
    parser.add_argument("--ca-file")
    parser.add_argument("--plain-http", action="store_true", help="send the upload requests over http too")
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--folder", default=None, help="name of the new folder (default: a fresh one)")
    parser.add_argument(
        "--lookup", action="store_true",
        help="before each create, look for a file of the same name in the folder (files.list), as Ferry does")
    parser.add_argument("directory")
    args = parser.parse_args()
    with open(args.client_secret_file) as handle:
        secret = handle.read().strip()
    with open(args.refresh_token_file) as handle:
        refresh_token = handle.read().strip()
    server = args.server.rstrip("/")
    https_base = "https://" + server.split("://", 1)[1]

    class Transport(httplib2.Http):
        """httplib2 as the client uses it; with --plain-http the upload URL's scheme becomes http."""

        def request(self, uri, *rest, **options):
            if args.plain_http and uri.startswith(https_base):
                uri = server + uri[len(https_base):]
            return super().request(uri, *rest, **options)

    def service():
        credentials = Credentials(
            token=None, refresh_token=refresh_token, token_uri=server + "/token", client_id=args.client_id,
            client_secret=secret, scopes=["https://www.googleapis.com/auth/drive"])
        http = Transport(ca_certs=args.ca_file, timeout=120)
        return build(
            "drive", "v3", http=google_auth_httplib2.AuthorizedHttp(credentials, http=http), static_discovery=True,
            client_options={"api_endpoint": server + "/drive/v3/"})

    names = sorted(os.listdir(args.directory))
    drive = service()
    folder = drive.files().create(
        body={"name": args.folder or "official-" + uuid.uuid4().hex[:8], "mimeType": FOLDER, "parents": ["root"]},
        fields="id").execute()["id"]

    # One service per thread, warmed up (token fetched, connection open) before the clock starts.
    services = [service() for _ in range(args.threads)]
    for each in services:
        each.files().get(fileId=folder, fields="id").execute()
    free = list(services)
    lock = threading.Lock()

    def upload(name):
        with lock:
            drive = free.pop()
        try:
            path = os.path.join(args.directory, name)
            status = os.stat(path)
            modified = datetime.datetime.fromtimestamp(status.st_mtime, datetime.timezone.utc)
            if args.lookup:
                quoted = name.replace("\\", "\\\\").replace("'", "\\'")
                found = drive.files().list(
                    q=f"name = '{quoted}' and '{folder}' in parents and trashed = false", pageSize=10,
                    fields="files(id,size,md5Checksum)").execute()["files"]
                if found:
                    raise RuntimeError(f"{name}: already in the folder")
            media = MediaFileUpload(path, mimetype="application/octet-stream", resumable=False)
            created = drive.files().create(
                body={"name": name, "parents": [folder], "modifiedTime": modified.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"},
                media_body=media, fields="id,size,md5Checksum").execute()
            with open(path, "rb") as handle:
                md5 = hashlib.md5(handle.read()).hexdigest()
            if int(created["size"]) != status.st_size or created["md5Checksum"] != md5:
                raise RuntimeError(f"{name}: stored {created}")
        finally:
            with lock:
                free.append(drive)

    failed = 0
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.threads) as pool:
        for result in [pool.submit(upload, name) for name in names]:
            try:
                result.result()
            except Exception as error:  # counted and named, as a job failure would be
                failed += 1
                print(f"failed: {str(error)[:300]}", file=sys.stderr)
    seconds = time.monotonic() - start
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    print(json.dumps({
        "files": len(names), "seconds": round(seconds, 3), "files_per_second": round(len(names) / seconds, 1),
        "cpu_seconds": round(cpu, 2), "failed": failed, "folder": folder}))


if __name__ == "__main__":
    main()
