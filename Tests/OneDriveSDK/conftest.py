"""Shared fixtures: the running `ferry dev-server` (started by scripts/sdk-test.sh) and clients of Microsoft's official
Graph SDK for Python (`msgraph-sdk`, on Kiota) pointed at its OneDrive emulation.

The SDK takes another base URL through its request adapter (`base_url`); its bearer-token provider is given the
access token the dev server's identity platform endpoint grants for a refresh token, and the server's host as the
only one the token may go to (upload session URLs point at another host, as Microsoft's do, and get none).
"""

import json
import os
import ssl
import uuid
from urllib.parse import urlparse

import httpx
import pytest
import requests
from kiota_abstractions.authentication import AccessTokenProvider, AllowedHostsValidator, BaseBearerTokenAuthenticationProvider
from msgraph import GraphRequestAdapter, GraphServiceClient
from msgraph.graph_request_adapter import options as sdk_options
from msgraph_core import GraphClientFactory

SERVER = os.environ["FERRY_SDK_SERVER"]  # https://127.0.0.1:PORT
CA_FILE = os.environ["FERRY_SDK_CA_FILE"]
CLIENT_ID = os.environ["FERRY_SDK_APP_KEY"]


class DevServer:
    """The dev server's `/__dev/` control routes (not part of Graph)."""

    def __init__(self):
        self.session = requests.Session()
        self.session.verify = CA_FILE

    def control(self, method, path, body=None):
        response = self.session.request(method, SERVER + path, data=None if body is None else json.dumps(body))
        response.raise_for_status()
        return response.json() if response.content else None

    def new_account(self):
        name = "odsdk-" + uuid.uuid4().hex[:12]
        return name, self.control("POST", "/__dev/onedrive/accounts", {"account": name})["refresh_token"]

    def put_file(self, account, path, text):
        return self.control("POST", "/__dev/onedrive/files", {"account": account, "path": path, "text": text})

    def items(self, account):
        return {item["path"]: item for item in self.control("POST", "/__dev/onedrive/items", {"account": account})["items"]}

    def stats(self):
        return self.control("GET", "/__dev/onedrive/stats")

    def settings(self, **values):
        return self.control("POST", "/__dev/onedrive/settings", values)

    def access_token(self, refresh_token):
        """The identity platform's refresh grant (a public client: no secret), as MSAL would make it."""
        response = self.session.post(SERVER + "/common/oauth2/v2.0/token", data={
            "client_id": CLIENT_ID, "grant_type": "refresh_token", "refresh_token": refresh_token,
            "scope": "Files.ReadWrite offline_access"})
        response.raise_for_status()
        return response.json()["access_token"]


class FixedToken(AccessTokenProvider):
    def __init__(self, token, host):
        self.token = token
        self.validator = AllowedHostsValidator([host])

    async def get_authorization_token(self, uri, additional_authentication_context=None):
        return self.token if self.validator.is_url_host_valid(uri) else ""

    def get_allowed_hosts_validator(self):
        return self.validator


@pytest.fixture(scope="session")
def server():
    return DevServer()


@pytest.fixture
def account(server):
    return server.new_account()


@pytest.fixture
def graph(server, account):
    """A GraphServiceClient for the account, its base URL the dev server's `/v1.0`."""
    token = server.access_token(account[1])
    auth = BaseBearerTokenAuthenticationProvider(FixedToken(token, urlparse(SERVER).hostname))
    # The SDK's own middleware options (`/users/me-token-to-replace` → `/me`), with a client trusting the test CA.
    http = GraphClientFactory.create_with_default_middleware(
        client=httpx.AsyncClient(verify=ssl.create_default_context(cafile=CA_FILE), timeout=60), options=sdk_options)
    adapter = GraphRequestAdapter(auth, http)
    adapter.base_url = SERVER + "/v1.0"
    return GraphServiceClient(request_adapter=adapter)
