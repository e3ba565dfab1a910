"""`tool.rag_answer`: an answer quoted from the corpus, with verified citations, or withheld.

1. The question (rewritten to an English query by a `QueryRewriter` when one is given, e.g. Thai
   herb names to their English ones) goes through the graph-aware search (`kb.search`: hybrid
   BM25 + vectors, MeSH entity boost) for the `top_k` best documents.
2. Every section (chunk) of those documents is split into sentences by the chunker's own rule
   (`sentence_spans`); duplicates from overlapping chunks are dropped. Only sentences that name the
   question's subject and its outcome or condition (`answer_focus`) stay candidates; for a yes/no
   question, the abstracts' conclusion sentences gain CONCLUSION_BONUS relevance.
3. Sentences are scored: question-word overlap and the cosine of their section; the best
   `EMBED_SENTENCES` are embedded by the corpus's embedder and take their own cosine. Evidence is
   picked by maximal marginal relevance (relevance against similarity to what is already picked),
   at most `MAX_CITATIONS`, none below `MIN_RELEVANCE`.
4. Every citation's span is checked against the stored text (`citations.verify_citations`).
5. answer_conf (`answer_confidence`) from the signals; the seed's policy: fewer than 3 citations or
   answer_conf < τ (ANSWER_CONF_TAU) and the answer is withheld, its citations and scores returned
   with the reason (which names the subject and outcome when sentences were left out for not
   naming them). A yes/no question's `verdict` (`answer_verdict`) is drawn from the quotes and
   opens the answer; withheld, it is `insufficient`.
6. The answer quotes the evidence in its own language, framed in the request's language. With
   BIO_MCP_ANSWER_SAMPLING and an `AnswerWriter` (the server's MCP sampling), the client's model may
   write it from the numbered evidence instead; a sentence whose citations do not check out is
   dropped, and when none is left the extractive answer stands.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from bio_mcp.features.evidence.answer_confidence import answer_confidence, content_terms
from bio_mcp.features.evidence.answer_focus import Focus, QueryReading, read_focus
from bio_mcp.features.evidence.answer_models import (
    AnswerFocus,
    AnswerScores,
    Citation,
    Lang,
    RagAnswerRequest,
    RagAnswerResponse,
    Scope,
    Verdict,
    WithholdReason,
)
from bio_mcp.features.evidence.answer_verdict import (
    QuotedSentence,
    VerdictReading,
    in_conclusion,
    is_safety_question,
    is_yes_no,
    verdict_of,
)
from bio_mcp.features.evidence.citation_checks import (
    answer_sentences,
    check_sentences,
    chunk_id_of,
    pmid_of,
    section_id_of,
    verify_citations,
)
from bio_mcp.features.evidence.language import CrossLingualRewriter
from bio_mcp.features.kb.language import resolve_lang
from bio_mcp.features.kb.models import KbSearchRequest
from bio_mcp.features.kb.retrieval import KbRetrieval
from bio_mcp.features.kb.search import KbContext, search_kb
from bio_mcp.graph.mentions import Mention
from bio_mcp.search.chunking import chunk_uuid, sentence_spans
from bio_mcp.store import StoredChunk

MIN_CITATIONS = 3
MAX_CITATIONS = 5
# Sentences embedded per question (the best by word overlap and section cosine): the embedder's
# cost grows with them and dominates the tool's latency. 6 instead of 12 left PubMedQA dev's figures
# as they were (AUROC 0.989, 4.4% of answerable questions withheld) and halved that cost.
EMBED_SENTENCES = 6
# Below this relevance a sentence is not evidence.
MIN_RELEVANCE = 0.15
# MMR: weight of relevance against redundancy with the sentences already picked.
MMR_LAMBDA = 0.7
# Shortest sentence worth quoting (characters): shorter ones are labels or fragments.
MIN_SENTENCE_CHARS = 25
# A yes/no question is answered by the abstracts' conclusions: their sentences gain this much
# relevance, so the verdict is drawn from them (PubMedQA tune half: 0.2 quoted a conclusion in
# most answers without pushing the question's own abstract out).
CONCLUSION_BONUS = 0.2


class AnswerWriter(Protocol):
    """Writes an answer from numbered evidence ("[1] ...") citing it as [n]; None when it cannot
    (the client does not support it, refused, failed)."""

    async def write(self, question: str, numbered_evidence: str, lang: Lang) -> str | None: ...


class QueryRewriter(Protocol):
    """The search query for a question in `lang` (e.g. Thai names to English ones), with the English
    names of the entities it found."""

    def read(self, question: str, lang: Lang) -> QueryReading: ...


@dataclass
class AnswerContext:
    kb: KbContext
    tau: float
    sampling: bool = False
    rewriter: QueryRewriter | None = None


@dataclass
class _Sentence:
    chunk: StoredChunk
    start: int
    end: int
    rank: int
    chunk_cos: float
    overlap: float
    cos: float | None = None
    vector: np.ndarray | None = None
    bonus: float = 0.0

    @property
    def text(self) -> str:
        return self.chunk.text[self.start : self.end]

    @property
    def relevance(self) -> float:
        """Set by hand, not tuned: the sentence's own cosine first, then how many question words it
        has, then its section's cosine (which alone stands in before the sentence is embedded)."""
        semantic = self.cos if self.cos is not None else self.chunk_cos
        return max(0.0, min(1.0, 0.5 * semantic + 0.3 * self.overlap + 0.2 * self.chunk_cos + self.bonus))


