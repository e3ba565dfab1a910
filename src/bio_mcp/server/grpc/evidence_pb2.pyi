from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Audit(_message.Message):
    __slots__ = ("in_hash", "out_hash", "latency_ms", "seed", "status")
    IN_HASH_FIELD_NUMBER: _ClassVar[int]
    OUT_HASH_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    in_hash: str
    out_hash: str
    latency_ms: int
    seed: int
    status: str
    def __init__(self, in_hash: _Optional[str] = ..., out_hash: _Optional[str] = ..., latency_ms: _Optional[int] = ..., seed: _Optional[int] = ..., status: _Optional[str] = ...) -> None: ...

class Coverage(_message.Message):
    __slots__ = ("documents_searched", "names_searched", "sources")
    DOCUMENTS_SEARCHED_FIELD_NUMBER: _ClassVar[int]
    NAMES_SEARCHED_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    documents_searched: int
    names_searched: _containers.RepeatedScalarFieldContainer[str]
    sources: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, documents_searched: _Optional[int] = ..., names_searched: _Optional[_Iterable[str]] = ..., sources: _Optional[_Iterable[str]] = ...) -> None: ...

class HerbRequest(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class HerbNames(_message.Message):
    __slots__ = ("th", "en", "scientific")
    TH_FIELD_NUMBER: _ClassVar[int]
    EN_FIELD_NUMBER: _ClassVar[int]
    SCIENTIFIC_FIELD_NUMBER: _ClassVar[int]
    th: str
    en: str
    scientific: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, th: _Optional[str] = ..., en: _Optional[str] = ..., scientific: _Optional[_Iterable[str]] = ...) -> None: ...

class HerbConstituent(_message.Message):
    __slots__ = ("id", "name", "activities", "sources", "parts", "widespread")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ACTIVITIES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    WIDESPREAD_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    activities: _containers.RepeatedScalarFieldContainer[str]
    sources: _containers.RepeatedScalarFieldContainer[str]
    parts: _containers.RepeatedScalarFieldContainer[str]
    widespread: bool
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., activities: _Optional[_Iterable[str]] = ..., sources: _Optional[_Iterable[str]] = ..., parts: _Optional[_Iterable[str]] = ..., widespread: _Optional[bool] = ...) -> None: ...

class HerbIndication(_message.Message):
    __slots__ = ("icdCode", "description", "id", "icd10cm", "via", "strength", "sources")
    ICDCODE_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    ICD10CM_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    icdCode: str
    description: str
    id: str
    icd10cm: _containers.RepeatedScalarFieldContainer[str]
    via: str
    strength: str
    sources: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, icdCode: _Optional[str] = ..., description: _Optional[str] = ..., id: _Optional[str] = ..., icd10cm: _Optional[_Iterable[str]] = ..., via: _Optional[str] = ..., strength: _Optional[str] = ..., sources: _Optional[_Iterable[str]] = ...) -> None: ...

