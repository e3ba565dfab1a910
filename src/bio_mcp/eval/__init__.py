"""The evaluation data sets and measures, importing no layer so that any layer may read them (the
linker and the relation extractor train on BC5CDR and PPR)."""
