"""Where the MeSH descriptors file is, wherever the server starts, and how it gets there.

Resolution order (`mesh_path_of`, the one function every part uses):

1. `BIO_MCP_MESH_PATH`, when it names a file;
2. the copy `bio-mcp data install-mesh FILE` put under `BIO_MCP_HOME/mesh/`;
3. development only: the shared data beside a source checkout (`../shared/data/mesh/...`, found
   from the package's own location, not the working directory).

Missing MeSH is a working but degraded configuration (indications are searched as typed), so it
is reported loudly: a warning in the log (`mesh_status`) and in `pubmed-connect://info`.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.errors import BioMcpError, ErrorCode

log = logging.getLogger("bio_mcp.mesh")

INSTALLED_NAME = "mesh_descriptors.jsonl"
SHARED_DATA_NAME = "mesh_descriptors_2024.jsonl"
# src/bio_mcp/mesh_files.py -> the checkout root is three levels up; its shared data sits beside it.
_CHECKOUT_ROOT = Path(__file__).resolve().parents[2]
# Far fewer descriptors than a MeSH year has (about 30,000) means a truncated or wrong file.
MIN_DESCRIPTORS = 1000
MISSING_WARNING = (
    "MeSH descriptors not found: indications are searched as typed, without MeSH synonyms. Install them "
    "with `bio-mcp data install-mesh FILE` (a mesh_descriptors_*.jsonl) or set BIO_MCP_MESH_PATH"
)


@dataclass(frozen=True)
class MeshStatus:
    path: Path | None
    # "BIO_MCP_MESH_PATH", "BIO_MCP_HOME" or "checkout"; None when missing.
    source: str | None
    warning: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"path": str(self.path) if self.path else None, "source": self.source, "warning": self.warning}


def installed_mesh_path(settings: Settings) -> Path:
    return settings.home / "mesh" / INSTALLED_NAME


def checkout_data_dir() -> Path | None:
    """The shared data folder beside a source checkout (development), or None outside one: found
    from this file, not from the working directory, which a client such as Claude Desktop sets to /."""
    if not (_CHECKOUT_ROOT / "pyproject.toml").is_file():
        return None
    return _CHECKOUT_ROOT.parent / "shared" / "data"


def checkout_mesh_path() -> Path | None:
    """The shared data's MeSH descriptors beside a source checkout, or None outside one."""
    data = checkout_data_dir()
    return data / "mesh" / SHARED_DATA_NAME if data is not None else None


def mesh_status(settings: Settings) -> MeshStatus:
    """Where MeSH was found (see the module docstring), or why not, with the warning to show."""
    problems: list[str] = []
    if settings.mesh_path is not None:
        if settings.mesh_path.is_file():
            return MeshStatus(settings.mesh_path, "BIO_MCP_MESH_PATH", None)
        problems.append(f"BIO_MCP_MESH_PATH={settings.mesh_path} is not a file")
    installed = installed_mesh_path(settings)
    if installed.is_file():
        return MeshStatus(installed, "BIO_MCP_HOME", "; ".join(problems) or None)
    checkout = checkout_mesh_path()
    if checkout is not None and checkout.is_file():
        return MeshStatus(checkout, "checkout", "; ".join(problems) or None)
    return MeshStatus(None, None, "; ".join([*problems, MISSING_WARNING]))


def mesh_path_of(settings: Settings) -> Path | None:
    """The MeSH descriptors file to use, or None (logged as a warning) when there is none."""
    status = mesh_status(settings)
    if status.warning:
        log.warning(status.warning)
    return status.path


def validate_mesh_file(path: Path) -> int:
    """The number of descriptors in a `mesh_descriptors_*.jsonl` file; VALIDATION if it is not one."""
    count = 0
    try:
        with path.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                record = json.loads(line)
                if not (
                    isinstance(record, dict) and isinstance(record.get("ui"), str) and isinstance(record.get("name"), str)
                    and isinstance(record.get("terms", []), list)
                ):
                    raise BioMcpError(
                        ErrorCode.VALIDATION, f"{path}:{number} is not a MeSH descriptor {{ui, name, terms}}",
                        {"path": str(path), "line": number},
                    )
                count += 1
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        if isinstance(exc, BioMcpError):
            raise
        raise BioMcpError(
            ErrorCode.VALIDATION, f"cannot read {path} as MeSH descriptors (JSON lines): {exc}", {"path": str(path)}
        ) from None
    if count < MIN_DESCRIPTORS:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"{path} holds {count} descriptors, fewer than the {MIN_DESCRIPTORS} of any MeSH year: truncated?",
            {"path": str(path), "descriptors": count},
        )
    return count


def install_mesh(settings: Settings, source: Path) -> tuple[Path, int]:
    """Validate `source` and copy it to BIO_MCP_HOME/mesh atomically (a reader never sees half a file)."""
    count = validate_mesh_file(source)
    target = installed_mesh_path(settings)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".mesh-", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out, source.open("rb") as src:
            while block := src.read(1 << 20):
                out.write(block)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target, count
