"""What the Europe PMC REST API's search, citations and references answers hold, as plain records."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FullTextLink:
    url: str
    availability: str | None = None
    style: str | None = None
    site: str | None = None


@dataclass(frozen=True)
class EpmcRecord:
    """One search hit (lite or core) or one citing/cited work."""

    id: str
    source: str
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    title: str | None = None
    authors: str | None = None
    journal: str | None = None
    pub_year: str | None = None
    pub_date: str | None = None
    pub_types: tuple[str, ...] = ()
    is_open_access: bool | None = None
    in_pmc: bool | None = None
    cited_by_count: int | None = None
    abstract: str | None = None
    full_text_links: tuple[FullTextLink, ...] = ()

    @property
    def is_preprint(self) -> bool:
        return self.source == "PPR" or "preprint" in self.pub_types


@dataclass(frozen=True)
class EpmcSearchPage:
    hit_count: int
    records: list[EpmcRecord] = field(default_factory=list)
    # Absent on the last page: Europe PMC's documented end-of-results signal.
    next_cursor: str | None = None
    query: str | None = None


@dataclass(frozen=True)
class EpmcLinkPage:
    """A page of a paper's citations or references; hit_count is None when the service gave none."""

    hit_count: int | None
    records: list[EpmcRecord] = field(default_factory=list)