@dataclass
class _Evidence:
    citations: list[Citation]
    signals: dict[str, float]
    retrieval: float
    # Sentences of the retrieved documents that did not name the question's subject and outcome.
    off_topic: int = 0


def _overlap(terms: Sequence[str], text: str) -> float:
    if not terms:
        return 0.0
    present = set(content_terms(text))
    return sum(1 for term in terms if term in present) / len(terms)


def _cos(vector: np.ndarray | None, query: np.ndarray) -> float:
    if vector is None or vector.shape != query.shape:
        return 0.0
    return float(np.clip(vector @ query, 0.0, 1.0))


def _read(context: KbContext, pmids: list[str]) -> tuple[dict[str, list[StoredChunk]], dict[str, str | None]]:
    with context.store.read() as tx:
        chunks = {pmid: tx.chunks.for_document(pmid) for pmid in pmids}
        documents = tx.documents.get_many(pmids)
    return chunks, {pmid: documents[pmid].title if pmid in documents else None for pmid in pmids}


def _sentences(
    chunks: dict[str, list[StoredChunk]], pmids: list[str], titles: dict[str, str | None], query: np.ndarray,
    terms: list[str], model_id: str,
) -> list[_Sentence]:
    seen: set[tuple[str, str]] = set()
    found: list[_Sentence] = []
    for rank, pmid in enumerate(pmids):
        for chunk in chunks[pmid]:
            vector = chunk.embedding if chunk.embed_model == model_id else None
            chunk_cos = _cos(vector, query)
            # Every chunk of a titled document starts with the title line, which is not evidence.
            body = chunk.text.index("\n") + 1 if titles[pmid] and "\n" in chunk.text else 0
            if titles[pmid] and "\n" not in chunk.text:
                continue
            for start, end in sentence_spans(chunk.text, body):
                text = chunk.text[start:end]
                key = (pmid, _flat(text))
                if len(text) < MIN_SENTENCE_CHARS or key in seen:
                    continue
                seen.add(key)
                found.append(_Sentence(chunk, start, end, rank, chunk_cos, _overlap(terms, text)))
    return found


def _linked_in(sentence: _Sentence, context: KbContext, sections: dict[str, Sequence[Mention]]) -> list[str] | None:
    """The entities the linker finds in the sentence's span when it links the whole section (each
    section once, kept in `sections`): abbreviations the section defines are read so."""
    if context.linker is None:
        return None
    chunk = sentence.chunk
    if chunk.uuid not in sections:
        sections[chunk.uuid] = context.linker.link(chunk.text)
    return [m.entity_id for m in sections[chunk.uuid] if sentence.start <= m.start and m.end <= sentence.end]


