"""Raw upstream payloads, content-addressed: `raw/{source}/{sha256[:2]}/{sha256}.{ext}`.

The key is the payload's SHA-256, so writing the same bytes twice is one object, and a read checks
the bytes still hash to their name. A folder under BIO_MCP_HOME by default; S3 for `s3://` URLs.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import unquote, urlparse

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode

_EXTENSIONS = {
    "application/json": "json",
    "application/xml": "xml",
    "text/xml": "xml",
    "text/plain": "txt",
    "text/html": "html",
    "application/pdf": "pdf",
}
# Each segment starts with a letter or digit, so no "." or ".." segment can climb out of the root.
_SOURCE_PATTERN = r"[a-z0-9][a-z0-9_.-]*(/[a-z0-9][a-z0-9_.-]*)*"
_SOURCE = re.compile(rf"^{_SOURCE_PATTERN}$")
_KEY = re.compile(
    rf"^raw/(?P<source>{_SOURCE_PATTERN})/(?P<fan>[0-9a-f]{{2}})/(?P<sha>[0-9a-f]{{64}})\.(?P<ext>[a-z0-9]+)$"
)


class BlobStore(Protocol):
    def put(self, source: str, payload: bytes, content_type: str) -> str:
        """Store `payload` and return its URI; the same bytes always give the same URI."""

    def get(self, uri: str) -> bytes:
        """The payload at `uri`: NOT_FOUND if absent, INVARIANT_FAILURE if its bytes changed."""

    def exists(self, uri: str) -> bool: ...


def extension_for(content_type: str) -> str:
    return _EXTENSIONS.get(content_type.split(";", 1)[0].strip().lower(), "bin")


def blob_key(source: str, payload: bytes, content_type: str) -> str:
    """The content-addressed key of `payload` from `source` (e.g. "pubmed/efetch", "ctgov")."""
    if not _SOURCE.match(source):
        raise BioMcpError(
            ErrorCode.VALIDATION,
            "a blob source is lower-case segments of [a-z0-9_.-] separated by '/'",
            {"source": source},
        )
    digest = hashlib.sha256(payload).hexdigest()
    return f"raw/{source}/{digest[:2]}/{digest}.{extension_for(content_type)}"


def _verified(key: str, payload: bytes, uri: str) -> bytes:
    match = _KEY.match(key)
    if match is None or hashlib.sha256(payload).hexdigest() != match["sha"]:
        raise BioMcpError(
            ErrorCode.INVARIANT_FAILURE, "a blob's bytes no longer match its content hash", {"uri": uri}
        )
    return payload


def _parsed_key(key: str, uri: str) -> str:
    match = _KEY.match(key)
    if match is None or match["fan"] != match["sha"][:2]:
        raise BioMcpError(ErrorCode.VALIDATION, "not a blob URI of this store", {"uri": uri})
    return key


class FilesystemBlobStore:
    """Blobs as files under `root`, written atomically (temporary file, fsync, rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def put(self, source: str, payload: bytes, content_type: str) -> str:
        key = blob_key(source, payload, content_type)
        path = self.root / key
        if path.is_file():
            return path.as_uri()
        temporary: Path | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=path.parent, prefix=".tmp-", delete=False) as handle:
                temporary = Path(handle.name)
                handle.write(payload)
                handle.flush()
                os.fsync(handle.fileno())
            # Readers see the whole file or none of it; two writers of the same bytes both win.
            os.replace(temporary, path)
        except OSError as exc:
            raise BioMcpError(
                ErrorCode.STORE, f"cannot write blob under {self.root}: {exc.strerror}", {"key": key}
            ) from exc
        finally:
            if temporary is not None:
                temporary.unlink(missing_ok=True)
        return path.as_uri()

    def _key(self, uri: str) -> str:
        parsed = urlparse(uri)
        path = Path(unquote(parsed.path))
        if parsed.scheme != "file" or not path.is_relative_to(self.root):
            raise BioMcpError(
                ErrorCode.VALIDATION, "not a blob URI of this store", {"uri": uri, "root": str(self.root)}
            )
        return _parsed_key(path.relative_to(self.root).as_posix(), uri)

    def get(self, uri: str) -> bytes:
        key = self._key(uri)
        try:
            payload = (self.root / key).read_bytes()
        except FileNotFoundError:
            raise BioMcpError(ErrorCode.NOT_FOUND, "no blob at this URI", {"uri": uri}) from None
        except OSError as exc:
            raise BioMcpError(ErrorCode.STORE, f"cannot read blob: {exc.strerror}", {"uri": uri}) from exc
        return _verified(key, payload, uri)

    def exists(self, uri: str) -> bool:
        return (self.root / self._key(uri)).is_file()


