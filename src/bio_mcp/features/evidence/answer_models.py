"""Seed 003's `tool.rag_answer` contract: question in; answer, citations and scores out.

The seed's fields keep their names and types; the fields it does not name are additive (its
change policy allows them) and say so in their description.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints

from bio_mcp.features.evidence.models import AuditedOutput
from bio_mcp.models import ToolInput, ToolOutput

Lang = Literal["th", "en"]
LangChoice = Literal["th", "en", "auto"]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
QUESTION_MAX_CHARS = 2000


class AnswerRetrieval(ToolInput):
    top_k: int = Field(
        default=5, ge=1, le=20, strict=True,
        description="Documents retrieved (graph-aware kb.search) to draw evidence sentences from",
    )


class RagAnswerRequest(ToolInput):
    question: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=QUESTION_MAX_CHARS)] = Field(
        description="The question, in Thai or English"
    )
    lang: LangChoice = Field(
        default="auto", description="Language of the answer's framing (auto: the question's script); quotes keep theirs"
    )
    retrieval: AnswerRetrieval = Field(
        default_factory=AnswerRetrieval, description="Retrieval options (top_k documents)"
    )


class _Out(ToolOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Citation(_Out):
    id: str = Field(description="The cited document, pmid:N")
    uri: str = Field(description="Where the document lives (its PubMed page)")
    title: str = Field(description="The document's title")
    span: str | None = Field(
        default=None,
        description="The quoted sentence's place in the stored text: '<anchor>:<start>-<end>', character "
        "offsets into the text of the document's section <anchor> (e.g. chunk-0:120-245)",
    )
    number: int = Field(ge=1, description="Additive: the [n] marker that cites it in the answer")
    quote: str = Field(description="Additive: the quoted sentence, exactly as stored at the span")
    section_id: str = Field(description="Additive: the section's node id (kb.retrieve_evidence reads it)")
    anchor: str = Field(description="Additive: the section's anchor in its document (chunk-<id>)")
    start: int = Field(ge=0, description="Additive: the span's first character offset")
    end: int = Field(ge=0, description="Additive: the span's end offset (exclusive)")
    relevance: Unit = Field(description="Additive: the sentence's relevance to the question in [0, 1]")


class AnswerScores(_Out):
    retrieval: Unit = Field(
        description="How close the best retrieved section is to the question: the cosine of their embeddings, "
        "clipped to [0, 1]"
    )
    answer_conf: Unit = Field(
        description="Estimated probability that the cited evidence answers the question: a logistic model of "
        "retrieval and evidence signals fitted on PubMedQA (bench/pubmedqa_answers.py); below ANSWER_CONF_TAU "
        "the answer is withheld"
    )
    signals: dict[str, float] = Field(
        default_factory=dict, description="Additive: the signals answer_conf is computed from"
    )


WithholdCode = Literal["no_evidence", "too_few_citations", "low_confidence"]
Verdict = Literal["yes", "no", "mixed", "insufficient"]
# Whose finding a verdict's supporting quotes report (`answer_verdict.scope_of`).
Scope = Literal["humans", "animals_or_laboratory", "unstated"]


class AnswerFocus(_Out):
    subject: str | None = Field(
        default=None, description="The question's subject (herb, drug, exposure) every quoted sentence names"
    )
    outcome: str | None = Field(
        default=None, description="The question's outcome or condition every quoted sentence names too"
    )
    interaction: bool = Field(
        default=False, description="True when the question asks about an interaction: quotes carry an interaction cue"
    )
    off_topic_sentences: int = Field(
        default=0, ge=0,
        description="Sentences of the retrieved documents left unquoted because they do not name the subject and outcome",
    )


class WithholdReason(_Out):
    code: WithholdCode = Field(description="no_evidence, too_few_citations (< 3) or low_confidence (< τ)")
    message: str = Field(description="Why, in the request's language")


class RagAnswerResponse(AuditedOutput):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    answer: str = Field(description="The cited answer; empty when withheld")
    citations: list[Citation] = Field(description="Verified citations, each quoting one stored sentence")
    scores: AnswerScores
    withheld: bool = Field(default=False, description="Additive: true when the policy withheld the answer")
    reason: WithholdReason | None = Field(default=None, description="Additive: why the answer was withheld")
    lang: Lang = Field(default="en", description="Additive: the language the answer is framed in")
    mode: Literal["extractive", "sampled"] = Field(
        default="extractive",
        description="Additive: extractive (quoted sentences) or sampled (written by the client's model from the "
        "numbered evidence, unchecked sentences dropped)",
    )
    dropped_sentences: int = Field(
        default=0, ge=0, description="Additive: sentences of a sampled answer dropped because a citation did not check out"
    )
    verdict: Verdict | None = Field(
        default=None,
        description="Additive: for a yes/no question, what the quoted sentences conclude (yes, no, mixed; "
        "insufficient when withheld); said first in the answer. None for other questions",
    )
    verdict_citations: list[int] = Field(
        default_factory=list,
        description="Additive: the numbers of the citations that support the verdict (the plainly stated ones for yes, "
        "the negated ones for no, all for mixed); empty without a verdict",
    )
    verdict_scope: Scope | None = Field(
        default=None,
        description="Additive: whose finding the verdict's supporting quotes report: humans (some quote names people "
        "and no animal or laboratory model), animals_or_laboratory (none names people alone: not a finding in people), "
        "or unstated. None without a verdict",
    )
    focus: AnswerFocus | None = Field(
        default=None, description="Additive: what every quoted sentence was required to name (subject and outcome)"
    )
