"""The pipeline of one answer (DESIGN §2 layer 4, §3, §4): the typed states (``states``), the
steps (``steps``, with the verdict routing in ``routing``) and the runners that chain them under
one deadline (``runners``)."""
