"""The entity linker on real BC5CDR development abstracts and MeSH 2024: golden mentions, case
rules, abbreviations, variants, NCT ids, PubTator round trip, and the `eval linking` command's
scores against the targets (a quality regression fails here).

The linker under test learns from the shared BC5CDR training file with the development split's
documents held out (that file holds them too), exactly as `bio-mcp eval linking` builds it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bio_mcp.cli import app
from bio_mcp.config import load_settings
from bio_mcp.data_files import BC5CDR_PRIORS
from bio_mcp.eval.pubtator import format_document, parse_pubtator, read_pubtator
from bio_mcp.graph.abbreviations import find_abbreviations, short_form_uses
from bio_mcp.graph.linking import (
    CurrentIdLinker,
    TrainingPairs,
    british_spelling,
    build_linker,
    head_variants,
    load_linker_from,
    training_path_of,
)
from bio_mcp.graph.linking_eval import predicted_annotations
from bio_mcp.graph.mentions import group_mentions
from bio_mcp.graph.vocabulary import load_supplementary_names, load_vocabulary
from bio_mcp.mesh_files import pharm_actions_path

# Document-level concept F1 on the development split must stay at or above these.
TARGETS = {"Disease": 0.82, "Chemical": 0.85}


@pytest.fixture(scope="module")
def paths(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    bc5cdr = data_dir / "bench" / "bc5cdr"
    return {
        "mesh": data_dir / "mesh" / "mesh_descriptors_2024.jsonl",
        "training": bc5cdr / "CDR_TrainingSet.PubTator.txt",
        "dev": bc5cdr / "CDR_DevelopmentSet.PubTator.txt",
        "home": tmp_path_factory.mktemp("home"),
    }


@pytest.fixture(scope="module")
def dev(paths):
    return read_pubtator(paths["dev"])


@pytest.fixture(scope="module")
def linker(paths, dev, linker_cache):
    # The run's cache, where `bio-mcp eval linking` below finds the same held-out linker built.
    held_out = frozenset(document.pmid for document in dev)
    return load_linker_from(paths["mesh"], paths["training"], linker_cache, held_out)


@pytest.fixture(scope="module")
def mesh_only(paths, linker_cache):
    return build_linker(load_vocabulary(paths["mesh"], linker_cache))


def spans(linker, text: str) -> dict[tuple[int, int], tuple[str, str]]:
    return {(m.start, m.end): (m.entity_id, m.linker) for m in linker.link(text)}


# (pmid, start, end, text, MeSH id): gold mentions of BC5CDR development abstracts the linker must find.
GOLDEN = [
    ("6794356", 0, 29, "Tricuspid valve regurgitation", "D014262"),
    ("6794356", 34, 51, "lithium carbonate", "D016651"),
    ("6794356", 146, 170, "congestive heart failure", "D006333"),
    ("6504332", 190, 198, "seizures", "D012640"),  # a plural
    ("6436733", 73, 86, "valproic acid", "D014635"),
    ("6436733", 103, 106, "VPA", "D014635"),  # defined in the text: "Valproic acid (VPA)"
    ("6436733", 237, 240, "VPA", "D014635"),  # ... and every later use
    ("6436733", 124, 133, "epileptic", "D004827"),  # adjective of Epilepsy
    # Heads the training set never pairs with these modifiers (`head_variants`).
    ("15858223", 63, 77, "liver toxicity", "D056486"),  # Chemical and Drug Induced Liver Injury
    ("12739036", 283, 300, "renal involvement", "D007674"),  # Kidney Diseases
]


def test_golden_mentions_of_development_abstracts(linker, dev) -> None:
    by_pmid = {document.pmid: document for document in dev}
    for pmid, start, end, text, ui in GOLDEN:
        document = by_pmid[pmid]
        assert document.text[start:end] == text
        found = spans(linker, document.text)
        assert found.get((start, end), (None,))[0] == f"mesh:{ui}", (pmid, text, found.get((start, end)))
    vpa = [m for m in linker.link(by_pmid["6436733"].text) if m.text == "VPA"]
    assert len(vpa) >= 4 and {m.linker for m in vpa} == {"abbreviation"}


def test_mentions_are_well_formed(linker, dev) -> None:
    for document in dev[:50]:
        mentions = linker.link(document.text)
        assert mentions == sorted(mentions, key=lambda m: (m.start, m.end))
        for m in mentions:
            assert document.text[m.start:m.end] == m.text
            assert 0 < m.confidence <= 1
            assert m.entity_id.startswith(("mesh:D", "mesh:C", "nct:NCT"))
            assert m.linker in {"mesh-dictionary", "mesh-variant", "mesh-head", "mesh-supplementary", "coordinated",
                                "bc5cdr-train", "bc5cdr-train-head", "abbreviation", "nct"}
        scored = [m for m in mentions if m.entity_type in ("Chemical", "Disease")]
        assert all(a.end <= b.start for a, b in pairwise(scored)), "chemical/disease spans overlap"


def test_mentions_group_per_entity_as_their_edges_store_them(linker, dev) -> None:
    """`group_mentions`: one value per entity in id order, every span of it in text order, the
    weight and linker of its most confident span (the first of equals)."""
    grouped_some = False
    for document in dev[:50]:
        mentions = linker.link(document.text)
        grouped = group_mentions(mentions)
        assert [found.entity_id for found in grouped] == sorted({m.entity_id for m in mentions})
        for found in grouped:
            own = [m for m in mentions if m.entity_id == found.entity_id]
            best = max(own, key=lambda m: m.confidence)
            props = json.loads(found.props)
            assert props == {"spans": [[m.start, m.end, m.text] for m in own], "linker": best.linker,
                             "confidence": best.confidence}
            assert found.weight == round(best.confidence, 6) and found.entity_type == best.entity_type
            grouped_some |= len(own) > 1
    assert grouped_some


def test_head_variants_carry_a_modifier_reading_to_the_other_heads_of_its_group() -> None:
    pairs = TrainingPairs(defaultdict(Counter), defaultdict(set), defaultdict(Counter), defaultdict(Counter))
    pairs.ids["renal damage"]["mesh:D007674"] += 2
    pairs.ids["renal dysfunction"]["mesh:D007674"] += 3
    pairs.ids["liver injury"]["mesh:D056486"] += 1  # once only: not enough to generalise
    pairs.ids["cardiac toxicity"].update({"mesh:D066126": 2, "mesh:D006331": 2})  # no reading dominates
    variants = head_variants(pairs)
    # Harm done and a state are read apart: "renal damage" says nothing of "renal disease".
    assert variants["renal injury"] == variants["renal toxicity"] == "mesh:D007674"
    assert variants["renal disorders"] == variants["renal involvement"] == "mesh:D007674"
    assert not any(key.startswith(("liver ", "cardiac ")) for key in variants)


def test_concepts_beyond_the_descriptors_are_named_by_their_training_spelling(linker) -> None:
    # Supplementary concepts (C...) have no entry in the descriptor file: the training set's most
    # common name names them, a spelt-out one before the acronym an abstract then uses.
    assert linker.names.get("mesh:C047426") == "venlafaxine"
    assert linker.names.get("mesh:C020972") == "Pyrrolidine dithiocarbamate"  # 2 times, "PDTC" 8
    # Spellings that differ in case only are counted together ("Basd  ne", a garbled token, once).
    assert linker.names.get("mesh:C019269") == "benzylthiouracil"
    assert linker.names.get("mesh:D000082") is None  # a descriptor: the vocabulary names it
    assert all(entity_id.startswith("mesh:C") for entity_id in linker.names)


def test_concepts_mesh_files_under_a_descriptor_are_read_as_that_descriptor(linker) -> None:
    text = "Sorafenib and gabapentin were given; venlafaxine too."
    # Scoring against BC5CDR reads its own (MeSH 2015) ids ...
    assert [m.entity_id for m in linker.link(text)] == ["mesh:C471405", "mesh:C040029", "mesh:C047426"]
    # ... the corpus's graph and queries read the descriptors MeSH 2024 files them under, by name
    # or by entry term (venlafaxine is one of Venlafaxine Hydrochloride's).
    current = [(m.text, m.entity_id) for m in CurrentIdLinker(linker).link(text)]
    assert current == [("Sorafenib", "mesh:D000077157"), ("gabapentin", "mesh:D000077206"),
                       ("venlafaxine", "mesh:D000069470")]
    assert all(entity_id.startswith("mesh:C") and target.startswith("mesh:D")
               for entity_id, target in linker.current_ids.items())
    # A descriptor of another type is not the concept: BC5CDR's disease "muscle contractions".
    assert linker.names.get("mesh:C536214") == "muscle contractions" and "mesh:C536214" not in linker.current_ids


def test_acronyms_match_only_as_written(mesh_only) -> None:
    assert spans(mesh_only, "Patients with AIDS were seen.").get((14, 18), ("",))[0] == "mesh:D000163"
    assert (10, 14) not in spans(mesh_only, "The drug aids recovery.")


def test_plural_and_adjectival_variants(mesh_only) -> None:
    text = "Spontaneously hypertensive rats had seizures; anemic and ischemic patients too."
    found = {m.text: (m.entity_id, m.linker) for m in mesh_only.link(text)}
    assert found["hypertensive"] == ("mesh:D006973", "mesh-variant")  # Hypertension
    assert found["seizures"][0] == "mesh:D012640"
    assert found["anemic"] == ("mesh:D000740", "mesh-variant")  # Anemia
    assert found["ischemic"] == ("mesh:D007511", "mesh-variant")  # Ischemia
    # The organism reading of the longer phrase is kept alongside the disease inside it.
    assert any(m.entity_type == "Organism" and m.start == 0 for m in mesh_only.link(text))


def test_a_name_split_by_brackets_and_hyphens_is_one_name(mesh_only) -> None:
    # Real sentences of the shared PubMed records (20854900, 15838709). MeSH spells it
    # "Di(2-ethylhexyl)phthalate"; folded, "di-(" and ") " are two spaces, and the name and every
    # "DEHP" it defines went unlinked.
    text = ("Hepatotoxicity of di-(2-ethylhexyl)phthalate is attributed to calcium aggravation. "
            "Di-(2-ethylhexyl)phthalate (DEHP) is a widely used plasticizer; di(2-ethylhexyl) phthalate "
            "and DEHP-induced liver damage.")
    found = [(m.text, m.entity_id) for m in mesh_only.link(text) if m.entity_id == "mesh:D004051"]
    assert found == [("di-(2-ethylhexyl)phthalate", "mesh:D004051"), ("Di-(2-ethylhexyl)phthalate", "mesh:D004051"),
                     ("DEHP", "mesh:D004051"), ("di(2-ethylhexyl) phthalate", "mesh:D004051"), ("DEHP", "mesh:D004051")]
    # A bracket opened before the word is not inside a name, and ". " never joins.
    text = "The model, based on 1H nuclear magnetic resonance (NMR) spectroscopy of urine, works. Cancer cells grew."
    assert not any(")" in m.text or "." in m.text for m in mesh_only.link(text))


def test_a_chemical_after_a_substituent_and_a_hyphen_is_part_of_a_longer_name(linker) -> None:
    # The shared record 34588381's "2-ethyl-1-hexanol (2EH)" had become 1-hexanol, and a sync stated
    # "1-hexanol CAUSES" liver injury from "2EH-induced hepatotoxicity".
    text = "The metabolite 2-ethyl-1-hexanol (2EH) is a weak peroxisome proliferator; hexanol was not."
    found = {m.text: m.entity_id for m in linker.link(text)}
    assert "1-hexanol" not in found and "2EH" not in found and found["hexanol"] == "mesh:D000441"


def test_an_organ_modifier_with_a_generic_head_reads_as_its_diseases_descriptor(mesh_only) -> None:
    # BC5CDR training abstracts 11334364 and 9199746: MeSH has "Lung Diseases" and "Retinal Diseases",
    # not "lung toxicity" or "retinal toxicity".
    text = ("This study assessed the ability of IH636 grape seed proanthocyanidin extract (GSPE) to prevent "
            "amiodarone (AMI)-induced lung toxicity. We present a case of presumed amikacin retinal toxicity.")
    found = {m.text: (m.entity_id, m.linker) for m in mesh_only.link(text)}
    assert found["lung toxicity"] == ("mesh:D008171", "mesh-head")  # Lung Diseases
    assert found["retinal toxicity"] == ("mesh:D012164", "mesh-head")  # Retinal Diseases
    # A modifier of several words (abstract 12695819: "white matter abnormalities", Leukoencephalopathies,
    # whose entry term is "White Matter Diseases"), written with a hyphen too; a dictionary term
    # inside the phrase ("toxicity") gives way to it.
    found = {m.text: (m.entity_id, m.linker) for m in mesh_only.link(
        "Among the 5 patients with white matter abnormalities, 4 had white-matter abnormalities; "
        "mitochondrial toxicity is an early common event.")}
    assert found["white matter abnormalities"] == found["white-matter abnormalities"] == ("mesh:D056784", "mesh-head")
    assert found["mitochondrial toxicity"] == ("mesh:D028361", "mesh-head")  # Mitochondrial Diseases
    assert "toxicity" not in found
    # Only organ systems' and mental disorders' descriptors: not Chronic Disease (C23) nor after a
    # weak head ("bone involvement" is not Bone Diseases).
    assert not {"chronic toxicity", "bone involvement"} & {m.text for m in mesh_only.link(
        "Chronic toxicity was rare; bone involvement was seen.")}
    # A modifier giving the organ's disease a course names that one disease, not the organ's harm:
    # "Chronic Renal Diseases" is chronic kidney disease (Renal Insufficiency, Chronic), "chronic
    # renal toxicity" is not; the organ's reading stays.
    found = {m.text: m.entity_id for m in mesh_only.link("chronic renal toxicity and end stage renal damage")}
    assert "mesh:D051436" not in found.values() and "mesh:D007676" not in found.values()  # CKD; Kidney Failure, Chronic


def test_a_modifier_coordinated_before_a_disease_phrase_shares_its_head(mesh_only) -> None:
    # The title of BC5CDR training abstract 20477932: "memory ... impairments" is Memory Disorders.
    text = "Cocaine causes memory and learning impairments in rats: involvement of nuclear factor kappa B."
    found = {m.text: (m.entity_id, m.linker) for m in mesh_only.link(text)}
    assert found["learning impairments"][0] == "mesh:D007859"  # Learning Disabilities
    assert found["memory"] == ("mesh:D008569", "coordinated")  # Memory Disorders
    # A modifier whose phrase with the head names no disease is left alone.
    assert not any(m.linker == "coordinated" for m in mesh_only.link("Age and renal injury were compared."))


def test_supplementary_concepts_with_a_pharmacological_action_are_linked_by_their_name(paths, linker_cache) -> None:
    # The title of BC5CDR training abstract 12464714: rizatriptan is a supplementary concept
    # (C093622), not a descriptor; the linker learns it from the pharmacological actions' table.
    supplementary = load_supplementary_names(pharm_actions_path(paths["mesh"]))
    linker = build_linker(load_vocabulary(paths["mesh"], linker_cache), supplementary=supplementary)
    text = "Crossover comparison of efficacy and preference for rizatriptan 10 mg versus ergotamine/caffeine in migraine."
    found = {m.text: (m.entity_id, m.entity_type, m.linker) for m in linker.link(text)}
    assert found["rizatriptan"] == ("mesh:C093622", "Chemical", "mesh-supplementary")
    assert linker.names["mesh:C093622"] == "rizatriptan"
    # Descriptors keep their reading.
    assert found["ergotamine"][0] == "mesh:D004878" and found["caffeine"][0] == "mesh:D002110"


def test_a_drug_is_linked_though_its_branch_of_proteins_is_not(linker) -> None:
    # The linker drops concepts of tree branches BC5CDR's training split shows mostly wrong
    # (proteins, enzymes: BC5CDR does not annotate them). Infliximab, etanercept and trastuzumab are
    # proteins and drugs (MeSH's pharmacological actions' table): they were never linked, so a
    # question or a sentence about them had no entity.
    text = "Infliximab and etanercept raised the risk of tuberculosis; trastuzumab caused cardiotoxicity."
    found = {m.text: (m.entity_id, m.entity_type) for m in linker.link(text)}
    assert found["Infliximab"] == ("mesh:D000069285", "Chemical")
    assert found["etanercept"] == ("mesh:D000068800", "Chemical")
    assert found["trastuzumab"] == ("mesh:D000068878", "Chemical")
    # A protein with no pharmacological action stays unlinked, as before.
    assert not {m.text for m in linker.link("Serum albumin and ferritin were measured.")} & {"ferritin"}


def test_british_spellings(mesh_only) -> None:
    text = "Haemorrhage and oedema after oestrogen; ischaemic patients had diarrhoea and Wilms tumours."
    found = {m.text: (m.entity_id, m.linker) for m in mesh_only.link(text)}
    assert found["Haemorrhage"][0] == "mesh:D006470"  # Hemorrhage
    assert found["oedema"][0] == "mesh:D004487"  # Edema
    assert found["oestrogen"][0] == "mesh:D004967"  # Estrogens
    assert found["ischaemic"] == ("mesh:D007511", "mesh-variant")  # Ischemia: British and adjectival
    assert found["diarrhoea"] == ("mesh:D003967", "mesh-variant")  # Diarrhea
    assert found["Wilms tumours"] == ("mesh:D009396", "mesh-variant")  # Wilms Tumor: British and plural
    # Only a stem at a word's start or a suffix at its end is respelt: not "chemical" or "hemisphere".
    assert british_spelling("chemical hemisphere") == "chemical hemisphere"
    assert british_spelling("hemorrhagic anemia") == "haemorrhagic anaemia"


def test_an_abbreviation_whose_long_form_names_nothing_is_not_linked(mesh_only) -> None:
    text = "Serum acid labile subunit (ALS) fell. ALS was low."
    assert all(m.text != "ALS" for m in mesh_only.link(text))
    defined = "Amyotrophic lateral sclerosis (ALS) is rare. ALS patients."
    als = [m for m in mesh_only.link(defined) if m.text == "ALS"]
    assert len(als) == 2 and {m.entity_id for m in als} == {"mesh:D000690"}


def test_a_short_form_is_used_as_a_word_or_its_plural_never_inside_another(dev) -> None:
    texts = {document.pmid: document.text for document in dev}
    auc = next(a for a in find_abbreviations(texts["8643973"]) if a.short == "AUC")
    uses = [texts["8643973"][start:end] for start, end in short_form_uses(texts["8643973"], auc)]
    assert uses == ["AUC", "AUCs", "AUC", "AUC"]
    # "alpha-ENaC", "beta-ENaC": a subunit named after the hyphen is not the channel the SF defines.
    enac = next(a for a in find_abbreviations(texts["15075188"]) if a.short == "ENaC")
    used = short_form_uses(texts["15075188"], enac)
    assert used and all(texts["15075188"][start - 1] != "-" for start, _ in used)
    assert texts["15075188"].count("-ENaC") >= 8
    # "AUCCGRP" holds the SF CGRP inside a word.
    cgrp = next(a for a in find_abbreviations(texts["11284996"]) if a.short == "CGRP")
    assert all(texts["11284996"][start - 1] != "C" for start, _ in short_form_uses(texts["11284996"], cgrp))


def test_trial_ids(mesh_only) -> None:
    mentions = [m for m in mesh_only.link("Registered as NCT01234567 and NCT 00000102.") if m.entity_type == "Trial"]
    assert [(m.entity_id, m.linker, m.confidence) for m in mentions] == [
        ("nct:NCT01234567", "nct", 1.0), ("nct:NCT00000102", "nct", 1.0)]


def test_pubtator_output_round_trips(linker, dev) -> None:
    for document in dev[:20]:
        document_out = type(document)(document.pmid, document.title, document.abstract,
                                      predicted_annotations(linker, document))
        [parsed] = list(parse_pubtator(format_document(document_out).splitlines()))
        assert (parsed.pmid, parsed.title, parsed.abstract) == (document.pmid, document.title, document.abstract)
        assert sorted(parsed.annotations, key=repr) == sorted(document_out.annotations, key=repr)
        assert all(parsed.text[a.start:a.end] == a.text for a in parsed.annotations)


def test_eval_linking_meets_the_development_targets(paths, linker, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BIO_MCP_HOME", str(paths["home"]))
    monkeypatch.setenv("BIO_MCP_MESH_PATH", str(paths["mesh"]))
    monkeypatch.setenv("BIO_MCP_LINKER_TRAINING", str(paths["training"]))
    output = tmp_path / "pred.PubTator.txt"
    result = CliRunner().invoke(app, ["eval", "linking", "--data", str(paths["dev"]), "--output", str(output)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["documents"] == 500 and report["linker"]["held_out_documents"] == 500
    for kind, target in TARGETS.items():
        assert report["concept"][kind]["f1"] >= target, (kind, report["concept"][kind])
        assert 0 <= report["mention"][kind]["precision"] <= 1
    written = read_pubtator(output)
    assert len(written) == 500 and sum(len(d.annotations) for d in written) > 5000


def test_a_file_without_gold_is_linked_and_written_without_scores(paths, linker, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("BIO_MCP_HOME", str(paths["home"]))
    monkeypatch.setenv("BIO_MCP_MESH_PATH", str(paths["mesh"]))
    monkeypatch.setenv("BIO_MCP_LINKER_TRAINING", str(paths["training"]))
    plain = tmp_path / "plain.txt"
    lines = paths["dev"].read_text(encoding="utf-8").splitlines()
    plain.write_text("\n".join(line for line in lines if "|t|" in line or "|a|" in line), encoding="utf-8")
    output = tmp_path / "out.txt"
    result = CliRunner().invoke(app, ["eval", "linking", "--data", str(plain), "--output", str(output)])
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == ""
    written = read_pubtator(output)
    assert len(written) == 500 and all(d.annotations for d in written[:10])


def test_the_training_pairs_are_found_from_any_working_directory(
    data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Claude Desktop starts the server in /: the BC5CDR training pairs were once looked up from the
    # working directory, so such a server linked with MeSH alone. Now they ship in the package.
    monkeypatch.chdir(tmp_path)
    found = training_path_of(load_settings(BIO_MCP_HOME=str(tmp_path / "home")))
    assert found == BC5CDR_PRIORS.path and found.is_file()
