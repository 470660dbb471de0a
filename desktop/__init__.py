"""LLM Scout: which local LLM should I run here, and how does it really behave?"""

__version__ = "0.1.0"
