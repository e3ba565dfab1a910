"""The compact word trie segments Thai exactly as pythainlp's own Trie does."""

from __future__ import annotations

from pythainlp.corpus import thai_words
from pythainlp.tokenize import Tokenizer
from pythainlp.util import Trie

from bio_mcp.search.word_trie import WordTrie, thai_segments


def test_segments_like_pythainlp_over_its_word_list_and_the_herb_names(data_dir):
    herbs = [line.split("\t")[0] for line in (data_dir / "herbs" / "thai_herb_names.tsv").read_text("utf-8").splitlines()]
    words = frozenset(thai_words()) | frozenset(herbs)
    ours, theirs = WordTrie(words), Tokenizer(custom_dict=list(words), engine="newmm")
    text = (data_dir / "herbs" / "thai_herb_names.tsv").read_text("utf-8")
    samples = [text[start:start + 300] for start in range(0, len(text), 150)]
    samples += ["กินขมิ้นชันได้ไหม", "ฟ้าทะลายโจรแก้หวัด 1,000 มก.", "  ก  ", ""]
    assert [thai_segments(sample, ours) for sample in samples] == [theirs.word_tokenize(s) for s in samples]
    assert len(ours) == len(words) and "ขมิ้นชัน" in ours and "ขมิ้นชันx" not in ours
    assert ours.prefixes("กินขมิ้นชัน", 3) == Trie(words).prefixes("กินขมิ้นชัน", 3) == ["ขม", "ขมิ้น", "ขมิ้นชัน"]
