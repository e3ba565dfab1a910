"""Where the MeSH descriptors file is, wherever the server starts, and how a newer year gets there.

Resolution order (`mesh_path_of`, the one function every part uses):

1. `BIO_MCP_MESH_PATH`, when it names a file;
2. the copy `bio-mcp data install-mesh FILE` put under `BIO_MCP_HOME/mesh/`;
3. the MeSH 2024 descriptors shipped in the package (`bio_mcp/vocabularies/mesh/`, `data_files`).

`read_mesh_descriptors` is the one reader of the descriptor file: the vocabulary, the linker's
catalog, `install-mesh`'s check and the fake E-utilities' MeSH tree all read it through it.

`install-mesh` takes our JSON lines (`{ui, name, terms, tree_numbers}`, plain, .gz or .xz) or NLM's
own descriptor XML (`desc2025.xml`, gzipped or not), read as a stream; from the XML it also writes
the pharmacological actions (`data_pharm_action.tsv`) beside the descriptors.

Missing MeSH (a BIO_MCP_MESH_PATH naming nothing, or a package with its data stripped) is a working
but degraded configuration (indications are searched as typed), so it is reported loudly: a warning
in the log (`mesh_status`) and in `pubmed-connect://info`.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import lzma
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from lxml import etree

from bio_mcp.config import Settings
from bio_mcp.data_files import MESH_DESCRIPTORS, MESH_PHARM_ACTIONS, member, open_binary, open_text
from bio_mcp.errors import BioMcpError, ErrorCode

log = logging.getLogger("bio_mcp.mesh")

INSTALLED_NAME = "mesh_descriptors.jsonl"
PHARM_ACTIONS_NAME = "data_pharm_action.tsv"
PHARM_ACTIONS_COLUMNS = ("DescriptorUI", "DescriptorName", "PharmActionUI", "PharmActionName")
# Far fewer descriptors than a MeSH year has (about 30,000) means a truncated or wrong file.
MIN_DESCRIPTORS = 1000
MISSING_WARNING = (
    "MeSH descriptors not found: indications are searched as typed, without MeSH synonyms. Install them "
    "with `bio-mcp data install-mesh FILE` (NLM's desc20XX.xml or a mesh_descriptors_*.jsonl) or set BIO_MCP_MESH_PATH"
)


@dataclass(frozen=True)
class MeshStatus:
    path: Path | None
    # "BIO_MCP_MESH_PATH", "BIO_MCP_HOME" or "package"; None when missing.
    source: str | None
    warning: str | None

    def to_json(self) -> dict[str, str | None]:
        return {"path": str(self.path) if self.path else None, "source": self.source, "warning": self.warning}


def installed_mesh_path(settings: Settings) -> Path:
    return settings.home / "mesh" / INSTALLED_NAME


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
    if MESH_DESCRIPTORS.path.is_file():
        return MeshStatus(MESH_DESCRIPTORS.path, "package", "; ".join(problems) or None)
    return MeshStatus(None, None, "; ".join([*problems, MISSING_WARNING]))


def mesh_path_of(settings: Settings) -> Path | None:
    """The MeSH descriptors file to use, or None (logged as a warning) when there is none."""
    status = mesh_status(settings)
    if status.warning:
        log.warning(status.warning)
    return status.path


def pharm_actions_path(mesh_path: Path) -> Path | None:
    """`data_pharm_action.tsv` (plain or compressed) beside the descriptor file, else the shipped
    MeSH 2024 actions (a descriptor's UI stays the same from year to year); None without either."""
    return member(mesh_path.parent, PHARM_ACTIONS_NAME) or (
        MESH_PHARM_ACTIONS.path if MESH_PHARM_ACTIONS.path.is_file() else None
    )


# ---- the descriptor file (JSON lines) -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MeshDescriptor:
    ui: str
    name: str
    # The name and every entry term, in file order.
    terms: list[str]
    tree_numbers: list[str]

    def to_json(self) -> dict[str, object]:
        return {"ui": self.ui, "name": self.name, "terms": self.terms, "tree_numbers": self.tree_numbers}


def _is_strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def read_mesh_descriptors(path: Path) -> Iterator[MeshDescriptor]:
    """The descriptors of a `mesh_descriptors_*.jsonl` file (`{ui, name, terms, tree_numbers}` a line;
    plain, .gz or .xz), one at a time. A file that is not one is a VALIDATION error naming the file
    and, for a bad record, its line."""
    try:
        with open_text(path) as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                record = json.loads(line)
                if not (
                    isinstance(record, dict) and isinstance(record.get("ui"), str) and isinstance(record.get("name"), str)
                    and _is_strings(record.get("terms", [])) and _is_strings(record.get("tree_numbers", []))
                ):
                    raise BioMcpError(
                        ErrorCode.VALIDATION, f"{path}:{number} is not a MeSH descriptor {{ui, name, terms, tree_numbers}}",
                        {"path": str(path), "line": number},
                    )
                yield MeshDescriptor(record["ui"], record["name"], record.get("terms", []), record.get("tree_numbers", []))
    except (OSError, EOFError, lzma.LZMAError, UnicodeDecodeError, ValueError) as exc:
        raise BioMcpError(
            ErrorCode.VALIDATION, f"cannot read {path} as MeSH descriptors (JSON lines): {exc}", {"path": str(path)}
        ) from None


# ---- NLM's descriptor XML ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class XmlDescriptor(MeshDescriptor):
    # (action UI, action name) of the PharmacologicalActionList.
    actions: list[tuple[str, str]]


def _text(element: etree._Element | None) -> str:
    return " ".join((element.text or "").split()) if element is not None else ""


def read_descriptor_xml(stream: IO[bytes]) -> Iterator[XmlDescriptor]:
    """NLM's `desc20XX.xml` (DescriptorRecordSet), one DescriptorRecord at a time: each record is
    cleared once read, so memory stays flat over the 300 MB file. The terms are the record's name,
    then every concept's terms in file order (the preferred concept first, as NLM writes it)."""
    try:
        for _, record in etree.iterparse(stream, events=("end",), tag="DescriptorRecord", resolve_entities=False,
                                         load_dtd=False, no_network=True, huge_tree=True):
            name = _text(record.find("DescriptorName/String"))
            terms = [name, *(_text(term) for term in record.iterfind("ConceptList/Concept/TermList/Term/String"))]
            actions = [
                (_text(action.find("DescriptorUI")), _text(action.find("DescriptorName/String")))
                for action in record.iterfind("PharmacologicalActionList/PharmacologicalAction/DescriptorReferredTo")
            ]
            yield XmlDescriptor(
                ui=_text(record.find("DescriptorUI")), name=name, terms=list(dict.fromkeys(t for t in terms if t)),
                tree_numbers=[_text(tree) for tree in record.iterfind("TreeNumberList/TreeNumber")], actions=actions,
            )
            record.clear()
            while record.getprevious() is not None:
                del record.getparent()[0]
    except etree.XMLSyntaxError as exc:
        raise BioMcpError(ErrorCode.VALIDATION, f"not MeSH descriptor XML: {exc}", {}) from None


def _is_xml(path: Path) -> bool:
    with open_binary(path) as handle:
        head = handle.read(512).lstrip()
    return head.startswith(b"<")


# ---- validation and installation -----------------------------------------------------------------


def validate_mesh_file(path: Path) -> int:
    """The number of descriptors in a `mesh_descriptors_*.jsonl` file (plain, .gz or .xz);
    VALIDATION if it is not one."""
    count = sum(1 for _ in read_mesh_descriptors(path))
    _enough(path, count)
    return count


def _enough(path: Path, count: int) -> None:
    if count < MIN_DESCRIPTORS:
        raise BioMcpError(
            ErrorCode.VALIDATION,
            f"{path} holds {count} descriptors, fewer than the {MIN_DESCRIPTORS} of any MeSH year: truncated?",
            {"path": str(path), "descriptors": count},
        )


def _write_atomically(target: Path, write: Callable[[IO[bytes]], object]) -> None:
    """`write(binary handle)` into a temporary file beside `target`, then renamed over it: a reader
    never sees half a file, and a failed write leaves the old one."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".mesh-", suffix=".part", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _install_xml(source: Path, target: Path) -> int:
    """Descriptors to JSON lines and actions to `data_pharm_action.tsv`, both checked before either replaces
    the installed copy."""
    actions = io.StringIO()
    writer = csv.writer(actions, delimiter="\t", lineterminator="\n")
    writer.writerow(PHARM_ACTIONS_COLUMNS)
    count = 0
    lines = io.BytesIO()
    try:
        with open_binary(source) as stream:
            for descriptor in read_descriptor_xml(stream):
                if not descriptor.ui or not descriptor.name:
                    raise BioMcpError(ErrorCode.VALIDATION, f"{source}: a DescriptorRecord without UI or name",
                                      {"path": str(source), "record": count + 1})
                lines.write(json.dumps(descriptor.to_json(), ensure_ascii=False).encode() + b"\n")
                writer.writerows((descriptor.ui, descriptor.name, ui, name) for ui, name in descriptor.actions)
                count += 1
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise BioMcpError(ErrorCode.VALIDATION, f"cannot read {source}: {exc}", {"path": str(source)}) from None
    _enough(source, count)
    _write_atomically(target, lambda out: out.write(lines.getvalue()))
    _write_atomically(target.with_name(PHARM_ACTIONS_NAME), lambda out: out.write(actions.getvalue().encode()))
    return count


def install_mesh(settings: Settings, source: Path) -> tuple[Path, int]:
    """Validate `source` (NLM's descriptor XML, or our JSON lines) and install it under BIO_MCP_HOME/mesh."""
    target = installed_mesh_path(settings)
    try:
        xml = _is_xml(source)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise BioMcpError(ErrorCode.VALIDATION, f"cannot read {source}: {exc}", {"path": str(source)}) from None
    if xml:
        return target, _install_xml(source, target)
    count = validate_mesh_file(source)

    def copy(out: IO[bytes]) -> None:
        with open_binary(source) as src:
            while block := src.read(1 << 20):
                out.write(block)

    _write_atomically(target, copy)
    # Actions installed with an earlier XML belong to that year, not to these descriptors.
    target.with_name(PHARM_ACTIONS_NAME).unlink(missing_ok=True)
    return target, count
