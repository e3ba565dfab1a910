// Evaluation: run one (tool.eval.run) or open a stored report; its metrics, each dataset's and each
// query's figures as bar charts.
import { barChart } from "./charts.js";
import { busy, failure, h } from "./dom.js";
import { gql } from "./graphql.js";

const RUN = `mutation($set: String!, $metrics: [String!], $params: JSON) {
  evalRun(set: $set, metrics: $metrics, params: $params) { report_id report_uri metrics { name value note } }
}`;
const REPORT = `query($id: String!) { evalReport(id: $id) }`;
const QUERIES_SHOWN = 40;

function reportPanel(report) {
  const metricNames = report.metrics.map((m) => m.name);
  const first = metricNames[0];
  const queries = (report.queries || []).slice(0, QUERIES_SHOWN);
  return h("div", { class: "card", "data-report": report.report_id },
    h("h3", {}, `Report ${report.report_id} — set ${report.set}`),
    barChart(report.metrics.map((m) => ({ label: m.name, value: m.value })), { label: "metrics" }),
    ...(report.datasets || []).map((d) => [
      h("h4", {}, `${d.name}: ${d.queries} queries${d.documents ? `, ${d.documents} documents` : ""}`),
      h("p", { class: "muted" }, d.description),
    ]),
    queries.length && first ? [
      h("h4", {}, `${first} per query${report.queries.length > QUERIES_SHOWN ? ` (first ${QUERIES_SHOWN} of ${report.queries.length})` : ""}`),
      barChart(queries.map((q) => ({ label: q.query, value: q.metrics[first] })), { label: `${first} per query` }),
    ] : null,
    (report.answers || []).length ? h("p", { class: "muted" }, `${report.answers.length} answer(s) judged`) : null);
}

export function evaluationView() {
  const runForm = document.querySelector("#eval-form");
  const reportForm = document.querySelector("#report-form");
  const target = document.querySelector("#eval-report");

  async function open(id) {
    const { evalReport } = await gql(REPORT, { id });
    target.replaceChildren(reportPanel(evalReport));
  }

  runForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(target);
    try {
      const metrics = runForm.elements.metrics.value.split(",").map((m) => m.trim()).filter(Boolean);
      const { evalRun } = await gql(RUN, { set: runForm.elements.set.value, metrics,
        params: { max_queries: Number(runForm.elements.max_queries.value) } });
      reportForm.elements.id.value = evalRun.report_id;
      await open(evalRun.report_id);
    } catch (error) {
      failure(target, error);
    }
  });
  reportForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(target);
    try {
      await open(reportForm.elements.id.value.trim());
    } catch (error) {
      failure(target, error);
    }
  });
}