def _mmr(sentences: list[_Sentence]) -> list[_Sentence]:
    pool = [s for s in sentences if s.relevance >= MIN_RELEVANCE]
    chosen: list[_Sentence] = []
    while pool and len(chosen) < MAX_CITATIONS:
        def value(candidate: _Sentence) -> tuple[float, int, int]:
            redundancy = max((_similarity(candidate, c) for c in chosen), default=0.0)
            score = MMR_LAMBDA * candidate.relevance - (1 - MMR_LAMBDA) * redundancy
            return (score, -candidate.rank, -candidate.start)

        best = max(pool, key=value)
        chosen.append(best)
        # The same sentence in another document (a paper stored twice, as a record and as a file)
        # would only repeat the quote: MMR's redundancy term lowers it but need not rule it out.
        pool = [s for s in pool if _flat(s.text) != _flat(best.text)]
    return chosen


def _flat(text: str) -> str:
    return " ".join(text.split())


def _similarity(a: _Sentence, b: _Sentence) -> float:
    if a.vector is not None and b.vector is not None:
        return float(a.vector @ b.vector)
    left, right = set(content_terms(a.text)), set(content_terms(b.text))
    return len(left & right) / len(left | right) if left | right else 0.0


def gather_evidence(
    query: str, top_k: int, context: KbContext, focus: Focus | None = None, conclusions: bool = False
) -> _Evidence:
    """Retrieval, sentence scoring, MMR selection and verification (blocking; run in a thread). With a
    `focus`, only sentences that name the question's subject and outcome are candidates; with
    `conclusions` (a yes/no question), conclusion sentences are preferred."""
    search = search_kb(KbSearchRequest(query=query, top_k=top_k), context)
    # Corpus keys: a PMID, or an ingested file's `file:` key; each with its source URI.
    pmids = [pmid_of(item.metadata.doc_id or item.metadata.doc_uri) for item in search.evidence]
    sources = {pmid: item.metadata.doc_uri for pmid, item in zip(pmids, search.evidence, strict=True)}
    embedder = context.index.embeddings
    query_vector = np.asarray(embedder.embed_query(query), dtype=np.float32)
    terms = content_terms(query)
    chunks, titles = _read(context, pmids)
    sentences = _sentences(chunks, pmids, titles, query_vector, terms, context.index.model_id)
    found = len(sentences)
    sections: dict[str, Sequence[Mention]] = {}
    if focus is not None:
        sentences = [s for s in sentences if focus.admits(s.text, _linked_in(s, context, sections))]
    if conclusions:
        for sentence in sentences:
            if in_conclusion(QuotedSentence(sentence.text, sentence.chunk.text, sentence.start)):
                sentence.bonus = CONCLUSION_BONUS
    best_chunk = {pmid: max((_cos(c.embedding if c.embed_model == context.index.model_id else None, query_vector)
                             for c in chunks[pmid]), default=0.0) for pmid in pmids}
    ordered = sorted(best_chunk.values(), reverse=True)
    if sentences:
        shortlist = sorted(sentences, key=lambda s: (-(0.6 * s.overlap + 0.4 * s.chunk_cos + s.bonus), s.rank, s.start))
        shortlist = shortlist[:EMBED_SENTENCES]
        vectors = embedder.embed_array([s.text for s in shortlist])
        for sentence, vector in zip(shortlist, vectors, strict=True):
            sentence.vector = np.asarray(vector, dtype=np.float32)
            sentence.cos = _cos(sentence.vector, query_vector)
        sentences = shortlist
    chosen = _mmr(sentences)
    citations = []
    for number, sentence in enumerate(chosen, start=1):
        pmid, chunk = sentence.chunk.pmid, sentence.chunk
        anchor = f"chunk-{chunk.chunk_id}"
        ingested = pmid.startswith("file:")
        document_id = pmid if ingested else f"pmid:{pmid}"
        uri = sources[pmid] if ingested else f"https://pubmed.ncbi.nlm.nih.gov/{pmid}/"
        citations.append(Citation(
            id=document_id, uri=uri, title=titles[pmid] or (uri if ingested else f"PubMed {pmid}"),
            span=f"{anchor}:{sentence.start}-{sentence.end}", number=number, quote=sentence.text,
            section_id=section_id_of(document_id, uri, anchor), anchor=anchor, start=sentence.start, end=sentence.end,
            relevance=round(sentence.relevance, 4),
        ))
    kept, _ = verify_citations(context.store, citations)
    top_docs = [c.id for c in kept]
    best_doc_text = " ".join(c.text for c in chunks[pmids[0]]) if pmids else ""
    cosines = sorted((s.cos for s in sentences if s.cos is not None), reverse=True)[:3]
    signals = {
        "chunk_cos": round(ordered[0], 4) if ordered else 0.0,
        "chunk_gap": round(ordered[0] - ordered[1], 4) if len(ordered) > 1 else (round(ordered[0], 4) if ordered else 0.0),
        "sentence_cos": round(sum(cosines) / 3, 4) if cosines else 0.0,
        "coverage": round(_overlap(terms, best_doc_text), 4),
        "doc_share": round(max(top_docs.count(doc) for doc in top_docs) / MAX_CITATIONS, 4) if top_docs else 0.0,
    }
    return _Evidence(_renumber(kept), signals, signals["chunk_cos"], found - len(sentences))


