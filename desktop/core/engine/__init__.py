"""The engine: one llama.cpp model per worker process, JSON lines over stdin/stdout."""