class HerbTraditionalUse(_message.Message):
    __slots__ = ("kind", "use", "id", "description", "icdCode", "icd10cm", "taxon", "source")
    KIND_FIELD_NUMBER: _ClassVar[int]
    USE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ICDCODE_FIELD_NUMBER: _ClassVar[int]
    ICD10CM_FIELD_NUMBER: _ClassVar[int]
    TAXON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    use: str
    id: str
    description: str
    icdCode: str
    icd10cm: _containers.RepeatedScalarFieldContainer[str]
    taxon: str
    source: str
    def __init__(self, kind: _Optional[str] = ..., use: _Optional[str] = ..., id: _Optional[str] = ..., description: _Optional[str] = ..., icdCode: _Optional[str] = ..., icd10cm: _Optional[_Iterable[str]] = ..., taxon: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class Herb(_message.Message):
    __slots__ = ("id", "names", "parts", "constituents", "indications", "sources", "formulations", "traditional_uses", "coverage", "safety", "indications_note", "audit")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAMES_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    CONSTITUENTS_FIELD_NUMBER: _ClassVar[int]
    INDICATIONS_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    FORMULATIONS_FIELD_NUMBER: _ClassVar[int]
    TRADITIONAL_USES_FIELD_NUMBER: _ClassVar[int]
    COVERAGE_FIELD_NUMBER: _ClassVar[int]
    SAFETY_FIELD_NUMBER: _ClassVar[int]
    INDICATIONS_NOTE_FIELD_NUMBER: _ClassVar[int]
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    id: str
    names: HerbNames
    parts: _containers.RepeatedScalarFieldContainer[str]
    constituents: _containers.RepeatedCompositeFieldContainer[HerbConstituent]
    indications: _containers.RepeatedCompositeFieldContainer[HerbIndication]
    sources: _containers.RepeatedScalarFieldContainer[str]
    formulations: _containers.RepeatedScalarFieldContainer[str]
    traditional_uses: _containers.RepeatedCompositeFieldContainer[HerbTraditionalUse]
    coverage: Coverage
    safety: str
    indications_note: str
    audit: Audit
    def __init__(self, id: _Optional[str] = ..., names: _Optional[_Union[HerbNames, _Mapping]] = ..., parts: _Optional[_Iterable[str]] = ..., constituents: _Optional[_Iterable[_Union[HerbConstituent, _Mapping]]] = ..., indications: _Optional[_Iterable[_Union[HerbIndication, _Mapping]]] = ..., sources: _Optional[_Iterable[str]] = ..., formulations: _Optional[_Iterable[str]] = ..., traditional_uses: _Optional[_Iterable[_Union[HerbTraditionalUse, _Mapping]]] = ..., coverage: _Optional[_Union[Coverage, _Mapping]] = ..., safety: _Optional[str] = ..., indications_note: _Optional[str] = ..., audit: _Optional[_Union[Audit, _Mapping]] = ...) -> None: ...

class PaperRequest(_message.Message):
    __slots__ = ("pmid",)
    PMID_FIELD_NUMBER: _ClassVar[int]
    pmid: str
    def __init__(self, pmid: _Optional[str] = ...) -> None: ...

class Paper(_message.Message):
    __slots__ = ("pmid", "title", "abstract", "authors", "journal", "year", "links", "doi", "pmcid", "source", "complete", "audit")
    PMID_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    ABSTRACT_FIELD_NUMBER: _ClassVar[int]
    AUTHORS_FIELD_NUMBER: _ClassVar[int]
    JOURNAL_FIELD_NUMBER: _ClassVar[int]
    YEAR_FIELD_NUMBER: _ClassVar[int]
    LINKS_FIELD_NUMBER: _ClassVar[int]
    DOI_FIELD_NUMBER: _ClassVar[int]
    PMCID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    COMPLETE_FIELD_NUMBER: _ClassVar[int]
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    pmid: str
    title: str
    abstract: str
    authors: _containers.RepeatedScalarFieldContainer[str]
    journal: str
    year: int
    links: _containers.RepeatedScalarFieldContainer[str]
    doi: str
    pmcid: str
    source: str
    complete: bool
    audit: Audit
    def __init__(self, pmid: _Optional[str] = ..., title: _Optional[str] = ..., abstract: _Optional[str] = ..., authors: _Optional[_Iterable[str]] = ..., journal: _Optional[str] = ..., year: _Optional[int] = ..., links: _Optional[_Iterable[str]] = ..., doi: _Optional[str] = ..., pmcid: _Optional[str] = ..., source: _Optional[str] = ..., complete: _Optional[bool] = ..., audit: _Optional[_Union[Audit, _Mapping]] = ...) -> None: ...

class QueryStart(_message.Message):
    __slots__ = ("type", "id")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    type: str
    id: str
    def __init__(self, type: _Optional[str] = ..., id: _Optional[str] = ...) -> None: ...

class QueryFilters(_message.Message):
    __slots__ = ("relations", "min_strength")
    RELATIONS_FIELD_NUMBER: _ClassVar[int]
    MIN_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    relations: _containers.RepeatedScalarFieldContainer[str]
    min_strength: str
    def __init__(self, relations: _Optional[_Iterable[str]] = ..., min_strength: _Optional[str] = ...) -> None: ...

class QueryKgRequest(_message.Message):
    __slots__ = ("start", "pattern", "filters", "max_depth", "max_paths")
    START_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    MAX_PATHS_FIELD_NUMBER: _ClassVar[int]
    start: QueryStart
    pattern: str
    filters: QueryFilters
    max_depth: int
    max_paths: int
    def __init__(self, start: _Optional[_Union[QueryStart, _Mapping]] = ..., pattern: _Optional[str] = ..., filters: _Optional[_Union[QueryFilters, _Mapping]] = ..., max_depth: _Optional[int] = ..., max_paths: _Optional[int] = ...) -> None: ...

class PathNode(_message.Message):
    __slots__ = ("id", "type", "label", "icd10cm")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ICD10CM_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    label: str
    icd10cm: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., label: _Optional[str] = ..., icd10cm: _Optional[str] = ...) -> None: ...