def _renumber(citations: list[Citation]) -> list[Citation]:
    return [c.model_copy(update={"number": n}) for n, c in enumerate(citations, start=1)]


_FRAMES: dict[Lang, dict[str, str]] = {
    "en": {
        "lead": "From {docs} document(s) in the local corpus, the evidence most relevant to the question reads:",
        "no_evidence": "No evidence for this question was found in the local corpus.",
        "empty_corpus": "The local corpus is empty: fill it with pubmed.sync_delta (or `bio-mcp sync KEY TERM`) "
                        "or tool.ingest.run, then ask again.",
        "too_few_citations": "Withheld: only {n} verified citation(s) were found; an answer needs at least 3.",
        "off_topic": "Withheld: only {n} sentence(s) of the documents found name {named}; "
                     "an answer needs at least 3 ({dropped} sentence(s) that do not were left unquoted).",
        "unread": "Withheld: the question's words {words} could not be read in English, so no sentence of the "
                  "English literature can be checked to name them ({n} sentence(s) that do were found).",
        "verdict": {"yes": "Verdict: yes, by the quoted evidence {markers}.",
                    "no": "Verdict: no, by the quoted evidence {markers}.",
                    "mixed": "Verdict: mixed, the quoted evidence is hedged or points both ways {markers}.",
                    "insufficient": "Verdict: insufficient evidence to say yes or no."},
        "animals_or_laboratory": "These quotes report findings in animals or laboratory models; none reports "
                                 "it in humans alone.",
        "some_in_models": "Of these, findings in animals or laboratory models are reported by {models} and no "
                          "population is named by the others; none reports it in humans alone.",
        "low_confidence": "Withheld: the evidence may not answer the question (answer_conf {conf:.2f} < τ {tau:.2f}).",
        "evidence_head": "Evidence (quoted in its own language):",
        "both": "both {subject} and {outcome}",
        "one": "{subject}",
    },
    "th": {
        "lead": "จากเอกสาร {docs} ฉบับในคลังข้อมูล หลักฐานที่เกี่ยวข้องกับคำถามมากที่สุดระบุว่า:",
        "no_evidence": "ไม่พบหลักฐานสำหรับคำถามนี้ในคลังข้อมูล",
        "empty_corpus": "คลังข้อมูลยังว่างอยู่: เพิ่มเอกสารด้วย pubmed.sync_delta (หรือ `bio-mcp sync KEY TERM`) "
                        "หรือ tool.ingest.run แล้วถามใหม่อีกครั้ง",
        "too_few_citations": "งดให้คำตอบ: พบการอ้างอิงที่ตรวจสอบแล้วเพียง {n} รายการ ต้องมีอย่างน้อย 3 รายการ",
        "off_topic": "งดให้คำตอบ: มีเพียง {n} ประโยคในเอกสารที่พบที่กล่าวถึง{named} "
                     "ต้องมีอย่างน้อย 3 ประโยค (ประโยคที่ไม่เกี่ยวข้อง {dropped} ประโยคไม่ถูกนำมาอ้างอิง)",
        "unread": "งดให้คำตอบ: ไม่สามารถอ่านคำว่า {words} ในคำถามเป็นภาษาอังกฤษได้ จึงตรวจสอบไม่ได้ว่าประโยคใดกล่าวถึง "
                  "(พบประโยคที่กล่าวถึง {n} ประโยค)",
        "verdict": {"yes": "สรุป: ใช่ ตามหลักฐานที่อ้างอิง {markers}",
                    "no": "สรุป: ไม่ใช่ ตามหลักฐานที่อ้างอิง {markers}",
                    "mixed": "สรุป: ยังไม่ชัดเจน หลักฐานที่อ้างอิงไม่แน่นอนหรือขัดแย้งกัน {markers}",
                    "insufficient": "สรุป: หลักฐานไม่เพียงพอที่จะตอบว่าใช่หรือไม่"},
        "animals_or_laboratory": "หลักฐานที่อ้างอิงเป็นผลการศึกษาในสัตว์ทดลองหรือในห้องปฏิบัติการ "
                                 "ไม่มีประโยคใดรายงานผลในมนุษย์โดยเฉพาะ",
        "some_in_models": "ในจำนวนนี้ {models} เป็นผลการศึกษาในสัตว์ทดลองหรือในห้องปฏิบัติการ ส่วนที่เหลือไม่ได้ระบุกลุ่มที่ศึกษา "
                          "ไม่มีประโยคใดรายงานผลในมนุษย์โดยเฉพาะ",
        "low_confidence": "งดให้คำตอบ: หลักฐานอาจไม่ตอบคำถาม (answer_conf {conf:.2f} < τ {tau:.2f})",
        "evidence_head": "หลักฐาน (อ้างอิงตามภาษาต้นฉบับ):",
        "both": "ทั้ง {subject} และ {outcome}",
        "one": " {subject}",
    },
}


