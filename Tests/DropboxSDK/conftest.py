"""Shared fixtures: the running `ferry dev-server` (started by scripts/sdk-test.sh) and clients of the official SDK.

The SDK reads its hosts from the environment when it is imported, and it only speaks https, so the runner starts
the dev server with a throwaway certificate and hands its address and CA file over in FERRY_SDK_* variables.
"""

import json
import os
import uuid

import pytest
import requests

SERVER = os.environ["FERRY_SDK_SERVER"]  # https://127.0.0.1:PORT
CA_FILE = os.environ["FERRY_SDK_CA_FILE"]
APP_KEY = os.environ["FERRY_SDK_APP_KEY"]
with open(os.environ["FERRY_SDK_APP_SECRET_FILE"]) as handle:
    APP_SECRET = handle.read().strip()

# Before `import dropbox`: the SDK takes its hosts from these at import time.
HOST = SERVER.removeprefix("https://")
os.environ["DROPBOX_API_HOST"] = HOST
os.environ["DROPBOX_API_CONTENT_HOST"] = HOST
os.environ["DROPBOX_WEB_HOST"] = HOST

import dropbox  # noqa: E402


class DevServer:
    """The dev server's `/__dev/` control routes (not part of Dropbox)."""

    def __init__(self):
        self.session = requests.Session()
        self.session.verify = CA_FILE

    def control(self, method, path, body=None):
        response = self.session.request(method, SERVER + path, data=None if body is None else json.dumps(body))
        response.raise_for_status()
        return response.json() if response.content else None

    def new_account(self, public_client=False):
        """A fresh account (so tests never see each other's files) and a refresh token linked to it."""
        name = "sdk-" + uuid.uuid4().hex[:12]
        body = {"account": name}
        if public_client:
            body["public_client"] = True
        reply = self.control("POST", "/__dev/accounts", body)
        return name, reply["refresh_token"]

    def faults(self, **settings):
        """Replaces the whole fault configuration (no arguments: no faults)."""
        return self.control("POST", "/__dev/faults", settings)

    def stats(self):
        return self.control("GET", "/__dev/stats")

    def raw(self, method, path, **kwargs):
        return self.session.request(method, SERVER + path, **kwargs)


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


@pytest.fixture
def dbx(account):
    """An SDK client of a confidential app: refreshes with the app key and secret, as the SDK's docs show."""
    _, refresh_token = account
    client = dropbox.Dropbox(
        oauth2_refresh_token=refresh_token, app_key=APP_KEY, app_secret=APP_SECRET, ca_certs=CA_FILE,
        max_retries_on_error=0, max_retries_on_rate_limit=0)
    yield client
    client.close()
