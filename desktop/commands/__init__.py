"""One module per CLI command, each exposing ``register(subparsers)``.

Shared output helpers live in :mod:`desktop.commands.output`.
"""
