"""The evaluation data sets and measures: one reader per data set (beir, pubmedqa, pubtator, ppr)
and one metrics module, importing no layer so that any layer may read them (the linker and the
relation extractor train on BC5CDR and PPR); `corpus_fill` builds on features/ to fill a scratch
corpus from their documents."""
