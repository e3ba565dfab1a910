"""Settings naming the data files Bio-MCP reads (each defaults to what the package ships)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import BaseSettings

from bio_mcp.config.fields import SETTINGS_CONFIG, OptionalPath


class DataSettings(BaseSettings):
    """The data files Bio-MCP reads; each defaults to what the package ships."""

    model_config = SETTINGS_CONFIG

    # MeSH descriptors (JSON lines, plain or compressed): the linker, the graph, the analyst's indications.
    # Default: the copy `bio-mcp data install-mesh` put under BIO_MCP_HOME, else MeSH 2024 shipped in the package.
    mesh_path: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_MESH_PATH",
        description='MeSH descriptors as JSON lines (default: the installed copy, else the shipped MeSH 2024).',
    )
    # Derived, rebuildable files (the compiled MeSH vocabulary, the entity linker), keyed by the
    # hashes of what they were built from; default BIO_MCP_HOME/cache. Several homes may share one.
    cache_dir: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_CACHE_DIR",
        description='Folder of derived, rebuildable files (vocabulary, linker); default BIO_MCP_HOME/cache.',
    )
    # BC5CDR-style PubTator file whose mention -> MeSH pairs the entity linker adds to MeSH's own terms
    # (default: what the package ships of BC5CDR's training split, vocabularies/trained/).
    linker_training_path: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_LINKER_TRAINING",
        description='PubTator file whose mention-to-MeSH pairs the entity linker adds (default: shipped).',
    )
    # Dr. Duke's Phytochemical and Ethnobotanical Databases (CSV folder: FNFTAX, COMMON_NAMES, AGGREGAC):
    # herb taxa and common names, constituent activities. Default: the tables shipped in the package.
    duke_dir: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_DUKE_DIR",
        description="Dr. Duke's Phytochemical and Ethnobotanical tables folder (default: shipped).",
    )
    # Dr. Duke's plant-to-constituent and plant-to-traditional-use tables as processed CSV
    # (duke_plant_constituents.csv, duke_plant_ethnobotany.csv): herbs' constituents for
    # `bio-mcp kg herbs`, their traditional uses in kg://herb. Default: the tables shipped in the package.
    duke_farmacy_dir: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_DUKE_FARMACY_DIR",
        description="Dr. Duke's plant-to-constituent and plant-to-traditional-use tables folder (default: shipped).",
    )
    # The Disease Ontology's cross-references (allXREFinDO.tsv: DOID, label, xref): MeSH -> ICD-10-CM
    # codes of indications. Default: the MESH and ICD10CM rows shipped in the package.
    do_xrefs_path: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_DO_XREFS_PATH",
        description="The Disease Ontology's cross-references file (MeSH to ICD-10-CM; default: shipped).",
    )
    # Relation extraction: PPR's training split, which the cue model and the plant and phenotype names
    # are learnt from, or the model `bio-mcp data build-vocabularies --relation-model` built from it
    # (PPR may not be shipped; without it the untrained cue rules of graph/relation_cues.py run).
    # Plant taxa and common names come from duke_dir.
    relations_training_path: OptionalPath = Field(
        default=None, validation_alias="BIO_MCP_RELATIONS_TRAINING",
        description='PPR training split, or the relation model built from it, for plant relation extraction.',
    )
