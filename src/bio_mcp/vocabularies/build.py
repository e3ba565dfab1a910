"""`bio-mcp data build-vocabularies`: the package's vocabularies, rebuilt from the shared data folder.

Each table is copied unchanged but compressed (xz), except the Disease Ontology's cross-references,
cut to the MeSH and ICD-10-CM rows the product reads. What BC5CDR's training split teaches the
linker and the adverse-effect model is learnt here, over the same MeSH, leaving out the
development split's abstracts (the shared training file holds them too), so a score on the
development split is never earned on documents the priors learnt from. xz output depends only on
its input, so a rebuild from the same data gives the same bytes.

    bio-mcp data build-vocabularies --data ../shared/data
"""

from __future__ import annotations

import json
import lzma
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.data_files import (
    BC5CDR_PRIORS,
    DO_XREFS,
    DUKE,
    DUKE_FARMACY,
    MESH_DESCRIPTORS,
    MESH_PHARM_ACTIONS,
    THAI_FORMULATIONS,
    THAI_HERB_NAMES,
    VOCABULARIES,
    Shipped,
)
from bio_mcp.eval.pubtator import read_pubtator
from bio_mcp.graph.adverse_priors import adverse_priors_of, priors_to_json
from bio_mcp.graph.linking import build_linker, linker_priors
from bio_mcp.graph.vocabulary import (
    Vocabulary,
    load_pharm_actions,
    load_supplementary_names,
    read_descriptors,
)

# The Dr. Duke tables the product reads (graph/herb_catalog.py, graph/plant_names.py), and those of
# the processed FARMACY/ETHNOBOT dump (constituents, traditional uses).
DUKE_TABLES = ("FNFTAX.csv", "COMMON_NAMES.csv", "AGGREGAC.csv")
DUKE_FARMACY_TABLES = ("duke_plant_constituents.csv", "duke_plant_ethnobotany.csv")
# The cross-reference prefixes graph/icd10.py joins on (quoted, as DO writes them, or not).
DO_PREFIXES = ('"MESH:', '"ICD10CM:', "MESH:", "ICD10CM:")
BC5CDR = Path("bench") / "bc5cdr"


@dataclass(frozen=True)
class Built:
    relative: str
    source_bytes: int
    shipped_bytes: int


def _xz(data: bytes) -> bytes:
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=9 | lzma.PRESET_EXTREME)


def _write(target: Path, data: bytes, source_bytes: int, out: Path) -> Built:
    target.parent.mkdir(parents=True, exist_ok=True)
    shipped = _xz(data) if target.suffix == ".xz" else data
    target.write_bytes(shipped)
    return Built(str(target.relative_to(out)), source_bytes, len(shipped))


def _place(shipped: Shipped, out: Path) -> Path:
    return out / shipped.relative


def do_rows(text: str) -> str:
    """The header and, as written, the MeSH and ICD-10-CM rows of the diseases that have both (only
    those join a MeSH descriptor to a code: graph/icd10.py)."""
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines[1:] if line.split("\t")[-1].startswith(DO_PREFIXES)]
    prefixes: dict[str, set[str]] = {}
    for line in kept:
        doid, _, xref = line.rstrip("\n").split("\t")
        prefixes.setdefault(doid, set()).add(xref.strip('"').split(":", 1)[0])
    return lines[0] + "".join(line for line in kept if len(prefixes[line.split("\t", 1)[0]]) == 2)


def bc5cdr_priors(data: Path, vocabulary: Vocabulary) -> dict[str, object]:
    """What BC5CDR's training documents (those not in the development split) teach."""
    development = {document.pmid for document in read_pubtator(data / BC5CDR / "CDR_DevelopmentSet.PubTator.txt")}
    training = [document for document in read_pubtator(data / BC5CDR / "CDR_TrainingSet.PubTator.txt")
                if document.pmid not in development]
    return {"source": "BC5CDR training split (NCBI, public domain), development split left out",
            "documents": len(training),
            "linker": linker_priors(vocabulary, training,
                                    supplementary=load_supplementary_names(data / "mesh" / "data_pharm_action.tsv")).to_json(),
            "adverse": priors_to_json(adverse_priors_of(training))}


def build_vocabularies(data: Path, out: Path = VOCABULARIES) -> list[Built]:
    """Write every shipped file under `out` from the shared data folder `data`."""
    built: list[Built] = []

    def copy(source: Path, target: Path, transform: Callable[[str], str] | None = None) -> None:
        raw = source.read_bytes()
        content = transform(raw.decode("utf-8")).encode("utf-8") if transform else raw
        built.append(_write(target, content, len(raw), out))

    mesh = data / "mesh"
    copy(mesh / "mesh_descriptors_2024.jsonl", _place(MESH_DESCRIPTORS, out))
    copy(mesh / "data_pharm_action.tsv", _place(MESH_PHARM_ACTIONS, out))
    for table in DUKE_TABLES:
        copy(data / "herbs" / "duke" / table, _place(DUKE, out) / f"{table}.xz")
    shutil.copyfile(data / "herbs" / "duke" / "LICENSE_upstream.txt", _place(DUKE, out) / "LICENSE_upstream.txt")
    for table in DUKE_FARMACY_TABLES:
        copy(data / "herbs" / "duke_farmacy" / table, _place(DUKE_FARMACY, out) / f"{table}.xz")
    copy(data / "ontology" / "do_xrefs.tsv", _place(DO_XREFS, out), do_rows)
    # A few hundred bytes each: compressing them would save nothing, and `bio-mcp kg import` reads them as they are.
    copy(data / "herbs" / "thai_herb_names.tsv", _place(THAI_HERB_NAMES, out))
    copy(data / "herbs" / "thai_formulations.tsv", _place(THAI_FORMULATIONS, out))
    vocabulary = Vocabulary(read_descriptors(mesh / "mesh_descriptors_2024.jsonl"))
    priors = json.dumps(bc5cdr_priors(data, vocabulary), ensure_ascii=False, separators=(",", ":")).encode()
    built.append(_write(_place(BC5CDR_PRIORS, out), priors, len(priors), out))
    return built


def build_relation_model(data: Path, target: Path) -> Built:
    """PPR's training split learnt into a `RelationModel` at `target` (never into the package: PPR
    may not be redistributed), over the shipped-equivalent MeSH, Duke tables and BC5CDR priors."""
    from bio_mcp.eval.ppr import read_ppr
    from bio_mcp.graph.linking import LinkerPriors
    from bio_mcp.graph.relations import train_relation_model

    vocabulary = Vocabulary(read_descriptors(data / "mesh" / "mesh_descriptors_2024.jsonl"))
    priors = bc5cdr_priors(data, vocabulary)
    actions = data / "mesh" / "data_pharm_action.tsv"
    linker = build_linker(vocabulary, LinkerPriors.from_json(priors["linker"]),  # type: ignore[arg-type]
                          supplementary=load_supplementary_names(actions), drugs=frozenset(load_pharm_actions(actions)))
    model = train_relation_model(read_ppr(data / "bench" / "ppr" / "PPR_train_corpus.txt"), linker, vocabulary,
                                 data / "herbs" / "duke")
    content = json.dumps(model.to_json(), ensure_ascii=False, separators=(",", ":")).encode()
    return _write(target, content, len(content), target.parent)
