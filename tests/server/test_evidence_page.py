"""The evidence page at /ui in a real browser: Debian's headless Chromium driven by Playwright, on a
corpus synced from the fakes. It signs in with a bearer token, searches, reads a cited answer with
its quoted spans highlighted, draws a neighbourhood, shows a herb card, sync and ingestion progress
and an evaluation's charts; every request stays on the server (no CDN). Screenshots are saved under
an artefacts folder the test prints."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import httpx2
import pytest

from bio_mcp.testing.faults import Fault
from tests.server.evidence_server import SEMAGLUTIDE, SYNC_KEY, EvidenceServer, evidence_server

CHROMIUM = os.environ.get("BIO_MCP_CHROMIUM", "/usr/bin/chromium")
# A closed network: nothing but the page under test.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-dev-shm-usage"]
QUESTION = "Does semaglutide reduce body weight?"
REPO = Path(__file__).resolve().parents[2]
# A real open-access abstract (PMID 24790635) saying garlic has a major interaction with warfarin.
GARLIC_WARFARIN_RECORD = REPO / "tests" / "evidence" / "records" / "pmid_24790635.xml"
GARLIC_SENTENCE = ("Among thirty-eight herbs, Cannabis, Chamomile, Cranberry, Garlic, Ginkgo, Grapefruit, Lycium, "
                   "Red clover, and St. John's wort were evaluated to have major severity interaction with warfarin.")
WARFARIN = "mesh:D014859"
# A sync stores, links and extracts every record before it is done: minutes on a busy machine.
SYNC_TIMEOUT_MS = 600_000
# Every state of the sync panel the page draws, as the test reads them back.
RECORD_SYNC_STATES = """() => {
  window.syncStates = [];
  const record = () => {
    const job = document.querySelector('#sync-status [data-job]');
    if (job) window.syncStates.push({ job: job.dataset.job, status: job.dataset.status,
      fetched: Number(job.dataset.fetched), planned: job.dataset.planned === '' ? null : Number(job.dataset.planned) });
  };
  new MutationObserver(record).observe(document.querySelector('#sync-status'), { childList: true, subtree: true });
}"""


@pytest.fixture(scope="module")
def chromium_path(require_part) -> str:
    if shutil.which(CHROMIUM) is None:
        require_part(f"Chromium not found at {CHROMIUM} (apt-get install chromium; .ci/install-debian-packages)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        require_part("playwright is not installed (the test extra)")
    return CHROMIUM


@pytest.fixture(scope="module")
def server(chromium_path, running_fakes, tmp_path_factory) -> Iterator[EvidenceServer]:
    yield from evidence_server(running_fakes, tmp_path_factory.mktemp("ui-home"))


@pytest.fixture(scope="module")
def artefacts() -> Path:
    folder = Path(os.environ.get("BIO_MCP_ARTEFACTS") or tempfile.mkdtemp(prefix="bio-mcp-ui-")) / "evidence-page"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\nscreenshots of the evidence page: {folder}")
    return folder


@pytest.fixture(scope="module")
def browser(server: EvidenceServer, chromium_path: str):
    """Headless Chromium; every request any of its pages makes is checked to stay on the server."""
    from playwright.sync_api import sync_playwright

    foreign: list[str] = []
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)

        def new_page():  # type: ignore[no-untyped-def]
            context = launched.new_context(viewport={"width": 1200, "height": 900})
            context.on("request", lambda request: None if request.url.startswith(server.base)
                       else foreign.append(request.url))
            opened = context.new_page()
            opened.set_default_timeout(60_000)
            return opened

        yield new_page
        launched.close()
    assert not foreign, f"the page asked other hosts: {foreign}"


def sign_in(page, server: EvidenceServer, token: str) -> None:  # type: ignore[no-untyped-def]
    page.fill("#token", token)
    page.click("#login button")


@pytest.fixture(scope="module")
def page(browser, server: EvidenceServer):
    """A signed-in page, shared by the module's tests (each opens its own view)."""
    opened = browser()
    opened.goto(server.base + "/ui/")
    sign_in(opened, server, server.token())
    opened.wait_for_selector("#app:not([hidden])")
    yield opened
    opened.context.close()


def shot(page, artefacts: Path, name: str) -> None:
    page.screenshot(path=str(artefacts / f"{name}.png"), full_page=True)


def graphql(server: EvidenceServer, query: str, variables: dict) -> dict:
    response = httpx2.post(server.base + "/graphql", json={"query": query, "variables": variables}, timeout=60,
                           headers={"Authorization": f"Bearer {server.token()}"})
    return response.json()["data"]


