"""Qt-free core of LLM Scout: hardware, catalog, fit, engine, downloads, storage.

Nothing under this package may import PySide6 or pyqtgraph (tests/core/test_qt_free.py checks it).
Heavy imports (llama_cpp, huggingface_hub, pynvml) happen inside functions.
"""
