"""PubTator3's entity annotations of one publication, as BioC JSON carries them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

EntityType = Literal["Gene", "Variant", "Species", "CellLine", "Disease", "Chemical"]


class PubtatorModel(BaseModel):
    model_config = ConfigDict(frozen=True)


class Annotation(PubtatorModel):
    type: EntityType
    text: str = Field(description="As written in the passage")
    identifier: str | None = Field(
        default=None,
        description="NCBI Gene id, MESH:..., NCBI Taxonomy id, CVCL_..., rs id or HGVS; null when not normalised",
    )
    name: str | None = Field(default=None, description="PubTator3's normalised name")
    offset: int = Field(description="Character offset in the document (BioC: from the start of the title)")
    length: int
    section: str | None = Field(default=None, description="title, abstract or a full-text section")
    gene: str | None = Field(default=None, description="A variant's gene (NCBI Gene id), as PubTator3 assigns it")


class PublicationAnnotations(PubtatorModel):
    pmid: str
    pmcid: str | None = None
    annotations: list[Annotation]


class Passage(PubtatorModel):
    """A BioC passage's text and where it starts in the document (the annotations' offsets count from there)."""

    offset: int
    text: str


class PublicationText(PubtatorModel):
    """A publication's annotations with the passage texts they point into: what the knowledge graph
    needs to place each mention in the stored text."""

    annotations: PublicationAnnotations
    passages: list[Passage]
