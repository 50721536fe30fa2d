"""``python -m picotorchgen [--check] [--out DIR]``."""

import sys

from .gen import main

sys.exit(main())