class PathEvidence(_message.Message):
    __slots__ = ("sentence", "source", "pmid", "document_id")
    SENTENCE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    PMID_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    sentence: str
    source: str
    pmid: str
    document_id: str
    def __init__(self, sentence: _Optional[str] = ..., source: _Optional[str] = ..., pmid: _Optional[str] = ..., document_id: _Optional[str] = ...) -> None: ...

class PathEdge(_message.Message):
    __slots__ = ("src", "type", "dst", "strength", "documents", "evidence", "tier")
    SRC_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DST_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    src: str
    type: str
    dst: str
    strength: str
    documents: int
    evidence: _containers.RepeatedCompositeFieldContainer[PathEvidence]
    tier: str
    def __init__(self, src: _Optional[str] = ..., type: _Optional[str] = ..., dst: _Optional[str] = ..., strength: _Optional[str] = ..., documents: _Optional[int] = ..., evidence: _Optional[_Iterable[_Union[PathEvidence, _Mapping]]] = ..., tier: _Optional[str] = ...) -> None: ...

class PathNodes(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[PathNode]
    def __init__(self, items: _Optional[_Iterable[_Union[PathNode, _Mapping]]] = ...) -> None: ...

class PathEdges(_message.Message):
    __slots__ = ("items",)
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[PathEdge]
    def __init__(self, items: _Optional[_Iterable[_Union[PathEdge, _Mapping]]] = ...) -> None: ...

class QueryKgResponse(_message.Message):
    __slots__ = ("audit", "paths", "edges", "truncated", "coverage", "path_tiers")
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    COVERAGE_FIELD_NUMBER: _ClassVar[int]
    PATH_TIERS_FIELD_NUMBER: _ClassVar[int]
    audit: Audit
    paths: _containers.RepeatedCompositeFieldContainer[PathNodes]
    edges: _containers.RepeatedCompositeFieldContainer[PathEdges]
    truncated: bool
    coverage: Coverage
    path_tiers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, audit: _Optional[_Union[Audit, _Mapping]] = ..., paths: _Optional[_Iterable[_Union[PathNodes, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[PathEdges, _Mapping]]] = ..., truncated: _Optional[bool] = ..., coverage: _Optional[_Union[Coverage, _Mapping]] = ..., path_tiers: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchFilters(_message.Message):
    __slots__ = ("types", "year_from", "year_to", "pub_types")
    TYPES_FIELD_NUMBER: _ClassVar[int]
    YEAR_FROM_FIELD_NUMBER: _ClassVar[int]
    YEAR_TO_FIELD_NUMBER: _ClassVar[int]
    PUB_TYPES_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedScalarFieldContainer[str]
    year_from: int
    year_to: int
    pub_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, types: _Optional[_Iterable[str]] = ..., year_from: _Optional[int] = ..., year_to: _Optional[int] = ..., pub_types: _Optional[_Iterable[str]] = ...) -> None: ...

class HybridSearchRequest(_message.Message):
    __slots__ = ("query", "lang", "filters", "top_k")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    LANG_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    query: str
    lang: str
    filters: SearchFilters
    top_k: int
    def __init__(self, query: _Optional[str] = ..., lang: _Optional[str] = ..., filters: _Optional[_Union[SearchFilters, _Mapping]] = ..., top_k: _Optional[int] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ("id", "type", "title", "snippet", "score", "source", "pmid")
    ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    PMID_FIELD_NUMBER: _ClassVar[int]
    id: str
    type: str
    title: str
    snippet: str
    score: float
    source: str
    pmid: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., title: _Optional[str] = ..., snippet: _Optional[str] = ..., score: _Optional[float] = ..., source: _Optional[str] = ..., pmid: _Optional[str] = ...) -> None: ...

class HybridSearchResponse(_message.Message):
    __slots__ = ("audit", "hits", "lang", "query_en", "entity_ids", "untranslated", "note", "unmatched_terms")
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    HITS_FIELD_NUMBER: _ClassVar[int]
    LANG_FIELD_NUMBER: _ClassVar[int]
    QUERY_EN_FIELD_NUMBER: _ClassVar[int]
    ENTITY_IDS_FIELD_NUMBER: _ClassVar[int]
    UNTRANSLATED_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    UNMATCHED_TERMS_FIELD_NUMBER: _ClassVar[int]
    audit: Audit
    hits: _containers.RepeatedCompositeFieldContainer[SearchHit]
    lang: str
    query_en: str
    entity_ids: _containers.RepeatedScalarFieldContainer[str]
    untranslated: _containers.RepeatedScalarFieldContainer[str]
    note: str
    unmatched_terms: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, audit: _Optional[_Union[Audit, _Mapping]] = ..., hits: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ..., lang: _Optional[str] = ..., query_en: _Optional[str] = ..., entity_ids: _Optional[_Iterable[str]] = ..., untranslated: _Optional[_Iterable[str]] = ..., note: _Optional[str] = ..., unmatched_terms: _Optional[_Iterable[str]] = ...) -> None: ...

