"""Laboratory measures among the linker's chemicals: what a text reports as a test value (ALT, AST,
creatinine, bilirubin), never the agent of an adverse effect.

"Serum ALT rose in patients with drug-induced liver injury" names a chemical for the linker
(alanine aminotransferase, or Alanine itself from "ALT"), but the sentence measures it; stating
"Alanine CAUSES drug-induced liver injury" from it is wrong. `is_lab_measure` is asked of every
candidate cause (`graph/adverse_effects.py`) and of every CAUSES edge read back (`tool.query_kg`).

The descriptors are the liver, kidney, heart and blood tests abstracts report, and Alanine (which
"ALT" and "alanine aminotransferase" are linked to); none is the chemical of a
chemical-induced-disease pair in BC5CDR's training or development split (cholesterol is: it
stays a possible cause).
"""

from __future__ import annotations

import re

LAB_MEASURES: frozenset[str] = frozenset(f"mesh:{ui}" for ui in (
    "D000409",  # Alanine (from "ALT", "alanine aminotransferase")
    "D000410",  # Alanine Transaminase
    "D001219",  # Aspartate Aminotransferases
    "D000469",  # Alkaline Phosphatase
    "D005723",  # gamma-Glutamyltransferase
    "D007770",  # L-Lactate Dehydrogenase
    "D003402",  # Creatine Kinase
    "D003404",  # Creatinine
    "D001663",  # Bilirubin
    "D014508",  # Urea
    "D001806",  # Blood Urea Nitrogen
    "D014527",  # Uric Acid
    "D000418",  # Albumins
    "D006454",  # Hemoglobins
    "D014336",  # Troponin
    "D002097",  # C-Reactive Protein
    "D014280",  # Triglycerides
))
# The tests' abbreviations, whatever the linker made of them.
_LAB_ABBREVIATION = re.compile(r"(?:S?ALT|AST|SGOT|SGPT|ALP|GGT|LDH|CK|CPK|BUN|S?Cr|CRP|Hb|TG)s?")


def is_lab_measure(entity_id: str, surface: str = "") -> bool:
    """Whether a chemical (its id, and the text that named it) is a laboratory measure."""
    return entity_id in LAB_MEASURES or bool(_LAB_ABBREVIATION.fullmatch(surface.strip()))
