"""HTTP clients for the fakes (`fakes`, `running_fakes` and `fakes_app` come from tests/conftest.py)
and an independent reading of the recorded PubMed corpus to check the fake's answers against."""

from __future__ import annotations

import gzip
import re
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest
from lxml import etree

from bio_mcp.testing import RunningFakes


@pytest.fixture
async def eutils(fakes: RunningFakes) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(base_url=fakes.eutils_base_url, timeout=30) as client:
        yield client


@pytest.fixture
async def ctgov(fakes: RunningFakes) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(base_url=fakes.ctgov_base_url, timeout=30) as client:
        yield client


class RecordedPubmed:
    """An independent reading of the recorded corpus (plain lxml), to check the fake's answers against."""

    def __init__(self, data_dir: Path) -> None:
        with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as stream:
            root = etree.parse(stream).getroot()
        self.elements = {element.findtext(".//PMID"): element for element in root}

    @staticmethod
    def words(text: str) -> list[str]:
        folded = unicodedata.normalize("NFKD", text)
        return re.findall(r"[a-z0-9]+", "".join(c for c in folded if not unicodedata.combining(c)).lower())

    def texts(self, pmid: str, xpath: str) -> list[str]:
        return [" ".join("".join(node.itertext()).split()) for node in self.elements[pmid].xpath(xpath)]

    def having_word(self, word: str, xpath: str) -> set[str]:
        """PMIDs with `word` as a whole word in any node at `xpath`."""
        return {
            pmid
            for pmid in self.elements
            if any(word in self.words(text) for text in self.texts(pmid, xpath))
        }

    def having_value(self, value: str, xpath: str) -> set[str]:
        """PMIDs with a node at `xpath` whose whole text is `value` (case-insensitive)."""
        return {
            pmid
            for pmid in self.elements
            if any(text.lower() == value.lower() for text in self.texts(pmid, xpath))
        }


@pytest.fixture(scope="session")
def recorded_pubmed(data_dir: Path) -> RecordedPubmed:
    return RecordedPubmed(data_dir)
