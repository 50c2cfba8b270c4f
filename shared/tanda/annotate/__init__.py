"""Segments → annotated answer: composition with exact offsets (:mod:`tanda.annotate.compose`),
the outcome types the pipeline's state carries (:mod:`tanda.annotate.outcome`), verdict
aggregation (:mod:`tanda.annotate.aggregate`) and the v1 gate (:mod:`tanda.annotate.gate`).

Nothing is imported here: the state imports the outcome types without the composition and
aggregation code, which a step imports when it runs (cold start, issue 24).
"""
