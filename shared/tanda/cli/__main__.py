"""``python -m tanda.cli …``: the ``tanda`` command without its console script."""

import sys

from tanda.cli import main

sys.exit(main())
