"""``python -m schedrelax`` is the ``schedrelax`` command."""

import sys

from schedrelax.cli import main

sys.exit(main())
