"""Shared fixtures: the running `ferry dev-server` (started by scripts/sdk-test.sh) and clients of Google's official
Python client (`google-api-python-client` with `google-auth`).

The client reaches the server over TLS (it keeps https for media uploads and swaps only the host), so the runner
starts the dev server with a throwaway certificate and hands its address and CA file over in FERRY_SDK_* variables.
The dev server's app key and secret are the OAuth client id and secret.
"""

import json
import os
import uuid

import google_auth_httplib2
import pytest
import requests
from google.oauth2.credentials import Credentials
from googleapiclient.discovery import build
from googleapiclient.http import build_http

SERVER = os.environ["FERRY_SDK_SERVER"]  # https://127.0.0.1:PORT
CA_FILE = os.environ["FERRY_SDK_CA_FILE"]
CLIENT_ID = os.environ["FERRY_SDK_APP_KEY"]
with open(os.environ["FERRY_SDK_APP_SECRET_FILE"]) as handle:
    CLIENT_SECRET = handle.read().strip()


class DevServer:
    """The dev server's `/__dev/` control routes (not part of Google's API)."""

    def __init__(self):
        self.session = requests.Session()
        self.session.verify = CA_FILE

    def control(self, method, path, body=None):
        response = self.session.request(method, SERVER + path, data=None if body is None else json.dumps(body))
        response.raise_for_status()
        return response.json() if response.content else None

    def new_account(self):
        """A fresh Drive account (so tests never see each other's files) and a refresh token linked to it."""
        name = "gsdk-" + uuid.uuid4().hex[:12]
        reply = self.control("POST", "/__dev/gdrive/accounts", {"account": name})
        return name, reply["refresh_token"]

    def faults(self, **settings):
        """Replaces the whole fault configuration (no arguments: no faults)."""
        return self.control("POST", "/__dev/faults", settings)

    def stats(self):
        return self.control("GET", "/__dev/stats")

    def drive_stats(self):
        return self.control("GET", "/__dev/gdrive/stats")

    def items(self, account):
        return self.control("POST", "/__dev/gdrive/items", {"account": account})["items"]


@pytest.fixture(scope="session")
def server():
    return DevServer()


@pytest.fixture(autouse=True)
def no_faults(server):
    server.faults()
    yield
    server.faults()


@pytest.fixture
def account(server):
    return server.new_account()


def credentials(refresh_token):
    """google-auth user credentials refreshed at the dev server's token endpoint."""
    return Credentials(
        token=None, refresh_token=refresh_token, token_uri=SERVER + "/token", client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET, scopes=["https://www.googleapis.com/auth/drive"])


def authorized_http(creds):
    """An httplib2 transport that trusts the test CA (and, as the client's own, does not follow 308s)."""
    http = build_http()
    http.ca_certs = CA_FILE
    return google_auth_httplib2.AuthorizedHttp(creds, http=http)


@pytest.fixture
def drive(account):
    """The Drive v3 client from the discovery document shipped with the library, pointed at the dev server."""
    _, refresh_token = account
    service = build(
        "drive", "v3", http=authorized_http(credentials(refresh_token)), static_discovery=True,
        client_options={"api_endpoint": SERVER + "/drive/v3/"})
    yield service
    service.close()
