// Hybrid search of the corpus; a paper hit opens its abstract, a herb hit its card.
import { busy, failure, h } from "./dom.js";
import { gql } from "./graphql.js";

const SEARCH = `query($query: String!, $lang: String, $top_k: Int) {
  hybridSearch(query: $query, lang: $lang, top_k: $top_k) {
    hits { id type title snippet score source pmid }
    query_en unmatched_terms note
  }
}`;
const PAPER = `query($pmid: String!) { paper(pmid: $pmid) { pmid title abstract authors journal year links } }`;

async function readPaper(pmid, target) {
  busy(target);
  try {
    const { paper } = await gql(PAPER, { pmid });
    target.replaceChildren(
      h("p", { class: "muted" }, [paper.authors.slice(0, 6).join(", "), paper.journal, paper.year].filter(Boolean).join(" · ")),
      h("p", { class: "abstract" }, paper.abstract || "(no abstract)"),
      h("p", {}, ...paper.links.map((link) => h("a", { href: link, rel: "noreferrer", target: "_blank" }, link, " "))),
    );
  } catch (error) {
    failure(target, error);
  }
}

function hitItem(hit, context) {
  const more = h("div");
  const actions = [];
  if (hit.type === "paper" && hit.pmid) {
    actions.push(h("button", { type: "button", onclick: () => readPaper(hit.pmid, more) }, "Abstract"));
  }
  if (hit.type === "herb") {
    actions.push(h("button", { type: "button", onclick: () => context.open("herb", { id: hit.id }) }, "Herb card"));
  }
  return h("li", { class: "hit", "data-id": hit.id, "data-type": hit.type },
    h("span", { class: "type" }, hit.type), h("strong", {}, hit.title),
    h("span", { class: "score", title: "relevance in [0, 1]" }, hit.score.toFixed(3)),
    h("div", { class: "snippet" }, hit.snippet), ...actions, more);
}

export function searchView(context) {
  const form = document.querySelector("#search-form");
  const target = document.querySelector("#search-results");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(target);
    try {
      const { hybridSearch: found } = await gql(SEARCH, {
        query: form.elements.query.value, lang: form.elements.lang.value, top_k: Number(form.elements.top_k.value),
      });
      const notes = [];
      if (found.query_en && found.query_en !== form.elements.query.value) notes.push(`read as: ${found.query_en}`);
      if (found.unmatched_terms?.length) notes.push(`no hit names: ${found.unmatched_terms.join(", ")}`);
      if (found.note) notes.push(found.note);
      target.replaceChildren(
        h("p", { class: "muted" }, `${found.hits.length} hit(s)`, notes.length ? ` — ${notes.join("; ")}` : ""),
        found.hits.length ? h("ol", {}, found.hits.map((hit) => hitItem(hit, context)))
          : h("p", {}, "No document in the corpus matches: this is silence, not evidence of absence."),
      );
    } catch (error) {
      failure(target, error);
    }
  });
}
