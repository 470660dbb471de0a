"""The window's pages, one module each. A page is a QWidget that takes the :class:`AppState`
(and nothing global), reads it, and subscribes to its signals."""
