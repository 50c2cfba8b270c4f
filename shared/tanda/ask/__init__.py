"""The ``/v1/ask`` synthesis stage (ASK-03 … ASK-10): numbered ``[S#]`` sources in, one cited
answer out. Pure but for the ``ChatModel`` port it is handed; retrieval and credits are the
service's (``tanda.service.ask_v1``)."""