def test_the_page_refuses_a_bad_token_and_signs_in_with_a_good_one(browser, server, artefacts) -> None:
    page = browser()
    page.goto(server.base + "/ui")
    assert page.url == server.base + "/ui/"
    sign_in(page, server, "not-a-token")
    page.wait_for_selector("#login-error:has-text('refused')")
    assert page.is_hidden("#app")
    token = server.token()
    sign_in(page, server, token)
    page.wait_for_selector("#app:not([hidden])")
    assert page.is_hidden("#login") and page.inner_text("#login-error") == ""
    assert token not in page.url
    assert page.evaluate("sessionStorage.getItem('bio-mcp-token')") == token
    shot(page, artefacts, "01-signed-in")
    page.click("#logout")
    assert page.is_visible("#login") and page.evaluate("sessionStorage.getItem('bio-mcp-token')") is None
    page.context.close()


def test_a_search_returns_the_expected_paper(page, server, artefacts) -> None:
    page.click("nav button[data-view=search]")
    page.fill("#search-form input[name=query]", "semaglutide body weight")
    page.click("#search-form button")
    hit = page.wait_for_selector(f"#search-results li[data-id='pmid:{SEMAGLUTIDE}']")
    assert "Semaglutide" in hit.inner_text()
    hit.query_selector("button").click()
    page.wait_for_selector(f"#search-results li[data-id='pmid:{SEMAGLUTIDE}'] .abstract")
    shot(page, artefacts, "02-search")


def test_a_cited_answer_highlights_every_quoted_span_in_its_paper(page, server, artefacts) -> None:
    expected = graphql(server, "query($q: String!) { ragAnswer(question: $q, retrieval: {top_k: 5}) "
                               "{ citations { number quote } } }", {"q": QUESTION})["ragAnswer"]["citations"]
    assert len(expected) >= 3
    page.click("nav button[data-view=answer]")
    page.fill("#answer-form input[name=question]", QUESTION)
    page.click("#answer-form button")
    page.wait_for_selector("#answer-sources mark")
    marks = page.eval_on_selector_all("#answer-sources mark",
                                      "ms => ms.map(m => [m.dataset.citations, m.textContent])")
    shown = {int(n): text for numbers, text in marks for n in numbers.split()}
    for citation in expected:  # every quote marked, exactly as quoted (overlapping quotes share a mark)
        assert citation["quote"] in shown[citation["number"]]
    assert page.is_visible("#answer-text .answer a[href='#quote-1']")
    shot(page, artefacts, "03-cited-answer")


def test_the_graph_view_draws_the_neighbourhood_within_its_caps(page, server, artefacts) -> None:
    page.click("nav button[data-view=graph]")
    page.fill("#graph-form input[name=seed]", f"pmid:{SEMAGLUTIDE}")
    page.fill("#graph-form input[name=max_depth]", "2")
    page.fill("#graph-form input[name=max_nodes]", "25")
    page.click("#graph-form button")
    page.wait_for_selector("#graph-svg .graph-node")
    nodes = page.eval_on_selector_all("#graph-svg .graph-node", "ns => ns.map(n => n.dataset.id)")
    # The paper, its sections, and the entities they mention (Diabetes Mellitus, Type 2).
    assert "mesh:D003924" in nodes and 2 < len(nodes) <= 25
    assert page.eval_on_selector_all("#graph-svg line.edge", "ls => ls.length") >= 2
    assert "caps: depth 2, nodes 25" in page.inner_text("#graph-stats")
    shot(page, artefacts, "04-graph")
    page.click("#graph-svg .graph-node[data-id='mesh:D003924'] circle")  # walk on from an entity
    page.wait_for_selector("#graph-stats:has-text('from mesh:D003924')")
    assert page.get_attribute("#graph-svg .graph-node[data-id='mesh:D003924'] circle", "class") == "node seed"


def test_a_herb_card_shows_names_and_constituents(page, server, artefacts) -> None:
    page.click("nav button[data-view=herb]")
    page.fill("#herb-form input[name=id]", "garlic")
    page.click("#herb-form button")
    card = page.wait_for_selector("#herb-card article[data-herb='mesh:D005737']")
    assert card.query_selector("span[lang=th]").inner_text() == "กระเทียม"
    constituents = page.eval_on_selector_all("#herb-card .constituents li", "ls => ls.map(l => l.textContent)")
    assert {"Allicin", "Alliin"} <= set(constituents)
    assert "not evidence" in card.inner_text()  # silence and traditional uses are labelled as what they are
    shot(page, artefacts, "05-herb-card")


def test_sync_and_ingestion_progress(page, server, artefacts) -> None:
    page.click("nav button[data-view=progress]")
    page.fill("#sync-form input[name=query_key]", SYNC_KEY)
    page.click("#sync-form button")
    assert "synced up to" in page.wait_for_selector("#sync-status .sync").inner_text()
    # The job is started over MCP and followed on the page.
    job_id = _start_ingestion(server, (server.home / "inbox" / "note.md").as_uri())
    page.fill("#job-form input[name=job_id]", job_id)
    page.click("#job-form button")
    page.wait_for_selector("#job-status [data-status=done]")
    assert "1 of 1 file(s)" in page.inner_text("#job-status")
    shot(page, artefacts, "06-progress")