class S3BlobStore:
    """Blobs as objects under `s3://bucket/prefix`, on AWS or any S3-compatible endpoint."""

    def __init__(self, bucket: str, prefix: str = "", *, client: Any) -> None:
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self._client = client

    @classmethod
    def from_url(cls, url: str, *, endpoint_url: str | None = None) -> S3BlobStore:
        parsed = urlparse(url)
        if parsed.scheme != "s3" or not parsed.netloc:
            raise BioMcpError(
                ErrorCode.VALIDATION, "BIO_MCP_BLOB_URL must look like s3://bucket/prefix", {"url": url}
            )
        # Imported here: only S3 deployments need boto3, so the embedded default runs without it.
        try:
            import boto3  # type: ignore[import-untyped]
        except ImportError:
            raise BioMcpError(
                ErrorCode.VALIDATION, "S3 blob storage needs boto3: pip install boto3", {"url": url}
            ) from None
        return cls(parsed.netloc, parsed.path, client=boto3.client("s3", endpoint_url=endpoint_url))

    def _object_key(self, key: str) -> str:
        return f"{self.prefix}/{key}" if self.prefix else key

    def _key(self, uri: str) -> str:
        parsed = urlparse(uri)
        object_key = parsed.path.lstrip("/")
        head = f"{self.prefix}/" if self.prefix else ""
        if parsed.scheme != "s3" or parsed.netloc != self.bucket or not object_key.startswith(head):
            raise BioMcpError(
                ErrorCode.VALIDATION, "not a blob URI of this store", {"uri": uri, "bucket": self.bucket}
            )
        return _parsed_key(object_key[len(head) :], uri)

    def put(self, source: str, payload: bytes, content_type: str) -> str:
        key = blob_key(source, payload, content_type)
        object_key = self._object_key(key)
        uri = f"s3://{self.bucket}/{object_key}"
        if not self._head(object_key, uri):
            self._call(
                "write",
                uri,
                self._client.put_object,
                Bucket=self.bucket,
                Key=object_key,
                Body=payload,
                ContentType=content_type,
            )
        return uri

    def get(self, uri: str) -> bytes:
        key = self._key(uri)
        response = self._call(
            "read", uri, self._client.get_object, Bucket=self.bucket, Key=self._object_key(key)
        )
        return _verified(key, response["Body"].read(), uri)

    def exists(self, uri: str) -> bool:
        return self._head(self._object_key(self._key(uri)), uri)

    def _head(self, object_key: str, uri: str) -> bool:
        try:
            self._call("check", uri, self._client.head_object, Bucket=self.bucket, Key=object_key)
        except BioMcpError as exc:
            if exc.code is ErrorCode.NOT_FOUND:
                return False
            raise
        return True

    def _call(self, action: str, uri: str, method: Any, **kwargs: Any) -> Any:
        from botocore.exceptions import BotoCoreError, ClientError  # type: ignore[import-untyped]

        try:
            return method(**kwargs)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            if code in ("404", "NoSuchKey", "NotFound"):
                raise BioMcpError(ErrorCode.NOT_FOUND, "no blob at this URI", {"uri": uri}) from None
            raise BioMcpError(
                ErrorCode.STORE,
                f"cannot {action} blob in S3: {code} {error.get('Message', '')}".strip(),
                {"uri": uri},
            ) from exc
        except BotoCoreError as exc:
            raise BioMcpError(ErrorCode.STORE, f"cannot {action} blob in S3: {exc}", {"uri": uri}) from exc


def open_blob_store(settings: Settings) -> BlobStore:
    """S3 when BIO_MCP_BLOB_URL is an s3:// URL, otherwise the `blobs` folder of BIO_MCP_HOME."""
    if settings.blob_url is None:
        return FilesystemBlobStore(settings.home / "blobs")
    if settings.blob_url.startswith("s3://"):
        return S3BlobStore.from_url(settings.blob_url, endpoint_url=settings.s3_endpoint_url)
    if settings.blob_url.startswith("file://"):
        return FilesystemBlobStore(Path(unquote(urlparse(settings.blob_url).path)))
    raise BioMcpError(
        ErrorCode.VALIDATION, "BIO_MCP_BLOB_URL must be an s3:// or file:// URL", {"url": settings.blob_url}
    )
