"""``python -m ddrsearch ...``: the same command line as the ``ddrsearch`` script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
