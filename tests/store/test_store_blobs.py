"""Blobs: content-addressed, idempotent writes on the filesystem and on a real local S3 server (moto)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode
from bio_mcp.store import BlobStore, FilesystemBlobStore, S3BlobStore, blob_key, open_blob_store

BUCKET = "bio-mcp-test"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """moto's standalone S3-compatible server on a loopback port: real HTTP, no in-process mocking."""
    server_module = pytest.importorskip("moto.server", reason="moto[server] is needed for the S3 blob tests")
    port = _free_port()
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


@pytest.fixture
def s3_settings(s3_endpoint: str, bio_home: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    boto3 = pytest.importorskip("boto3")
    # moto accepts any credentials; these keep boto3 from looking for real ones.
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "moto")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "moto")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    client = boto3.client("s3", endpoint_url=s3_endpoint)
    if BUCKET not in {bucket["Name"] for bucket in client.list_buckets()["Buckets"]}:
        client.create_bucket(Bucket=BUCKET)
    prefix = f"run-{bio_home.parent.name}"
    return Settings(BIO_MCP_BLOB_URL=f"s3://{BUCKET}/{prefix}", BIO_MCP_S3_ENDPOINT_URL=s3_endpoint)


@pytest.fixture(params=["filesystem", "s3"])
def blob_store(request: pytest.FixtureRequest, bio_home: Path) -> BlobStore:
    if request.param == "filesystem":
        return open_blob_store(Settings())
    return open_blob_store(request.getfixturevalue("s3_settings"))


@pytest.fixture
def payloads(data_dir: Path) -> list[bytes]:
    """Two real recorded responses: a ClinicalTrials.gov study and an E-utilities ELink."""
    return [
        (data_dir / "ctgov" / "aact" / "NCT00763412.json").read_bytes(),
        (data_dir / "ncbi" / "biopython" / "entrez_current" / "elink1.xml").read_bytes(),
    ]


def test_writes_are_idempotent_and_content_addressed(blob_store: BlobStore, payloads: list[bytes]) -> None:
    study, efetch = payloads
    uri = blob_store.put("ctgov", study, "application/json")
    assert blob_store.put("ctgov", study, "application/json") == uri
    assert uri.endswith(blob_key("ctgov", study, "application/json"))
    other = blob_store.put("pubmed/elink", efetch, "text/xml; charset=UTF-8")
    assert other != uri and other.endswith(".xml") and "/raw/pubmed/elink/" in other
    assert blob_store.get(uri) == study
    assert blob_store.get(other) == efetch
    assert blob_store.exists(uri)


def test_missing_and_foreign_uris(blob_store: BlobStore, payloads: list[bytes]) -> None:
    uri = blob_store.put("ctgov", payloads[0], "application/json")
    stored_key = blob_key("ctgov", payloads[0], "application/json")
    absent = uri.replace(stored_key, blob_key("ctgov", payloads[1], "application/json"))
    assert not blob_store.exists(absent)
    with pytest.raises(BioMcpError) as caught:
        blob_store.get(absent)
    assert caught.value.code is ErrorCode.NOT_FOUND
    for foreign in (
        "https://example.org/raw/ctgov/ab/cd.json",
        uri.rsplit("/raw/", 1)[0] + "/raw/ctgov/x.json",
        uri.replace("/raw/ctgov/", "/raw/ctgov/../../../"),
    ):
        with pytest.raises(BioMcpError) as caught:
            blob_store.get(foreign)
        assert caught.value.code is ErrorCode.VALIDATION
    with pytest.raises(BioMcpError) as caught:
        blob_store.put("../etc", payloads[0], "application/json")
    assert caught.value.code is ErrorCode.VALIDATION


def test_filesystem_layout_and_corruption_check(bio_home: Path, payloads: list[bytes]) -> None:
    store = open_blob_store(Settings())
    assert isinstance(store, FilesystemBlobStore)
    uri = store.put("ctgov", payloads[0], "application/json")
    files = [path for path in (bio_home / "blobs").rglob("*") if path.is_file()]
    assert [path.relative_to(bio_home / "blobs").as_posix() for path in files] == [
        blob_key("ctgov", payloads[0], "application/json")
    ]
    files[0].write_bytes(payloads[0] + b" ")
    with pytest.raises(BioMcpError) as caught:
        store.get(uri)
    assert caught.value.code is ErrorCode.INVARIANT_FAILURE


def test_s3_objects_live_under_the_prefix(s3_settings: Settings, payloads: list[bytes]) -> None:
    import boto3

    store = open_blob_store(s3_settings)
    assert isinstance(store, S3BlobStore)
    store.put("ctgov", payloads[0], "application/json")
    store.put("ctgov", payloads[0], "application/json")
    client = boto3.client("s3", endpoint_url=s3_settings.s3_endpoint_url)
    listed = client.list_objects_v2(Bucket=BUCKET, Prefix=f"{store.prefix}/")
    assert [item["Key"] for item in listed["Contents"]] == [
        f"{store.prefix}/{blob_key('ctgov', payloads[0], 'application/json')}"
    ]
    head = client.head_object(Bucket=BUCKET, Key=listed["Contents"][0]["Key"])
    assert head["ContentType"] == "application/json"


def test_s3_errors_become_store_errors(s3_settings: Settings, payloads: list[bytes]) -> None:
    store = open_blob_store(s3_settings.model_copy(update={"blob_url": "s3://no-such-bucket-here/x"}))
    with pytest.raises(BioMcpError) as caught:
        store.put("ctgov", payloads[0], "application/json")
    assert caught.value.code is ErrorCode.STORE and "NoSuchBucket" in caught.value.message


def test_unknown_blob_url_scheme_is_refused(bio_home: Path) -> None:
    with pytest.raises(BioMcpError) as caught:
        open_blob_store(Settings(BIO_MCP_BLOB_URL="gs://bucket/prefix"))
    assert caught.value.code is ErrorCode.VALIDATION
