// Horizontal bar charts in SVG, for figures in [0, 1] (or up to `max`).
import { s } from "./dom.js";

export function barChart(rows, { max = 1, label = "chart" } = {}) {
  const barHeight = 18, gap = 6, left = 190, width = 420;
  const height = rows.length * (barHeight + gap) + gap;
  const bars = rows.map((row, i) => {
    const y = gap + i * (barHeight + gap);
    const value = row.value ?? 0;
    const name = row.label.length > 30 ? `${row.label.slice(0, 29)}…` : row.label;
    return s("g", { class: "bar-row", "data-label": row.label },
      s("text", { x: 0, y: y + 13 }, name),
      s("rect", { class: "bar", x: left, y, height: barHeight, width: Math.max(1, (width * value) / max) }),
      s("text", { x: left + Math.max(1, (width * value) / max) + 4, y: y + 13 },
        row.value === null || row.value === undefined ? "n/a" : value.toFixed(3)),
      s("title", {}, `${row.label}: ${row.value ?? "n/a"}`));
  });
  return s("svg", { class: "chart", viewBox: `0 0 ${left + width + 60} ${height}`, width: "100%", role: "img",
    "aria-label": label }, ...bars);
}
