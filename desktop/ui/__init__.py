"""The PySide6 window: presentation only, on top of desktop.core (see README, Architecture).

Installed with the ``gui`` extra; the CLI never imports this package.
"""