def verdict_line(
    verdict: Verdict, supporting: Sequence[int], lang: Lang, scope: Scope = "unstated", in_models: Sequence[int] = ()
) -> str:
    """The verdict as the answer's first sentence, citing the quotes (numbers) that support it, and
    saying so when they report animals or laboratory models and not people: which of them do, when
    the others name no population (`in_models`, numbers; empty: all of them)."""
    markers = "".join(f"[{number}]" for number in supporting)
    line = _FRAMES[lang]["verdict"][verdict].format(markers=markers)
    if scope != "animals_or_laboratory" or not supporting:
        return line
    if in_models and set(in_models) < set(supporting):
        return f"{line} {_FRAMES[lang]['some_in_models'].format(models=''.join(f'[{n}]' for n in in_models))}"
    return f"{line} {_FRAMES[lang][scope]}"


def extractive_answer(citations: Sequence[Citation], lang: Lang, verdict: VerdictReading | None = None) -> str:
    docs = len({c.id for c in citations})
    lines = [_verdict_line_of(verdict, citations, lang)] if verdict is not None else []
    lines.append(_FRAMES[lang]["lead"].format(docs=docs))
    lines += [f"“{c.quote}” [{c.number}]" for c in citations]
    return "\n".join(lines)


def numbered_evidence(citations: Sequence[Citation]) -> str:
    return "\n".join(f"[{c.number}] {c.quote} ({c.title})" for c in citations)


