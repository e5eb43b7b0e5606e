"""Presenting results: text and JSON for people and programs, annotated pictures."""
