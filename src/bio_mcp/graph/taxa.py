"""The organisms biomedical literature names most: NCBI Taxonomy id -> the MeSH organism descriptor.

PubTator3 names species by NCBI Taxonomy id; MeSH, NLM's indexing (the Humans, Mice and Rats check
tags are on most records) and the MeSH linker name the same organisms by descriptor, and MeSH carries
no taxonomy ids. With this table PubTator3's human, mouse or E. coli is the graph's own mesh:
entity, titled by MeSH, instead of a second one titled by its id. Each descriptor is the one MeSH
gives for the species (a genus where MeSH has no species descriptor: Arabidopsis, Mesocricetus);
a taxon not listed stays `ncbitaxon:<id>`.
"""

from __future__ import annotations

from types import MappingProxyType

MESH_ORGANISM_OF_TAXON = MappingProxyType({
    # Vertebrates
    "9606": "D006801",  # Homo sapiens: Humans
    "10090": "D051379",  # Mus musculus: Mice
    "10116": "D051381",  # Rattus norvegicus: Rats
    "7955": "D015027",  # Danio rerio: Zebrafish
    "8355": "D014982",  # Xenopus laevis
    "9031": "D002645",  # Gallus gallus: Chickens
    "9615": "D004285",  # Canis lupus familiaris: Dogs
    "9823": "D034421",  # Sus scrofa
    "9913": "D002417",  # Bos taurus: Cattle
    "9940": "D012756",  # Ovis aries: Sheep
    "9796": "D006736",  # Equus caballus: Horses
    "9685": "D002415",  # Felis catus: Cats
    "9986": "D011817",  # Oryctolagus cuniculus: Rabbits
    "10141": "D006168",  # Cavia porcellus: Guinea Pigs
    "10036": "D008647",  # Mesocricetus auratus: Mesocricetus
    "9544": "D008253",  # Macaca mulatta
    "9541": "D008252",  # Macaca fascicularis
    # Invertebrates, plants, fungi, protists
    "7227": "D004331",  # Drosophila melanogaster
    "6239": "D017173",  # Caenorhabditis elegans
    "3702": "D017360",  # Arabidopsis thaliana: Arabidopsis
    "4932": "D012441",  # Saccharomyces cerevisiae
    "559292": "D012441",  # Saccharomyces cerevisiae S288C
    "5476": "D002176",  # Candida albicans
    "5833": "D010963",  # Plasmodium falciparum
    # Bacteria
    "562": "D004926",  # Escherichia coli
    "1280": "D013211",  # Staphylococcus aureus
    "287": "D011550",  # Pseudomonas aeruginosa
    "1773": "D009169",  # Mycobacterium tuberculosis
    "1423": "D001412",  # Bacillus subtilis
    "573": "D007711",  # Klebsiella pneumoniae
    "210": "D016480",  # Helicobacter pylori
    "1313": "D013296",  # Streptococcus pneumoniae
    "1639": "D008089",  # Listeria monocytogenes
    "1496": "D016360",  # Clostridioides difficile
    "470": "D040981",  # Acinetobacter baumannii
    "1351": "D013293",  # Enterococcus faecalis
    "90371": "D012486",  # Salmonella enterica serovar Typhimurium: Salmonella typhimurium
    # Viruses
    "2697049": "D000086402",  # SARS-CoV-2
    "11676": "D015497",  # HIV-1
    "10407": "D006515",  # Hepatitis B virus
    "11320": "D009980",  # Influenza A virus
    "10376": "D004854",  # Human gammaherpesvirus 4 (Epstein-Barr virus): Herpesvirus 4, Human
})
