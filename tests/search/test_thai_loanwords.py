"""English words spelt in Thai: the spelling keys on real Thai spellings (pythainlp's transliteration
dictionary and drug names as Thai pharmacies write them), and the index's edit budget."""

from __future__ import annotations

import pytest
from pythainlp.corpus.th_en_translit import get_transliteration_dict

from bio_mcp.search.thai_loanwords import LoanwordIndex, edit_budget, english_key, looks_native, thai_key

# Entries of pythainlp's Thai-English transliteration dictionary, each reading as its English word.
DICTIONARY_PAIRS = [
    ("อะม็อกซิซิลลิน", "amoxicillin"),  # ็ dropped, ซ for c before i, doubled l folded
    ("อีริโทรไมซิน", "erythromycin"),  # โทร: the leading vowel after the cluster; ไ for y
    ("คลอโรฟอร์ม", "chloroform"),  # อ as the vowel o after ล; ร์ kept under the karan
    ("คอเลสเตอรอล", "cholesterol"),  # อ before a leading vowel is still o
    ("ควินิน", "quinine"),  # qu -> kw, the final silent e
    ("ออกซิเจน", "oxygen"),  # a leading อ carries the vowel; x -> ks; soft g -> จ
    ("อินซูลิน", "insulin"),
]


@pytest.mark.parametrize(("thai", "english"), DICTIONARY_PAIRS)
def test_a_dictionary_loanword_and_its_english_word_share_a_key(thai: str, english: str) -> None:
    assert english in get_transliteration_dict()[thai]["en"]
    assert thai_key(thai) == english_key(english)


@pytest.mark.parametrize(
    ("thai", "english"),
    [("วาร์ฟาริน", "warfarin"), ("เมทฟอร์มิน", "metformin"), ("โซราฟีนิบ", "sorafenib"),
     ("ซิมวาสแตติน", "simvastatin"), ("คลอพิโดเกรล", "clopidogrel"), ("โอเมพราโซล", "omeprazole"),
     ("แทมม็อกซิเฟน", "tamoxifen"), ("ไซโคลสปอริน", "cyclosporine"), ("พาราเซตามอล", "paracetamol")],
)
def test_drug_names_spelt_in_thai_share_the_key_of_their_english_names(thai: str, english: str) -> None:
    assert thai_key(thai) == english_key(english)


def test_the_edit_budget_grows_with_the_key_and_short_keys_are_not_looked_up() -> None:
    assert edit_budget("lactos") is None  # six letters: ordinary Thai words collide with them
    assert edit_budget("warfarin") == 0
    assert edit_budget("takrolimos") == 1
    assert edit_budget("siklofosfamid") == 2


def test_the_index_finds_a_spelling_within_its_budget_and_nothing_else() -> None:
    index = LoanwordIndex({"Tacrolimus": ["mesh:D016559"], "Warfarin": ["mesh:D014859"], "Coumadin": ["mesh:D014859"]})
    warfarin = index.match("วาร์ฟาริน")
    assert warfarin is not None and warfarin.values == ("mesh:D014859",) and warfarin.edits == 0
    # Thai writes the u of tacrolimus with ั (a): one edit in ten letters.
    tacrolimus = index.match("ทาโครลิมัส")
    assert tacrolimus is not None and tacrolimus.english == "Tacrolimus" and tacrolimus.edits == 1
    # One edit in eight letters is too many: วาร์ฟาริล is not warfarin.
    assert index.match("วาร์ฟาริล") is None
    assert index.match("ขิง") is None


def test_a_spelling_with_letters_of_native_thai_words_is_not_looked_up() -> None:
    # ผักเสี้ยน (a vegetable) reads as "paksian", one key away from nothing but a brand name:
    # ผ and the tone mark are Thai's own, not a loanword's.
    assert looks_native("ผักเสี้ยน") and not looks_native("วาร์ฟาริน")
    index = LoanwordIndex({"Paxene": ["mesh:D017239"], "Paksiane": ["x"]})
    assert index.match("ผักเสี้ยน") is None


def test_spellings_of_one_key_answer_together_in_a_fixed_order() -> None:
    # Ciclosporin and Cyclosporine spell one key: both names' entities answer, the first name shown.
    index = LoanwordIndex({"Cyclosporine": ["mesh:D016572"], "Ciclosporin": ["mesh:D016572", "mesh:C000001"]})
    found = [index.match("ไซโคลสปอริน") for _ in range(3)]
    assert {(m.english, m.values) for m in found if m} == {("Ciclosporin", ("mesh:C000001", "mesh:D016572"))}
