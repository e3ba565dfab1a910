"""BM25 over chunk texts (or whole documents) with tantivy, on disk or in memory.

Fields: ``uuid`` and ``pmid`` (raw, stored: the UUID is the delete key), ``year`` (integer fast
field, for range filters), ``pub_types`` (raw, multi-valued, for filters) and ``text`` (the chunk
text, title included, stored only in an index opened with `stored_text`, from which `texts` reads
a document's chunks back; analysed by `ANALYZER_NAME`: tantivy's simple tokenizer, tokens over 40
characters dropped, lower-cased, English Snowball stemming), after Thai runs are cut into words
(`thai_words.spaced_thai`, on documents and queries alike). On SciFact (train, BM25 alone over
230-token chunks, nDCG@10) one field holding title and body scored 0.687 against 0.661 and 0.606
for a separate title field boosted 1 and 2; stop-word removal lifted BM25 alone to 0.691 but not
the hybrid (0.7395 against 0.7397), so there is neither.

Queries never go through tantivy's query parser: the query text is run through the same analyzer
and each distinct token becomes a term query, OR-ed together. So quotes, colons, parentheses,
AND/OR/NOT, wildcards and any Unicode are just text, and a query with no tokens (punctuation only)
matches nothing instead of raising. Filters are non-scoring clauses of the same boolean query,
applied inside the search, so they never starve the top-k.

Write semantics: `add`, `replace` and `delete` are staged in tantivy's writer and invisible to
`search` until `commit()`, which persists them (crash-safe from then on) and reloads the searcher.
A `replace` is a delete plus an add in the same commit, so a reader never sees the chunk missing
or twice. One process owns the writer of an on-disk index (tantivy holds a lock file).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tantivy

from bio_mcp.search.thai_words import spaced_thai

ANALYZER_NAME = "bio_en"
SCHEMA_VERSION = "bm25-v1"
MAX_QUERY_TERMS = 128
_WRITER_HEAP_BYTES = 64_000_000


@dataclass(frozen=True, slots=True)
class BM25Doc:
    uuid: str
    pmid: str
    text: str
    year: int | None = None
    pub_types: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BM25Hit:
    uuid: str
    pmid: str
    score: float


def build_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema(stored_text: bool) -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("uuid", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("pmid", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field("year", indexed=True, fast=True)
    builder.add_text_field("pub_types", tokenizer_name="raw", index_option="basic")
    builder.add_text_field("text", stored=stored_text, tokenizer_name=ANALYZER_NAME, index_option="freq")
    return builder.build()


class BM25Index:
    """A tantivy index in `folder`, or in memory when `folder` is None; with `stored_text` it keeps
    each entry's text for `texts`."""

    def __init__(self, folder: Path | None = None, *, stored_text: bool = False) -> None:
        self.folder = Path(folder) if folder is not None else None
        self._schema = _schema(stored_text)
        schema = f"{SCHEMA_VERSION}+text" if stored_text else SCHEMA_VERSION
        self._analyzer = build_analyzer()
        if self.folder is None:
            self._index = tantivy.Index(self._schema)
        else:
            self.folder.mkdir(parents=True, exist_ok=True)
            marker = self.folder / "bm25.json"
            if marker.is_file() and json.loads(marker.read_text()).get("schema") != schema:
                raise ValueError(f"the BM25 index in {self.folder} has another schema; rebuild it")
            self._index = tantivy.Index(self._schema, path=str(self.folder), reuse=True)
            marker.write_text(json.dumps({"schema": schema}))
        self._index.register_tokenizer(ANALYZER_NAME, self._analyzer)
        self._writer: tantivy.IndexWriter | None = None

    def _write(self) -> tantivy.IndexWriter:
        if self._writer is None:
            self._writer = self._index.writer(_WRITER_HEAP_BYTES, 1)
        return self._writer

    def analyze(self, text: str) -> list[str]:
        """The distinct index terms of `text`, in order of first appearance."""
        return list(dict.fromkeys(self._analyzer.analyze(spaced_thai(text))))

    def add(self, docs: Iterable[BM25Doc]) -> None:
        writer = self._write()
        for doc in docs:
            document = tantivy.Document()
            document.add_text("uuid", doc.uuid)
            document.add_text("pmid", doc.pmid)
            document.add_text("text", spaced_thai(doc.text))
            if doc.year is not None:
                document.add_integer("year", doc.year)
            for pub_type in doc.pub_types:
                document.add_text("pub_types", pub_type)
            writer.add_document(document)

    def delete(self, uuids: Iterable[str]) -> None:
        writer = self._write()
        for uuid in uuids:
            writer.delete_documents_by_term("uuid", uuid)

    def replace(self, docs: Iterable[BM25Doc]) -> None:
        items = list(docs)
        self.delete(doc.uuid for doc in items)
        self.add(items)

    def clear(self) -> None:
        self._write().delete_all_documents()

    def commit(self) -> None:
        if self._writer is not None:
            self._writer.commit()
            # Dropping the writer releases tantivy's lock (another process, e.g. a CLI rebuild,
            # may write next); waiting for its merges first keeps segments from piling up.
            self._writer.wait_merging_threads()
            self._writer = None
        self._index.reload()

    @property
    def count(self) -> int:
        return int(self._index.searcher().num_docs)

    def uuids(self) -> list[str]:
        """Every committed UUID (reads every stored document: for reconciliation, not hot paths)."""
        return sorted(self._stored("uuid"))

    def pmids(self) -> set[str]:
        """Every committed entry's document key (reads every stored document, as `uuids` does)."""
        return set(self._stored("pmid"))

    def pmids_of(self, uuids: Iterable[str]) -> dict[str, str]:
        """The document key of each of these committed entries (absent ones are skipped)."""
        wanted = list(dict.fromkeys(uuids))
        if not wanted:
            return {}
        searcher = self._index.searcher()
        query = tantivy.Query.term_set_query(self._schema, "uuid", wanted)
        found: dict[str, str] = {}
        for _, address in searcher.search(query, limit=len(wanted), count=False).hits:
            stored = searcher.doc(address)
            found[stored["uuid"][0]] = stored["pmid"][0]
        return found

    def _stored(self, field: str) -> list[str]:
        searcher = self._index.searcher()
        total = searcher.num_docs
        if total == 0:
            return []
        hits = searcher.search(tantivy.Query.all_query(), limit=total, count=False).hits
        return [searcher.doc(address)[field][0] for _, address in hits]

    def texts(self, pmids: Iterable[str]) -> dict[str, list[str]]:
        """The committed texts of each of these documents' entries, in UUID order (documents with
        none are absent). Needs an index opened with `stored_text`."""
        wanted = list(dict.fromkeys(pmids))
        if not wanted:
            return {}
        searcher = self._index.searcher()
        query = tantivy.Query.term_set_query(self._schema, "pmid", wanted)
        total = searcher.search(query, limit=1, count=True).count
        if not total:
            return {}
        entries: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for _, address in searcher.search(query, limit=total, count=False).hits:
            stored = searcher.doc(address)
            entries[stored["pmid"][0]].append((stored["uuid"][0], stored["text"][0]))
        return {pmid: [text for _, text in sorted(found)] for pmid, found in entries.items()}

    def _filters(
        self, year_range: tuple[int | None, int | None] | None, pub_types: Iterable[str] | None
    ) -> list[tantivy.Query]:
        filters: list[tantivy.Query] = []
        if year_range is not None and year_range != (None, None):
            low, high = year_range
            filters.append(
                tantivy.Query.range_query(self._schema, "year", tantivy.FieldType.Integer, low, high)
            )
        wanted = list(pub_types or ())
        if wanted:
            filters.append(tantivy.Query.term_set_query(self._schema, "pub_types", wanted))
        return filters

    def _text_query(self, query: str) -> tantivy.Query | None:
        terms = self.analyze(query)[:MAX_QUERY_TERMS]
        if not terms:
            return None
        return tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(self._schema, "text", t)) for t in terms]
        )

    def _run(self, text: tantivy.Query, filters: list[tantivy.Query], limit: int) -> list[BM25Hit]:
        if filters:
            # Filters score 0 so the reported score is the BM25 of the text alone.
            clauses = [(tantivy.Occur.Must, text)]
            clauses += [(tantivy.Occur.Must, tantivy.Query.const_score_query(f, 0.0)) for f in filters]
            text = tantivy.Query.boolean_query(clauses)
        searcher = self._index.searcher()
        hits = searcher.search(text, limit=limit, count=False).hits
        out = []
        for score, address in hits:
            stored = searcher.doc(address)
            out.append(BM25Hit(stored["uuid"][0], stored["pmid"][0], float(score)))
        out.sort(key=lambda hit: (-hit.score, hit.uuid))
        return out

    def scores(self, query: str, uuids: Iterable[str]) -> dict[str, float]:
        """BM25 of the query for these chunks only (those matching no query term are absent)."""
        wanted = list(dict.fromkeys(uuids))
        text = self._text_query(query)
        if text is None or not wanted:
            return {}
        restrict = tantivy.Query.term_set_query(self._schema, "uuid", wanted)
        return {hit.uuid: hit.score for hit in self._run(text, [restrict], len(wanted))}

    def search(
        self,
        query: str,
        limit: int,
        year_range: tuple[int | None, int | None] | None = None,
        pub_types: Iterable[str] | None = None,
    ) -> list[BM25Hit]:
        text = self._text_query(query)
        if text is None or limit < 1:
            return []
        return self._run(text, self._filters(year_range, pub_types), limit)
