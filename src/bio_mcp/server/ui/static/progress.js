// Sync and ingestion progress: a sync key's watermark, and an ingestion job followed until it ends.
import { busy, failure, h } from "./dom.js";
import { gql } from "./graphql.js";

const WATERMARK = `query($query_key: String!) { syncWatermark(query_key: $query_key) { query_key last_edat } }`;
const JOB = `query($job_id: String!) {
  ingestJob(job_id: $job_id) {
    job_id status dry_run error created_at updated_at finished_at
    counts { files written unchanged failed pages ocr_pages sections chunks entities relations }
    files { uri status pages sections chunks error }
  }
}`;
const POLL_MS = 1000;

function jobPanel(job) {
  const done = (job.counts.written || 0) + (job.counts.unchanged || 0) + (job.counts.failed || 0);
  const total = job.counts.files || job.files.length;
  const finished = job.status === "done" || job.status === "error";
  return h("div", { class: "card", "data-status": job.status },
    h("p", {}, h("strong", {}, job.status), job.dry_run ? " (dry run: nothing written)" : "",
      ` · ${finished ? total : done} of ${total} file(s)`),
    h("progress", { max: total || 1, value: finished ? total : done }),
    job.error ? h("p", { class: "error" }, job.error) : null,
    h("p", { class: "muted" }, `pages ${job.counts.pages ?? 0} (OCR ${job.counts.ocr_pages ?? 0}) · sections ${job.counts.sections ?? 0}`
      + ` · chunks ${job.counts.chunks ?? 0} · entities ${job.counts.entities ?? 0} · relations ${job.counts.relations ?? 0}`),
    h("ul", {}, job.files.map((f) => h("li", {}, `${f.status}: ${f.uri}`, f.error ? ` — ${f.error}` : ""))),
    h("p", { class: "muted" }, `started ${job.created_at}`, job.finished_at ? ` · finished ${job.finished_at}` : ` · updated ${job.updated_at}`));
}

export function progressView() {
  const syncForm = document.querySelector("#sync-form");
  const syncTarget = document.querySelector("#sync-status");
  syncForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(syncTarget);
    try {
      const { syncWatermark: mark } = await gql(WATERMARK, { query_key: syncForm.elements.query_key.value.trim() });
      syncTarget.replaceChildren(h("p", { class: "sync", "data-edat": mark.last_edat || "" },
        mark.last_edat ? `${mark.query_key}: synced up to ${mark.last_edat}` : `${mark.query_key}: never synced`));
    } catch (error) {
      failure(syncTarget, error);
    }
  });

  const jobForm = document.querySelector("#job-form");
  const jobTarget = document.querySelector("#job-status");
  let timer = null;
  jobForm.addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(timer);
    busy(jobTarget);
    const follow = async () => {
      try {
        const { ingestJob: job } = await gql(JOB, { job_id: jobForm.elements.job_id.value.trim() });
        jobTarget.replaceChildren(jobPanel(job));
        if (job.status !== "done" && job.status !== "error") timer = setTimeout(follow, POLL_MS);
      } catch (error) {
        failure(jobTarget, error);
      }
    };
    follow();
  });
}
