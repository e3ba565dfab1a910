"""Which files ingestion may read: regular files under BIO_MCP_INGEST_ROOTS, within the size limit.
A folder under the roots stands for its PDF, text, Markdown and HTML files, in every subfolder.

A path is resolved with every symlink followed before it is compared with the (equally resolved)
roots, so a link inside a root that leads out of it is refused like the path it leads to. Every
refusal is a VALIDATION error naming the file and why; nothing is read before the checks pass.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from bio_mcp.errors import BioMcpError, ErrorCode

DOC_TYPES_BY_SUFFIX = {
    ".pdf": "pdf", ".txt": "text", ".text": "text", ".md": "markdown", ".markdown": "markdown",
    ".html": "html", ".htm": "html", ".xhtml": "html",
}


@dataclass(frozen=True)
class AllowedFile:
    path: Path
    # The graph Document's source_uri: the resolved file's file:// URI.
    source_uri: str
    size_bytes: int


def path_of_uri(uri: str) -> Path:
    """A file:// URI or an absolute path -> the path it names."""
    if "\x00" in uri or "%00" in uri:
        raise BioMcpError(ErrorCode.VALIDATION, "batch.uri holds a NUL character", {"field": "batch.uri"})
    if uri.startswith("file:"):
        parsed = urlparse(uri)
        if parsed.netloc not in ("", "localhost"):
            raise BioMcpError(
                ErrorCode.VALIDATION, f"batch.uri {uri!r} names another host; only local files can be ingested",
                {"field": "batch.uri", "uri": uri},
            )
        return Path(unquote(parsed.path))
    if "://" in uri:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"batch.uri {uri!r} is not a file:// URI or an absolute path",
            {"field": "batch.uri", "uri": uri},
        )
    path = Path(uri)
    if not path.is_absolute():
        raise BioMcpError(
            ErrorCode.VALIDATION, f"batch.uri {uri!r} is relative; give a file:// URI or an absolute path",
            {"field": "batch.uri", "uri": uri},
        )
    return path


# A folder is one call's worth of files: more is refused rather than queued as one long job.
MAX_FOLDER_FILES = 1000


def _inside_roots(uri: str, roots: list[Path]) -> tuple[Path, Path]:
    """The path `uri` names and that path with every symlink followed, if it is under the roots."""
    if not roots:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            "ingestion is off: the server has no BIO_MCP_INGEST_ROOTS (directories files may be ingested from)",
            {"field": "batch.uri", "setting": "BIO_MCP_INGEST_ROOTS"},
        )
    requested = path_of_uri(uri)
    resolved_roots = [Path(os.path.realpath(root)) for root in roots]
    resolved = Path(os.path.realpath(requested))
    if not any(resolved.is_relative_to(root) for root in resolved_roots):
        through_link = resolved != Path(os.path.abspath(requested))
        reason = "is a symlink leading outside" if through_link else "is outside"
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"{requested} {reason} the ingestion roots (BIO_MCP_INGEST_ROOTS): nothing was read or written",
            {"field": "batch.uri", "uri": uri, "roots": [str(root) for root in resolved_roots]},
        )
    return requested, resolved


def files_in_folder(uri: str, roots: list[Path], doc_type: str) -> list[str] | None:
    """The files ingestion reads of the folder `uri` names, as file:// URIs in path order: those
    whose extension names a document type (`doc_type`'s, when it is not auto), hidden files and
    folders passed over; None when `uri` names no folder."""
    requested, resolved = _inside_roots(uri, roots)
    if not resolved.is_dir():
        return None
    found: list[str] = []
    for folder, subfolders, names in os.walk(resolved):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in sorted(names):
            kind = DOC_TYPES_BY_SUFFIX.get(Path(name).suffix.lower())
            if name.startswith(".") or kind is None or doc_type not in ("auto", kind):
                continue
            found.append(Path(folder, name).as_uri())
            if len(found) > MAX_FOLDER_FILES:
                raise BioMcpError(
                    ErrorCode.VALIDATION,
                    f"{requested} holds more than {MAX_FOLDER_FILES} files to ingest; give its subfolders one by one",
                    {"field": "batch.uri", "uri": uri, "max_files": MAX_FOLDER_FILES},
                )
    if not found:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"{requested} holds no {'PDF, text, Markdown or HTML' if doc_type == 'auto' else doc_type} files",
            {"field": "batch.uri", "uri": uri},
        )
    return found


def check_file(uri: str, roots: list[Path], max_bytes: int) -> AllowedFile:
    """The file `uri` names, if ingestion may read it; a VALIDATION error saying why not otherwise."""
    requested, resolved = _inside_roots(uri, roots)
    if not resolved.exists():
        raise BioMcpError(ErrorCode.NOT_FOUND, f"{requested} does not exist", {"field": "batch.uri", "uri": uri})
    if not resolved.is_file():
        raise BioMcpError(
            ErrorCode.VALIDATION, f"{requested} is not a regular file", {"field": "batch.uri", "uri": uri}
        )
    size = resolved.stat().st_size
    if size > max_bytes:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"{requested} is {size} bytes, over the ingestion limit of {max_bytes} (BIO_MCP_INGEST_MAX_BYTES)",
            {"field": "batch.uri", "uri": uri, "size_bytes": size, "max_bytes": max_bytes},
        )
    return AllowedFile(path=resolved, source_uri=resolved.as_uri(), size_bytes=size)


def doc_type_of(requested: str, path: Path) -> str:
    """The requested document type, or the one the file name's extension says (auto)."""
    if requested != "auto":
        return requested
    found = DOC_TYPES_BY_SUFFIX.get(path.suffix.lower())
    if found is None:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"cannot tell the type of {path.name} from its extension; set batch.doc_type (pdf, text, markdown, html)",
            {"field": "batch.doc_type", "uri": path.as_uri()},
        )
    return found
