"""One-shot: create a deployed stack's OpenSearch index (on a domain, its RRF search pipeline too).

Run with credentials of the stack's ``SearchAdminRole`` (output ``SearchAdminRoleArn``), from the
repository root, after ``sam deploy``::

    TANDA_INDEX=opensearch:$ENDPOINT TANDA_OPENSEARCH_SERVICE=aoss \\
    TANDA_OPENSEARCH_REGION=$REGION python infra/scripts/create_index.py [--dimensions 1024]

Idempotent: an existing index is left as it is; a pipeline that is not the RRF one (the min-max
pipeline a 2.15 domain was left with) is replaced. Serverless fuses the hybrid arms in tanda and
needs no pipeline (docs/opensearch.md). The bodies are the ones in ``infra/opensearch/`` (built by
``tanda.retrieval.opensearch_bodies``).
"""

from __future__ import annotations

import argparse
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dimensions",
        type=int,
        default=None,
        help="vector field size (1024 for Titan Text Embeddings v2); omit for lexical only",
    )
    args = parser.parse_args()

    from tanda.adapters.opensearch_index import OpenSearchIndex
    from tanda.settings import load_settings

    settings = load_settings()
    if not settings.index.startswith("opensearch:"):
        print("set TANDA_INDEX=opensearch:https://HOST", file=sys.stderr)
        return 2
    index = OpenSearchIndex.from_settings(settings, dimensions=args.dimensions)
    index.ensure_index(dimensions=args.dimensions)
    fused = (
        f"in the search pipeline {index.pipeline_name} (RRF)"
        if index.fusion_place == "pipeline"
        else "by tanda (RRF, no search pipeline)"
    )
    print(f"index {settings.opensearch_index} is ready; hybrid searches are fused {fused}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
