"""``python -m ddrsearch ...``: the same command line as the ``ddrsearch`` script."""

import sys

from ddrsearch.cli.command import main

if __name__ == "__main__":
    sys.exit(main())
