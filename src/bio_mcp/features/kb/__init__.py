"""The `kb` toolset (seed 002): the knowledge graph of the corpus, its search and budgeted traversal."""