def _withhold(
    citations: list[Citation], conf: float, tau: float, lang: Lang, focus: Focus | None = None, off_topic: int = 0
) -> WithholdReason | None:
    frames = _FRAMES[lang]
    # Sentences were left out for not naming the subject and outcome: the reason says so, by name.
    named = focus is not None and off_topic > 0 and len(citations) < MIN_CITATIONS
    if named and focus.unread:
        message = frames["unread"].format(words=", ".join(focus.unread), n=len(citations))
        return WithholdReason(code="no_evidence" if not citations else "too_few_citations", message=message)
    if named:
        subject, outcome = focus.describe()
        named = (frames["both"].format(subject=subject, outcome=outcome) if subject and outcome
                 else frames["one"].format(subject=subject or outcome))
        message = frames["off_topic"].format(n=len(citations), named=named, dropped=off_topic)
        return WithholdReason(code="no_evidence" if not citations else "too_few_citations", message=message)
    if not citations:
        return WithholdReason(code="no_evidence", message=frames["no_evidence"])
    if len(citations) < MIN_CITATIONS:
        return WithholdReason(code="too_few_citations", message=frames["too_few_citations"].format(n=len(citations)))
    if conf < tau:
        return WithholdReason(code="low_confidence", message=frames["low_confidence"].format(conf=conf, tau=tau))
    return None


def _corpus_is_empty(context: KbContext) -> bool:
    with context.index.store.read() as tx:
        return tx.documents.count() == 0


async def rag_answer(
    request: RagAnswerRequest, context: AnswerContext, writer: AnswerWriter | None = None
) -> RagAnswerResponse:
    lang = resolve_lang(request.question, request.lang)
    reading = (await asyncio.to_thread(context.rewriter.read, request.question, lang)
               if context.rewriter is not None else QueryReading(request.question))
    # A question the rewrite leaves nothing of (punctuation, untranslatable Thai) is searched as asked.
    query = reading.text.strip() or request.question
    focus = read_focus(request.question, QueryReading(query, reading.names, reading.unread), context.kb.linker,
                       context.kb.catalog)
    yes_no = is_yes_no(request.question)
    evidence = await asyncio.to_thread(
        gather_evidence, query, request.retrieval.top_k, context.kb, focus, yes_no
    )
    conf = round(answer_confidence(evidence.signals), 4)
    scores = AnswerScores(retrieval=evidence.retrieval, answer_conf=conf, signals=evidence.signals)
    subject, outcome = focus.describe()
    described = AnswerFocus(subject=subject, outcome=outcome, interaction=focus.interaction,
                            off_topic_sentences=evidence.off_topic)
    reason = _withhold(evidence.citations, conf, context.tau, lang, focus, evidence.off_topic)
    if reason is not None and reason.code == "no_evidence" and await asyncio.to_thread(_corpus_is_empty, context.kb):
        reason = reason.model_copy(update={"message": f"{reason.message} {_FRAMES[lang]['empty_corpus']}"})
    if reason is not None:
        return RagAnswerResponse(answer="", citations=evidence.citations, scores=scores, withheld=True,
                                 reason=reason, lang=lang, verdict="insufficient" if yes_no else None,
                                 focus=described)
    verdict = await asyncio.to_thread(_verdict, evidence.citations, context.kb, focus, request.question) if yes_no else None
    answer, mode, dropped = extractive_answer(evidence.citations, lang, verdict), "extractive", 0
    if context.sampling and writer is not None:
        written = await writer.write(request.question, numbered_evidence(evidence.citations), lang)
        if written:
            kept, rejected = check_sentences(written, evidence.citations)
            if kept:
                lead = [_verdict_line_of(verdict, evidence.citations, lang)] if verdict is not None else []
                answer, mode, dropped = " ".join([*lead, *kept]), "sampled", len(rejected)
    return RagAnswerResponse(
        answer=answer, citations=evidence.citations, scores=scores, lang=lang, mode=mode, dropped_sentences=dropped,
        verdict=verdict.verdict if verdict else None, focus=described,
        verdict_citations=_numbers(verdict, evidence.citations) if verdict else [],
        verdict_scope=verdict.scope if verdict else None,
    )


def _numbers(verdict: VerdictReading, citations: Sequence[Citation]) -> list[int]:
    return [citations[i].number for i in verdict.supporting]


def _verdict_line_of(verdict: VerdictReading, citations: Sequence[Citation], lang: Lang) -> str:
    return verdict_line(verdict.verdict, _numbers(verdict, citations), lang, verdict.scope,
                        [citations[i].number for i in verdict.in_models])


