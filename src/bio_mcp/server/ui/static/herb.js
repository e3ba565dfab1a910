// A herb card: names in Thai and English, constituents, indications with ICD-10 codes, traditional
// uses (labelled as such) and interactions with their quotes; silence labelled as silence.
import { busy, failure, h } from "./dom.js";
import { gql } from "./graphql.js";

const HERB = `query($id: String!) {
  herb(id: $id) {
    id names { th en scientific } parts sources formulations safety
    constituents { id name parts }
    indications { icdCode description strength via }
    traditional_uses { use description icdCode taxon }
    coverage { documents_searched }
  }
  findContraindications(herb_ids: [$id]) {
    results { relation contraindication target_id evidence strength source pmid quote_checked }
  }
}`;
const SHOWN = 90;

function table(headers, rows) {
  return h("table", {}, h("thead", {}, h("tr", {}, headers.map((title) => h("th", {}, title)))),
    h("tbody", {}, rows.map((row) => h("tr", {}, row.map((cell) => h("td", {}, cell))))));
}

function card(herb, findings) {
  const more = herb.constituents.length - SHOWN;
  return h("article", { class: "card", "data-herb": herb.id },
    h("h2", {}, h("span", { lang: "en" }, herb.names.en), h("span", { lang: "th" }, herb.names.th)),
    h("p", { class: "muted" }, h("i", {}, (herb.names.scientific || []).join(", ")), ` · ${herb.id}`,
      herb.parts.length ? ` · parts: ${herb.parts.join(", ")}` : ""),
    h("h3", {}, `Constituents (${herb.constituents.length})`),
    herb.constituents.length
      ? h("ul", { class: "constituents" }, herb.constituents.slice(0, SHOWN).map((c) => h("li", { title: c.id }, c.name)))
      : h("p", { class: "muted" }, "No constituent is recorded."),
    more > 0 ? h("p", { class: "muted" }, `and ${more} more`) : null,
    h("h3", {}, "Indications"),
    herb.indications.length
      ? table(["ICD-10-CM", "indication", "strength"], herb.indications.map((i) => [
        i.icdCode || "—", i.description + (i.via ? ` (via ${i.via})` : ""), i.strength]))
      : h("p", { class: "muted" }, "No indication is stated in the corpus or a curated import."),
    h("h3", {}, "Interactions and contraindications"),
    findings.length
      ? h("div", { class: "findings" }, findings.map((f) => h("div", { class: "finding", "data-target": f.target_id,
        "data-relation": f.relation, "data-pmid": f.pmid || "" },
        h("strong", {}, `${f.relation}: ${f.contraindication}`), ` (${f.strength}; ${f.pmid ? `PMID ${f.pmid}` : f.source})`,
        h("blockquote", {}, f.evidence),
        // An imported fact has no quote to check (null); a quote not re-read at its span says so.
        f.quote_checked === null ? null : h("p", { class: "muted quote-check" },
          f.quote_checked ? "quote re-read in the stored text" : "quote not found at its place in the stored text"))))
      : h("p", { class: "muted" }, herb.safety || "None found; finding none is not evidence of safety."),
    herb.traditional_uses?.length ? [
      h("h3", {}, `Traditional uses (${herb.traditional_uses.length}) — recorded uses, not evidence`),
      table(["use", "ICD-10-CM", "taxon"], herb.traditional_uses.slice(0, 30).map((u) => [
        u.description ? `${u.use} (${u.description})` : u.use, u.icdCode || "—", u.taxon])),
    ] : null,
    h("p", { class: "muted" }, `Sources: ${herb.sources.join(", ")}`));
}

export function herbView() {
  const form = document.querySelector("#herb-form");
  const target = document.querySelector("#herb-card");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(target);
    try {
      const { herb, findContraindications } = await gql(HERB, { id: form.elements.id.value.trim() });
      target.replaceChildren(card(herb, findContraindications.results));
    } catch (error) {
      failure(target, error);
    }
  });
}
