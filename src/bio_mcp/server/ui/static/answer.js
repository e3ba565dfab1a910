// A cited answer, then every section it quotes, each quoted span highlighted where it stands.
import { busy, failure, h } from "./dom.js";
import { gql } from "./graphql.js";

const ANSWER = `query($question: String!, $retrieval: AnswerRetrievalInput) {
  ragAnswer(question: $question, retrieval: $retrieval) {
    answer withheld verdict reason { code message }
    scores { retrieval answer_conf }
    citations { number id uri title quote section_id start end relevance }
  }
}`;
const SECTIONS = `query($section_ids: [String!]!) {
  retrieveEvidence(section_ids: $section_ids) {
    sections { section_id title anchor text truncated document { doc_id title journal year } }
    missing
  }
}`;

// The section's text cut at the quoted spans; overlapping spans share one mark.
function highlighted(text, citations) {
  const spans = citations.map((c) => ({ start: c.start, end: c.end, labels: [c.number] })).sort((a, b) => a.start - b.start);
  const merged = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span.start < last.end) {
      last.end = Math.max(last.end, span.end);
      last.labels.push(...span.labels);
    } else merged.push({ ...span, labels: [...span.labels] });
  }
  const parts = [];
  let at = 0;
  for (const span of merged) {
    parts.push(text.slice(at, span.start));
    const label = span.labels.map((n) => `[${n}]`).join("");
    parts.push(h("mark", { id: `quote-${span.labels[0]}`, "data-label": label, "data-citations": span.labels.join(" ") },
      text.slice(span.start, span.end)));
    at = span.end;
  }
  parts.push(text.slice(at));
  return parts;
}

function answerText(answer) {
  // [n] markers become links to the highlighted quote.
  return answer.split(/(\[\d+\])/).map((part) => {
    const number = /^\[(\d+)\]$/.exec(part);
    return number ? h("a", { href: `#quote-${number[1]}` }, part) : part;
  });
}

export function answerView() {
  const form = document.querySelector("#answer-form");
  const text = document.querySelector("#answer-text");
  const sources = document.querySelector("#answer-sources");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(text);
    sources.replaceChildren();
    try {
      const { ragAnswer: result } = await gql(ANSWER, {
        question: form.elements.question.value, retrieval: { top_k: Number(form.elements.top_k.value) },
      });
      const scores = `retrieval ${result.scores.retrieval.toFixed(2)} · answer confidence ${result.scores.answer_conf.toFixed(2)}`;
      text.replaceChildren(
        result.withheld
          ? h("p", { class: "error" }, `Withheld: ${result.reason?.message || "the evidence is too thin"}`)
          : h("div", { class: "answer" }, answerText(result.answer)),
        h("p", { class: "muted" }, scores, result.verdict ? ` · verdict ${result.verdict}` : ""),
      );
      if (!result.citations.length) return;
      const sectionIds = [...new Set(result.citations.map((c) => c.section_id))];
      const { retrieveEvidence } = await gql(SECTIONS, { section_ids: sectionIds });
      sources.replaceChildren(...retrieveEvidence.sections.map((section) => {
        const cited = result.citations.filter((c) => c.section_id === section.section_id);
        return h("article", { class: "source", "data-section": section.section_id },
          h("h3", {}, section.document.title || section.document.doc_id),
          h("p", { class: "muted" }, `${section.document.doc_id} · ${section.anchor}`,
            section.document.journal ? ` · ${section.document.journal}` : "", section.document.year ? ` ${section.document.year}` : ""),
          h("p", { class: "section-text" }, highlighted(section.text, cited)));
      }));
    } catch (error) {
      failure(text, error);
    }
  });
}