def _verdict(citations: Sequence[Citation], context: KbContext, focus: Focus, question: str) -> VerdictReading:
    """The verdict of the quoted sentences, each read in its stored section (whose labels say which
    sentences are the abstract's conclusion)."""
    uuids = {c.number: chunk_uuid(pmid_of(c.id), chunk_id_of(c.anchor)) for c in citations}
    with context.store.read() as tx:
        stored = tx.chunks.get_many(set(uuids.values()))
    quoted = [QuotedSentence(c.quote, stored[uuids[c.number]].text if uuids[c.number] in stored else c.quote,
                             c.start if uuids[c.number] in stored else 0, c.title) for c in citations]
    return verdict_of(quoted, focus.names_subject if focus.subject is not None else None,
                      is_safety_question(question))


def summarize(response: RagAnswerResponse) -> str:
    """The whole result as Markdown: the answer (or why it was withheld), scores, every citation."""
    head = (f"**Withheld** ({response.reason.code}): {response.reason.message}" if response.withheld and response.reason
            else response.answer)
    if response.withheld and response.verdict is not None:
        head = f"{verdict_line(response.verdict, [], response.lang)}\n{head}"
    lines = [head, "",
             (f"Scores: retrieval {response.scores.retrieval:.2f}, answer_conf {response.scores.answer_conf:.2f} "
             f"({response.mode}, {response.lang}; {len(response.citations)} verified citations)"),
             "Signals: " + ", ".join(f"{name} {value:.2f}" for name, value in response.scores.signals.items())]
    if response.dropped_sentences:
        lines.append(f"{response.dropped_sentences} written sentence(s) dropped: their citations did not check out.")
    if response.citations:
        lines += ["", _FRAMES[response.lang]["evidence_head"]]
        lines += [f"[{c.number}] {c.title} ({c.id}, {c.span}): “{c.quote}”" for c in response.citations]
    return "\n".join(lines)


class AnswerService:
    """tool.rag_answer over the corpus's kb retrieval (its store, index and MeSH linker)."""

    def __init__(
        self, retrieval: KbRetrieval, *, writer: AnswerWriter | None = None, rewriter: QueryRewriter | None = None
    ) -> None:
        self.retrieval = retrieval
        self.writer = writer
        self.rewriter = rewriter

    async def answer(self, request: RagAnswerRequest) -> RagAnswerResponse:
        settings = self.retrieval.settings
        kb = await self.retrieval.context()
        graph = self.retrieval.corpus.graph
        # By default the question is searched as tool.hybrid_search reads a query: Thai herb names
        # become the herbs' English and scientific names, so a Thai question finds English papers.
        rewriter = self.rewriter or CrossLingualRewriter(kb.store, graph.catalog if graph is not None else None)
        context = AnswerContext(kb, settings.answer_conf_tau, settings.answer_sampling, rewriter)
        return await rag_answer(request, context, self.writer)


@dataclass(frozen=True)
class CheckedSentence:
    text: str
    verified: bool


@dataclass(frozen=True)
class AnswerFigures:
    """What tool.eval.run reads of one answer (its `AnswerOutcome`)."""

    sentences: list[CheckedSentence]
    withheld: bool
    citations: int
    answer_conf: float | None


class RagAnswerEngine:
    """tool.rag_answer as tool.eval.run's answer engine: each answer sentence with whether its
    citations check out against the stored text (`citations.answer_sentences`)."""

    def __init__(self, service: AnswerService) -> None:
        self.service = service

    async def answer(self, question: str, lang: str, top_k: int) -> AnswerFigures:
        request = RagAnswerRequest.model_validate(
            {"question": question, "lang": lang, "retrieval": {"top_k": max(1, min(top_k, 20))}})
        response = await self.service.answer(request)
        return AnswerFigures(
            sentences=[CheckedSentence(text, ok) for text, ok in answer_sentences(response)],
            withheld=response.withheld, citations=len(response.citations), answer_conf=response.scores.answer_conf,
        )
