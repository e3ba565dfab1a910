"""Sections of plain text, Markdown and HTML, and linking by kg_names, on real text (PPR abstracts,
the shared Thai herb table)."""

from __future__ import annotations

from pathlib import Path

from bio_mcp.features.evidence.ingest_sections import (
    detect_lang,
    sections_of_html,
    sections_of_markdown,
    sections_of_plain,
)
from bio_mcp.graph.name_linking import NameLinker
from tests.evidence.ingest.conftest import herb_names
from tests.evidence.ingest.documents import ppr_abstracts, thai_herb_document


def _halves(data_dir: Path) -> tuple[str, str, str]:
    (_, abstract), = ppr_abstracts(data_dir, 1)
    words = abstract.paragraphs[0].split()
    return abstract.title, " ".join(words[: len(words) // 2]), " ".join(words[len(words) // 2 :])


def test_plain_text_headings_by_shape_and_wrapped_lines_joined(data_dir: Path) -> None:
    title, first, second = _halves(data_dir)
    wrapped = "\n".join(first[i : i + 70] for i in range(0, len(first), 70))
    text = f"{title}\n\nBACKGROUND\n{wrapped}\n\n2. Results\n{second}\n"
    parsed = sections_of_plain(text)
    assert parsed.title == title
    assert [s.label for s in parsed.sections] == ["BACKGROUND", "2. Results"]
    # Lines cut at arbitrary characters are joined with a space: every word of the source is there.
    assert "".join(parsed.sections[0].text.split()) == "".join(first.split())
    assert parsed.sections[1].text == second


def test_markdown_and_html_sections(data_dir: Path) -> None:
    title, first, second = _halves(data_dir)
    markdown = f"# {title}\n\n{first}\n\n## Results\n\n- {second}\n\n```\ncode stays\n```\n"
    parsed = sections_of_markdown(markdown)
    assert parsed.title == title and [s.label for s in parsed.sections] == [None, "Results"]
    assert parsed.sections[1].text == f"{second} code stays"
    html = (
        f"<html><head><title>{title}</title><script>var hidden = 1;</script></head><body><h1>{title}</h1>"
        f"<p>{first}</p><h2>Results</h2><div><p>{second}</p></div><style>p {{}}</style></body></html>"
    )
    parsed = sections_of_html(html)
    assert parsed.title == title
    assert [(s.label, s.text) for s in parsed.sections] == [(None, first), ("Results", second)]
    assert "hidden" not in str(parsed)


def test_language_by_script(data_dir: Path) -> None:
    assert detect_lang(thai_herb_document(data_dir).text) == "th"
    assert detect_lang(ppr_abstracts(data_dir, 1)[0][1].text) == "en"


def test_names_link_thai_anywhere_latin_as_whole_words_longest_first(data_dir: Path) -> None:
    linker = NameLinker(herb_names(data_dir), lambda entity: "Organism")
    text = "ผงขมิ้นชันและขิง: Curcuma longa, turmeric; not Curcumas or gingerbread. Zingiber officinale"
    found = {(m.text, m.entity_id) for m in linker.link(text)}
    assert ("ขมิ้นชัน", "mesh:D030024") in found and ("ขิง", "mesh:D020939") in found
    assert ("Curcuma longa", "mesh:D030024") in found and ("turmeric", "mesh:D030024") in found
    assert ("Zingiber officinale", "mesh:D020939") in found
    assert not any(t.lower().startswith(("curcumas", "ginger")) for t, _ in found)
    # A span is linked once: no shorter name inside a longer one.
    spans = [(m.start, m.end) for m in linker.link(text)]
    assert all(not (a < d and c < b) for i, (a, b) in enumerate(spans) for (c, d) in spans[i + 1 :] if (a, b) != (c, d))


def test_a_one_paragraph_text_is_kept_whole_not_cut_to_a_title() -> None:
    # A real abstract (PMID 24790635, CC BY: tests/evidence/records/) saved as one line; it was taken
    # as the file's title and cut at 300 characters, losing the sentence about garlic and warfarin.
    record = (Path(__file__).resolve().parents[1] / "records" / "pmid_24790635.xml").read_text(encoding="utf-8")
    abstract = record.split("<AbstractText>", 1)[1].split("</AbstractText>", 1)[0]
    sectioned = sections_of_plain(abstract + "\n")
    assert sectioned.title is None
    assert " ".join(section.text for section in sectioned.sections) == abstract
    short = sections_of_plain("Herb-warfarin interactions\n\n" + abstract)
    assert short.title == "Herb-warfarin interactions" and short.sections[0].text == abstract
