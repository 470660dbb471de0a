"""`python -m desktop` runs the CLI (and, in a frozen build, the engine worker)."""

import sys

from desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
