// An entity's neighbourhood as an SVG picture: graph.traverse under its depth and node caps, drawn
// in rings by depth from the seed. Clicking a node walks from it.
import { busy, failure, h, s } from "./dom.js";
import { gql } from "./graphql.js";

const TRAVERSE = `query($seed_ids: [String!]!, $max_depth: Int, $max_nodes: Int) {
  traverse(seed_ids: $seed_ids, max_depth: $max_depth, max_nodes: $max_nodes) {
    nodes { id label title score depth type }
    edges { src dst type depth }
    explain { caps { max_depth max_nodes } }
  }
}`;
const ENTITIES = `query($query: String!) { entities(query: $query, limit: 5) { entities { id name mentions } } }`;
const SIZE = 640;
const RING = 110;

function layout(nodes) {
  const rings = new Map();
  for (const node of nodes) {
    if (!rings.has(node.depth)) rings.set(node.depth, []);
    rings.get(node.depth).push(node);
  }
  const at = new Map();
  for (const [depth, ring] of rings) {
    ring.forEach((node, i) => {
      const angle = (2 * Math.PI * i) / ring.length + depth * 0.4;
      const radius = depth === 0 && ring.length === 1 ? 0 : RING * Math.max(depth, 0.5);
      at.set(node.id, { x: SIZE / 2 + radius * Math.cos(angle), y: SIZE / 2 + radius * Math.sin(angle) });
    });
  }
  return at;
}

function picture(result, walkFrom) {
  const at = layout(result.nodes);
  const size = Math.max(SIZE, 2 * RING * (Math.max(0, ...result.nodes.map((n) => n.depth)) + 1) + 40);
  const shift = (size - SIZE) / 2;
  const edges = result.edges.filter((e) => at.has(e.src) && at.has(e.dst)).map((e) => {
    const a = at.get(e.src), b = at.get(e.dst);
    return s("line", { class: "edge", x1: a.x + shift, y1: a.y + shift, x2: b.x + shift, y2: b.y + shift },
      s("title", {}, e.type));
  });
  const nodes = result.nodes.map((node) => {
    const p = at.get(node.id);
    const name = node.title || node.label || node.id;
    return s("g", { class: "graph-node", "data-id": node.id, transform: `translate(${p.x + shift},${p.y + shift})`,
      style: "cursor: pointer", onclick: () => walkFrom(node.id) },
      s("circle", { class: node.depth === 0 ? "node seed" : "node", r: 5 + 6 * Math.min(1, node.score) }),
      s("text", { x: 9, y: 3 }, name.length > 28 ? `${name.slice(0, 27)}…` : name),
      s("title", {}, `${name} (${node.id}, ${node.label}) score ${node.score.toFixed(3)}`));
  });
  return s("svg", { id: "graph-svg", viewBox: `0 0 ${size} ${size}`, width: "100%", role: "img",
    "aria-label": `graph of ${result.nodes.length} nodes` }, ...edges, ...nodes);
}

export function graphView() {
  const form = document.querySelector("#graph-form");
  const stats = document.querySelector("#graph-stats");
  const target = document.querySelector("#graph-picture");

  async function draw(seed) {
    busy(target);
    stats.textContent = "";
    try {
      let seedId = seed;
      if (!seed.includes(":")) {  // a name: the best-matching entity the corpus mentions, else the best match
        const found = (await gql(ENTITIES, { query: seed })).entities.entities;
        if (!found.length) throw new Error(`no entity is named ${seed}`);
        seedId = (found.find((entity) => entity.mentions > 0) || found[0]).id;
      }
      const { traverse } = await gql(TRAVERSE, {
        seed_ids: [seedId], max_depth: Number(form.elements.max_depth.value), max_nodes: Number(form.elements.max_nodes.value),
      });
      const caps = traverse.explain.caps;
      stats.textContent = `${traverse.nodes.length} nodes, ${traverse.edges.length} edges from ${seedId} `
        + `(caps: depth ${caps.max_depth}, nodes ${caps.max_nodes})`;
      target.replaceChildren(traverse.nodes.length ? picture(traverse, (id) => { form.elements.seed.value = id; draw(id); })
        : h("p", {}, `${seedId} has no node in the graph.`));
    } catch (error) {
      failure(target, error);
    }
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    draw(form.elements.seed.value.trim());
  });
}
