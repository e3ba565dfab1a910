"""Two prompts that turn the tools into a researcher's workflow: a literature review plan and a trial landscape.

Each is registered only when the tools it names are served, and names them as they are listed.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts import Prompt
from pydantic import Field


def _literature_review(tools: dict[str, str]):
    search, details = tools["searchPubMedArticles"], tools["fetchArticleDetails"]
    relations = tools["getArticleRelationships"]
    cite = tools.get("formatCitations")
    corpus = tools.get("pubmed.sync_delta"), tools.get("rag.search")

    def literature_review_plan(
        topic: Annotated[str, Field(description="The research question or topic, e.g. 'GLP-1 agonists and "
                                                "cardiovascular outcomes in type 2 diabetes'")],
        years: Annotated[str, Field(description="How many past years to cover, e.g. '5' (default 5)")] = "5",
        citation_style: Annotated[str, Field(description="Reference style for the bibliography: vancouver, "
                                                         "apa_string, mla_string, bibtex or ris (default vancouver)")] = "vancouver",
    ) -> str:
        span = years.strip() or "5"
        steps = [
            f"You are preparing an evidence-graded literature review on: **{topic}** (last {span} years).",
            "Plan and then carry out these steps with the Bio-MCP tools, citing every claim by PMID:",
            (f"1. Break the topic into 2-4 PubMed queries (MeSH terms plus free-text synonyms). Run each with "
            f"`{search}` (dateRange minDate = the year {span} years ago, dateType pdat, fetchBriefSummaries 10); "
            "then run the most specific one again with filterByPublicationTypes ['Systematic Review', "
            "'Meta-Analysis'] and once with ['Randomized Controlled Trial']."),
            (f"2. Pick the 10-30 most relevant PMIDs and read them with `{details}` (detailLevel abstract_plus). "
            "Note each study's design, population, size, intervention, comparator and main outcome."),
            (f"3. For the 2-3 key papers, find what you missed with `{relations}` (pubmed_similar_articles and "
            "pubmed_citedin) and read any new relevant PMIDs."),
        ]
        if corpus[0] and corpus[1]:
            steps.append(
                f"4. Optionally keep the topic in the local corpus: `{corpus[0]}` with a stable query_key and the "
                f"best query as term, then `{corpus[1]}` for passages ranked by evidence quality."
            )
        steps.append(
            "5. Write the review: a summary of the evidence, a table of studies (PMID, design, n, population, "
            "finding), agreements and contradictions, the strength of evidence (systematic reviews and RCTs "
            "first), and gaps."
        )
        if cite:
            steps.append(f"6. Build the reference list in one call with `{cite}` (pmids = every PMID cited, "
                         f"styles = ['{citation_style}']).")
        else:
            steps.append(f"6. Build the reference list with `{relations}` (relationshipType citation_formats).")
        return "\n".join(steps)

    return literature_review_plan


def _trial_landscape(tools: dict[str, str]):
    ask = tools["analyst.ask"]
    search = tools.get("searchPubMedArticles")

    def trial_landscape(
        indication: Annotated[str, Field(description="The disease or condition, e.g. 'non-small cell lung cancer'")],
        phases: Annotated[str, Field(description="Trial phases to cover, e.g. '2/3' or '3' (default 2/3)")] = "2/3",
        sponsor: Annotated[str, Field(description="Optional company or sponsor to focus on; empty for all")] = "",
    ) -> str:
        focus = f" sponsored by {sponsor}" if sponsor.strip() else ""
        steps = [
            f"Map the clinical trial landscape for **{indication}**{focus}, phases {phases}.",
            f"1. Ask `{ask}`: 'active phase {phases} trials in {indication}{focus}'. Keep its checkpoint_id.",
            (f"2. Ask `{ask}` again for 'phase {phases} {indication} trials and their publications in the last "
            "365 days' to link trials to results."),
        ]
        if search:
            steps.append(f"3. For the leading mechanisms or drugs, check recent evidence with `{search}` "
                         "(filterByPublicationTypes ['Clinical Trial', 'Randomized Controlled Trial']).")
        steps.append(
            "4. Report: a table of trials (NCT id, phase, status, sponsor, intervention, enrolment, primary "
            "completion), grouped by mechanism or drug class; the sponsors with the most late-stage trials; "
            "recent readouts with their PMIDs; and what the answer could not cover (say if it was partial). "
            "Cite every trial by [NCT...] and every paper by [PMID ...], and give the checkpoint_ids."
        )
        return "\n".join(steps)

    return trial_landscape


def register_prompts(server: MCPServer[Any], tools: dict[str, str]) -> None:
    """`tools` maps each served tool's seed name to its listed name."""
    if {"searchPubMedArticles", "fetchArticleDetails", "getArticleRelationships"} <= tools.keys():
        server.add_prompt(Prompt.from_function(
            _literature_review(tools), name="literature_review_plan", title="Plan a literature review",
            description="A step-by-step plan to search, read, expand and cite the PubMed literature on a topic, "
            "ending in an evidence-graded review with a reference list.",
        ))
    if "analyst.ask" in tools:
        server.add_prompt(Prompt.from_function(
            _trial_landscape(tools), name="trial_landscape", title="Map a clinical trial landscape",
            description="Map the active trials for an indication (phases, sponsors, mechanisms) and link them to "
            "recent publications, with NCT and PMID citations.",
        ))