class AnswerRetrieval(_message.Message):
    __slots__ = ("top_k",)
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    top_k: int
    def __init__(self, top_k: _Optional[int] = ...) -> None: ...

class RagAnswerRequest(_message.Message):
    __slots__ = ("question", "lang", "retrieval")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    LANG_FIELD_NUMBER: _ClassVar[int]
    RETRIEVAL_FIELD_NUMBER: _ClassVar[int]
    question: str
    lang: str
    retrieval: AnswerRetrieval
    def __init__(self, question: _Optional[str] = ..., lang: _Optional[str] = ..., retrieval: _Optional[_Union[AnswerRetrieval, _Mapping]] = ...) -> None: ...

class Citation(_message.Message):
    __slots__ = ("id", "uri", "title", "span", "number", "quote", "section_id", "anchor", "start", "end", "relevance")
    ID_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SPAN_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    QUOTE_FIELD_NUMBER: _ClassVar[int]
    SECTION_ID_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    uri: str
    title: str
    span: str
    number: int
    quote: str
    section_id: str
    anchor: str
    start: int
    end: int
    relevance: float
    def __init__(self, id: _Optional[str] = ..., uri: _Optional[str] = ..., title: _Optional[str] = ..., span: _Optional[str] = ..., number: _Optional[int] = ..., quote: _Optional[str] = ..., section_id: _Optional[str] = ..., anchor: _Optional[str] = ..., start: _Optional[int] = ..., end: _Optional[int] = ..., relevance: _Optional[float] = ...) -> None: ...

class AnswerScores(_message.Message):
    __slots__ = ("retrieval", "answer_conf", "signals")
    class SignalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    RETRIEVAL_FIELD_NUMBER: _ClassVar[int]
    ANSWER_CONF_FIELD_NUMBER: _ClassVar[int]
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    retrieval: float
    answer_conf: float
    signals: _containers.ScalarMap[str, float]
    def __init__(self, retrieval: _Optional[float] = ..., answer_conf: _Optional[float] = ..., signals: _Optional[_Mapping[str, float]] = ...) -> None: ...

class WithholdReason(_message.Message):
    __slots__ = ("code", "message")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class AnswerFocus(_message.Message):
    __slots__ = ("subject", "outcome", "interaction", "off_topic_sentences")
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    INTERACTION_FIELD_NUMBER: _ClassVar[int]
    OFF_TOPIC_SENTENCES_FIELD_NUMBER: _ClassVar[int]
    subject: str
    outcome: str
    interaction: bool
    off_topic_sentences: int
    def __init__(self, subject: _Optional[str] = ..., outcome: _Optional[str] = ..., interaction: _Optional[bool] = ..., off_topic_sentences: _Optional[int] = ...) -> None: ...