def _start_ingestion(server: EvidenceServer, uri: str) -> str:
    async def start() -> str:
        async with server.mcp() as client:
            result = await client.call_tool("tool_ingest_run", {"batch": [{"uri": uri}]})
            assert not result.is_error, result.content
            return result.structured_content["job_id"]

    # Playwright's sync API runs an event loop in this thread: the MCP client gets its own.
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(anyio.run, start).result()


def test_an_evaluation_report_is_plotted(page, server, artefacts) -> None:
    page.click("nav button[data-view=evaluation]")
    page.fill("#eval-form input[name=max_queries]", "5")
    page.click("#eval-form button")
    report = page.wait_for_selector("#eval-report [data-report]")
    bars = page.eval_on_selector_all("#eval-report svg.chart rect.bar", "rs => rs.length")
    assert bars >= 3 + 1  # the three metrics, and at least one query
    report_id = report.get_attribute("data-report")
    stored = graphql(server, "query($id: String!) { evalReport(id: $id) }", {"id": report_id})["evalReport"]
    assert [m["name"] for m in stored["metrics"]] == page.eval_on_selector_all(
        "#eval-report svg[aria-label=metrics] .bar-row", "rs => rs.map(r => r.dataset.label)")
    shot(page, artefacts, "07-evaluation")
    (artefacts / "report.json").write_text(json.dumps(stored, indent=1), encoding="utf-8")


def start_sync_on_the_page(page, query_key: str, term: str) -> None:  # type: ignore[no-untyped-def]
    page.click("nav button[data-view=progress]")
    page.fill("#sync-form input[name=query_key]", query_key)
    page.fill("#sync-form input[name=term]", term)
    page.click("#sync-start")


def test_a_herb_cards_interaction_quotes_the_real_abstract_synced_on_the_page(page, server, running_fakes,
                                                                           artefacts) -> None:
    """A real abstract saying garlic interacts with warfarin, synced from the fake E-utilities by the page
    itself (linked and its relations extracted as every sync does): garlic's card states the interaction
    with the abstract's own sentence as its quote."""
    eutils = running_fakes.app.eutils
    [pmid] = eutils.add_record(GARLIC_WARFARIN_RECORD.read_bytes())
    try:
        assert GARLIC_SENTENCE in GARLIC_WARFARIN_RECORD.read_text(encoding="utf-8")
        start_sync_on_the_page(page, "warfarin", f"{pmid}[uid]")
        page.wait_for_selector("#sync-status [data-status=done]", timeout=SYNC_TIMEOUT_MS)
        assert page.get_attribute("#sync-status [data-job]", "data-fetched") == "1"
    finally:
        eutils.remove(pmid)
    page.click("nav button[data-view=herb]")
    page.fill("#herb-form input[name=id]", "garlic")
    page.click("#herb-form button")
    finding = page.wait_for_selector(f"#herb-card .finding[data-target='{WARFARIN}']")
    assert finding.get_attribute("data-relation") == "interaction" and finding.get_attribute("data-pmid") == pmid
    assert "Interaction with Warfarin" in finding.query_selector("strong").inner_text()
    assert finding.query_selector("blockquote").inner_text() == GARLIC_SENTENCE
    assert finding.query_selector(".quote-check").inner_text() == "quote re-read in the stored text"
    finding.scroll_into_view_if_needed()
    shot(page, artefacts, "08-herb-interaction")


def test_a_sync_started_on_the_page_shows_its_progress_until_it_ends(page, server, running_fakes, artefacts) -> None:
    """The page starts a sync of every record the fake holds (466, three EFetch batches, each answered
    a second late) and follows it: the records fetched advance batch by batch to the plan, then done."""
    eutils = running_fakes.app.eutils
    total = len(eutils.records)
    page.evaluate(RECORD_SYNC_STATES)
    eutils.inject(Fault.slow(1.0), times=None, path="efetch.fcgi")
    try:
        start_sync_on_the_page(page, "everything", "all[sb]")
        page.wait_for_selector("#sync-status [data-status=running][data-fetched]:not([data-fetched='0'])")
        shot(page, artefacts, "09-sync-running")
        page.wait_for_selector("#sync-status [data-status=done]", timeout=SYNC_TIMEOUT_MS)
    finally:
        eutils.faults.clear()
    states = page.evaluate("window.syncStates")
    [job] = {state["job"] for state in states}
    running = [state for state in states if state["status"] == "running" and state["planned"] == total]
    fetched = [state["fetched"] for state in running]
    assert fetched == sorted(fetched) and any(0 < done < total for done in fetched)  # part way, never back
    assert states[-1] == {"job": job, "status": "done", "fetched": total, "planned": total}
    assert f"{total} of {total} record(s) fetched" in page.inner_text("#sync-status")
    assert "synced up to" in page.inner_text("#sync-status .sync")
    shot(page, artefacts, "10-sync-done")
