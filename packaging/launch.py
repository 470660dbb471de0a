"""The frozen executable's script: ``desktop.entry.main`` and nothing else.

``main()`` routes ``--engine-worker`` to the engine worker before anything else is imported (the
bundle's executable is also its engine worker), then ``--smoke-test``, then the command line and
the window.
"""

import sys

from desktop.entry import main

if __name__ == "__main__":
    sys.exit(main())
