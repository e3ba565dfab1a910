"""The evidence toolset (seed 003): herb knowledge, cited answers with a withhold policy,
contraindications, document ingestion and evaluation, on top of the corpus and the knowledge graph."""
