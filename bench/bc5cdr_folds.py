"""BC5CDR's training split as the benches choose on it (the development split only reports).

The shared training file also holds the development split's 500 abstracts: only the documents not
in the development file are used, split in two by position, and each half is linked by a linker
learnt from the other half (never from the development split), so what is fitted or chosen sees
mentions as imperfect as the ones it will be scored on.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bio_mcp.config import Settings
from bio_mcp.eval.pubtator import PubtatorDocument, read_pubtator
from bio_mcp.graph.adverse_priors import AdversePriors, adverse_priors_of
from bio_mcp.graph.linking import EntityLinker, load_linker_from
from bio_mcp.graph.mentions import Mention
from bio_mcp.mesh_files import mesh_path_of

BC5CDR = Path("..") / "shared" / "data" / "bench" / "bc5cdr"
TRAINING = BC5CDR / "CDR_TrainingSet.PubTator.txt"
DEVELOPMENT = BC5CDR / "CDR_DevelopmentSet.PubTator.txt"


@dataclass(frozen=True)
class TrainingSplit:
    training_path: Path
    mesh_path: Path
    dev_ids: frozenset[str]
    documents: list[PubtatorDocument]

    def folds(self, settings: Settings) -> Iterator[tuple[list[PubtatorDocument], EntityLinker]]:
        """Each half with the linker built without it."""
        for half in (self.documents[::2], self.documents[1::2]):
            held_out = self.dev_ids | {document.pmid for document in half}
            yield half, load_linker_from(self.mesh_path, self.training_path, settings.caches, held_out)

    def linked(self, settings: Settings) -> Iterator[tuple[PubtatorDocument, list[Mention], AdversePriors, int]]:
        """Each document as its half's linker reads it, with the adverse-effect priors of every
        other training document (as a scored document's come from the whole training split) and
        its half (0 or 1)."""
        for fold, (half, linker) in enumerate(self.folds(settings)):
            for document in half:
                priors = adverse_priors_of(other for other in self.documents if other.pmid != document.pmid)
                yield document, linker.link(document.text), priors, fold


def training_split(training: Path, development: Path, settings: Settings) -> TrainingSplit:
    mesh_path = mesh_path_of(settings)
    if mesh_path is None:
        raise SystemExit("MeSH descriptors not found: set BIO_MCP_MESH_PATH")
    dev_ids = frozenset(document.pmid for document in read_pubtator(development))
    documents = [document for document in read_pubtator(training) if document.pmid not in dev_ids]
    return TrainingSplit(training, mesh_path, dev_ids, documents)
