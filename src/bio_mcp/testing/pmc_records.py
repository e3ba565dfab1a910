"""The real PubMed Central full-text records of the shared data, as the fake EFetch db=pmc serves them.

Three JATS articles recorded from EFetch db=pmc: PMC3040717 and PMC6329583
(`ncbi/biomcp/ncbi_efetch_pmc/`) and PMC3299399 (`ncbi/biocommons_eutils/extracted_bodies/`).
Each is kept as its `<article>` element's bytes, keyed by the PMC id's digits, with its PMID (for
ELink pubmed_pmc).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from bio_mcp.sources.ncbi.xml import parse_xml

PMC_FILES = (
    "ncbi/biomcp/ncbi_efetch_pmc/pmc3040717.xml",
    "ncbi/biomcp/ncbi_efetch_pmc/pmc6329583.xml",
    "ncbi/biocommons_eutils/extracted_bodies/test_eutils_xmlfacades_pubmedcentralarticle_PMC3299399_0.xml",
)
PMC_DECLARATION = (
    '<?xml version="1.0"  ?><!DOCTYPE pmc-articleset PUBLIC "-//NLM//DTD ARTICLE SET 2.0//EN" '
    '"https://dtd.nlm.nih.gov/ncbi/pmc/articleset/nlm-articleset-2.0.dtd">'
)


@dataclass(frozen=True)
class PmcRecord:
    pmc_number: str
    pmid: str | None
    xml: bytes


def _ids(article: etree._Element) -> dict[str, str]:
    return {
        element.get("pub-id-type") or "": (element.text or "").strip()
        for element in article.findall("front/article-meta/article-id")
    }


def load_pmc_records(data_dir: Path) -> dict[str, PmcRecord]:
    """The recorded PMC articles found under `data_dir`, keyed by PMC number (digits only)."""
    records: dict[str, PmcRecord] = {}
    for relative in PMC_FILES:
        path = Path(data_dir) / relative
        if not path.is_file():
            continue
        root = parse_xml(path.read_bytes())
        for article in [root] if root.tag == "article" else root.findall("article"):
            ids = _ids(article)
            number = (ids.get("pmcid") or ids.get("pmc") or "").upper().removeprefix("PMC")
            if number:
                records[number] = PmcRecord(number, ids.get("pmid") or None, etree.tostring(article))
    return records


def pmc_articleset(records: list[PmcRecord]) -> bytes:
    return PMC_DECLARATION.encode() + b"<pmc-articleset>" + b"".join(r.xml for r in records) + b"</pmc-articleset>"
