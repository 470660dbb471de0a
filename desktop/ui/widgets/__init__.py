"""Reusable widgets: cards, usage bars, the verdict badge, the memory breakdown bar."""
