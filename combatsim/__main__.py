"""``python -m combatsim`` is the same as the ``combatsim`` command."""

import sys

from .cli import main

sys.exit(main())
