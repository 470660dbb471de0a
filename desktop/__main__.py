"""`python -m desktop` runs the app as the ``llm-scout`` executable does (worker flag included)."""

import sys

from desktop.entry import main

if __name__ == "__main__":
    sys.exit(main())