class RagAnswerResponse(_message.Message):
    __slots__ = ("audit", "answer", "citations", "scores", "withheld", "reason", "lang", "mode", "dropped_sentences", "verdict", "focus", "verdict_citations", "verdict_scope")
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    CITATIONS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WITHHELD_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    LANG_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    DROPPED_SENTENCES_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    FOCUS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_CITATIONS_FIELD_NUMBER: _ClassVar[int]
    VERDICT_SCOPE_FIELD_NUMBER: _ClassVar[int]
    audit: Audit
    answer: str
    citations: _containers.RepeatedCompositeFieldContainer[Citation]
    scores: AnswerScores
    withheld: bool
    reason: WithholdReason
    lang: str
    mode: str
    dropped_sentences: int
    verdict: str
    focus: AnswerFocus
    verdict_citations: _containers.RepeatedScalarFieldContainer[int]
    verdict_scope: str
    def __init__(self, audit: _Optional[_Union[Audit, _Mapping]] = ..., answer: _Optional[str] = ..., citations: _Optional[_Iterable[_Union[Citation, _Mapping]]] = ..., scores: _Optional[_Union[AnswerScores, _Mapping]] = ..., withheld: _Optional[bool] = ..., reason: _Optional[_Union[WithholdReason, _Mapping]] = ..., lang: _Optional[str] = ..., mode: _Optional[str] = ..., dropped_sentences: _Optional[int] = ..., verdict: _Optional[str] = ..., focus: _Optional[_Union[AnswerFocus, _Mapping]] = ..., verdict_citations: _Optional[_Iterable[int]] = ..., verdict_scope: _Optional[str] = ...) -> None: ...

class FindContraindicationsRequest(_message.Message):
    __slots__ = ("herb_ids", "formulation_ids")
    HERB_IDS_FIELD_NUMBER: _ClassVar[int]
    FORMULATION_IDS_FIELD_NUMBER: _ClassVar[int]
    herb_ids: _containers.RepeatedScalarFieldContainer[str]
    formulation_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, herb_ids: _Optional[_Iterable[str]] = ..., formulation_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Span(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: int
    end: int
    def __init__(self, start: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...

class ContraindicationResult(_message.Message):
    __slots__ = ("entity_id", "type", "contraindication", "evidence", "strength", "relation", "target_id", "herb_id", "via", "source", "document_id", "pmid", "span", "documents", "sources", "study", "quote_checked")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTRAINDICATION_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    STRENGTH_FIELD_NUMBER: _ClassVar[int]
    RELATION_FIELD_NUMBER: _ClassVar[int]
    TARGET_ID_FIELD_NUMBER: _ClassVar[int]
    HERB_ID_FIELD_NUMBER: _ClassVar[int]
    VIA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    PMID_FIELD_NUMBER: _ClassVar[int]
    SPAN_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    STUDY_FIELD_NUMBER: _ClassVar[int]
    QUOTE_CHECKED_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    type: str
    contraindication: str
    evidence: str
    strength: str
    relation: str
    target_id: str
    herb_id: str
    via: str
    source: str
    document_id: str
    pmid: str
    span: Span
    documents: int
    sources: _containers.RepeatedScalarFieldContainer[str]
    study: str
    quote_checked: bool
    def __init__(self, entity_id: _Optional[str] = ..., type: _Optional[str] = ..., contraindication: _Optional[str] = ..., evidence: _Optional[str] = ..., strength: _Optional[str] = ..., relation: _Optional[str] = ..., target_id: _Optional[str] = ..., herb_id: _Optional[str] = ..., via: _Optional[str] = ..., source: _Optional[str] = ..., document_id: _Optional[str] = ..., pmid: _Optional[str] = ..., span: _Optional[_Union[Span, _Mapping]] = ..., documents: _Optional[int] = ..., sources: _Optional[_Iterable[str]] = ..., study: _Optional[str] = ..., quote_checked: _Optional[bool] = ...) -> None: ...

class CheckedEntity(_message.Message):
    __slots__ = ("entity_id", "type", "label", "findings", "formulation", "recipe_names")
    ENTITY_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    FORMULATION_FIELD_NUMBER: _ClassVar[int]
    RECIPE_NAMES_FIELD_NUMBER: _ClassVar[int]
    entity_id: str
    type: str
    label: str
    findings: int
    formulation: str
    recipe_names: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entity_id: _Optional[str] = ..., type: _Optional[str] = ..., label: _Optional[str] = ..., findings: _Optional[int] = ..., formulation: _Optional[str] = ..., recipe_names: _Optional[_Iterable[str]] = ...) -> None: ...

class FindContraindicationsResponse(_message.Message):
    __slots__ = ("audit", "results", "checked", "coverage")
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    CHECKED_FIELD_NUMBER: _ClassVar[int]
    COVERAGE_FIELD_NUMBER: _ClassVar[int]
    audit: Audit
    results: _containers.RepeatedCompositeFieldContainer[ContraindicationResult]
    checked: _containers.RepeatedCompositeFieldContainer[CheckedEntity]
    coverage: Coverage
    def __init__(self, audit: _Optional[_Union[Audit, _Mapping]] = ..., results: _Optional[_Iterable[_Union[ContraindicationResult, _Mapping]]] = ..., checked: _Optional[_Iterable[_Union[CheckedEntity, _Mapping]]] = ..., coverage: _Optional[_Union[Coverage, _Mapping]] = ...) -> None: ...

class EvalRunRequest(_message.Message):
    __slots__ = ("set", "metrics", "params")
    SET_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    set: str
    metrics: _containers.RepeatedScalarFieldContainer[str]
    params: _struct_pb2.Struct
    def __init__(self, set: _Optional[str] = ..., metrics: _Optional[_Iterable[str]] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class MetricValue(_message.Message):
    __slots__ = ("name", "value", "note")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: float
    note: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[float] = ..., note: _Optional[str] = ...) -> None: ...

class DatasetSummary(_message.Message):
    __slots__ = ("name", "description", "queries", "documents", "metrics")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    DOCUMENTS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    queries: int
    documents: int
    metrics: _containers.RepeatedCompositeFieldContainer[MetricValue]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., queries: _Optional[int] = ..., documents: _Optional[int] = ..., metrics: _Optional[_Iterable[_Union[MetricValue, _Mapping]]] = ...) -> None: ...

