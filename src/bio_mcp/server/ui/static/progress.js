// Sync and ingestion progress: a sync key's watermark and latest jobs, a running sync followed live
// (one started here, or by anyone else: the job rows are in the store), and an ingestion job
// followed until it ends.
import { busy, failure, h } from "./dom.js";
import { gql } from "./graphql.js";

const SYNC_PROGRESS = `query($query_key: String!) {
  syncProgress(query_key: $query_key) {
    query_key last_edat
    jobs { job_id status term planned fetched inserted updated skipped pmids_processed warnings error started_at finished_at }
  }
}`;
const START_SYNC = `mutation($query_key: String!, $term: String!) {
  syncDelta(query_key: $query_key, term: $term) { job_id inserted updated skipped more_to_sync }
}`;
const JOB = `query($job_id: String!) {
  ingestJob(job_id: $job_id) {
    job_id status dry_run error created_at updated_at finished_at
    counts { files written unchanged failed pages ocr_pages sections chunks entities relations }
    files { uri status pages sections chunks error }
  }
}`;
const POLL_MS = 1000;
const SYNC_POLL_MS = 400;

function syncJobPanel(job) {
  const planned = job.planned ?? 0;
  const of = job.planned === null ? "" : ` of ${planned}`;
  return h("div", { class: "card sync-job", "data-job": job.job_id, "data-status": job.status,
    "data-fetched": job.fetched, "data-planned": job.planned ?? "" },
  h("p", {}, h("strong", {}, job.status), ` · ${job.term} · ${job.fetched}${of} record(s) fetched`),
  h("progress", { max: Math.max(planned, job.fetched, 1), value: job.fetched }),
  h("p", { class: "muted" }, `inserted ${job.inserted} · updated ${job.updated} · skipped ${job.skipped}`
    + ` · started ${job.started_at}` + (job.finished_at ? ` · finished ${job.finished_at}` : "")),
  job.error ? h("p", { class: "error" }, job.error) : null,
  job.warnings.length ? h("ul", { class: "muted" }, job.warnings.map((w) => h("li", {}, w))) : null);
}

function syncPanel(progress, job) {
  return [
    h("p", { class: "sync", "data-edat": progress.last_edat || "" },
      progress.last_edat ? `${progress.query_key}: synced up to ${progress.last_edat}` : `${progress.query_key}: never synced`),
    job ? syncJobPanel(job) : h("p", { class: "muted" }, "No sync job yet."),
  ];
}

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

function syncView() {
  const form = document.querySelector("#sync-form");
  const target = document.querySelector("#sync-status");
  let following = 0;  // a newer follow (another Show or Start) ends the older one

  const read = async (key) => (await gql(SYNC_PROGRESS, { query_key: key })).syncProgress;

  // Shows the key's newest job (one not in `before`, when a sync was just started) until it has
  // ended and `started` (the mutation, if any) has settled.
  async function follow(key, before = new Set(), started = null) {
    const mine = ++following;
    let settled = started === null;
    let startError = null;
    started?.then(() => { settled = true; }, (error) => { settled = true; startError = error; });
    for (;;) {
      const progress = await read(key);
      if (mine !== following) return;
      const job = progress.jobs.find((j) => !before.has(j.job_id)) || null;
      target.replaceChildren(...syncPanel(progress, job));
      if (startError) throw startError;
      if (settled && (!job || job.status !== "running")) return;
      await new Promise((resolve) => { setTimeout(resolve, SYNC_POLL_MS); });
    }
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    busy(target);
    try {
      await follow(form.elements.query_key.value.trim());
    } catch (error) {
      failure(target, error);
    }
  });
  document.querySelector("#sync-start").addEventListener("click", async () => {
    if (!form.reportValidity()) return;
    const key = form.elements.query_key.value.trim();
    const term = form.elements.term.value.trim();
    if (!term) {
      failure(target, new Error("a PubMed term is needed to start a sync"));
      return;
    }
    busy(target);
    try {
      const before = new Set((await read(key)).jobs.map((j) => j.job_id));
      await follow(key, before, gql(START_SYNC, { query_key: key, term }));
    } catch (error) {
      failure(target, error);
    }
  });
}

function ingestionView() {
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

export function progressView() {
  syncView();
  ingestionView();
}
