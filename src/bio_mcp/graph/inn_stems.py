"""Drug names by the WHO's International Nonproprietary Name stems (monoclonal antibodies, kinase
inhibitors, GLP-1 agonists, gliptins, gliflozins, proton-pump inhibitors, sartans, beta blockers, ...):
a drug newer than the MeSH release the linker reads (semaglutide, tirzepatide), or one MeSH lists
only as a supplementary concept (pembrolizumab), is still known for a drug by its stem.

    inn_drugs("Does semaglutide reduce body weight?")  # -> ["semaglutide"]
"""

from __future__ import annotations

import re

INN_DRUG = re.compile(
    r"\b[a-z]{3,}(?:mab|tinib|ciclib|rafenib|parib|lisib|glutide|gliptin|gliflozin|glinide|prazole|sartan|olol|"
    r"dipine|vastatin|previr|buvir|asvir|tegravir|navir|floxacin|cillin|conazole|xaban|gatran|parin|dronate|"
    r"triptan|setron|lukast|denafil|oxetine|tidine)\b"
)


def inn_drugs(text: str) -> list[str]:
    """The words of `text` (lower-cased, each once, in order) that are drug names by their INN stem."""
    return list(dict.fromkeys(INN_DRUG.findall(text.lower())))


def is_inn_drug(word: str) -> bool:
    return INN_DRUG.fullmatch(word.lower()) is not None