class EvalRunResponse(_message.Message):
    __slots__ = ("audit", "metrics", "report_uri", "report_id", "datasets")
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    REPORT_URI_FIELD_NUMBER: _ClassVar[int]
    REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    DATASETS_FIELD_NUMBER: _ClassVar[int]
    audit: Audit
    metrics: _containers.RepeatedCompositeFieldContainer[MetricValue]
    report_uri: str
    report_id: str
    datasets: _containers.RepeatedCompositeFieldContainer[DatasetSummary]
    def __init__(self, audit: _Optional[_Union[Audit, _Mapping]] = ..., metrics: _Optional[_Iterable[_Union[MetricValue, _Mapping]]] = ..., report_uri: _Optional[str] = ..., report_id: _Optional[str] = ..., datasets: _Optional[_Iterable[_Union[DatasetSummary, _Mapping]]] = ...) -> None: ...

class EvalReportRequest(_message.Message):
    __slots__ = ("report_id",)
    REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    report_id: str
    def __init__(self, report_id: _Optional[str] = ...) -> None: ...

class EvalReport(_message.Message):
    __slots__ = ("set", "params", "metrics", "datasets", "queries", "answers", "report_id", "audit")
    SET_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    DATASETS_FIELD_NUMBER: _ClassVar[int]
    QUERIES_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    REPORT_ID_FIELD_NUMBER: _ClassVar[int]
    AUDIT_FIELD_NUMBER: _ClassVar[int]
    set: str
    params: _struct_pb2.Struct
    metrics: _containers.RepeatedCompositeFieldContainer[MetricValue]
    datasets: _containers.RepeatedCompositeFieldContainer[DatasetSummary]
    queries: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    answers: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    report_id: str
    audit: Audit
    def __init__(self, set: _Optional[str] = ..., params: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., metrics: _Optional[_Iterable[_Union[MetricValue, _Mapping]]] = ..., datasets: _Optional[_Iterable[_Union[DatasetSummary, _Mapping]]] = ..., queries: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., answers: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., report_id: _Optional[str] = ..., audit: _Optional[_Union[Audit, _Mapping]] = ...) -> None: ...
