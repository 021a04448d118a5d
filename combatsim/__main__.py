"""``python -m combatsim`` is the same as the ``combatsim`` command."""

import sys

from .entry import main

sys.exit(main())
