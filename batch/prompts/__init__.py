"""Prompt templates, kept out of node code. `$name` fields are filled by batch.prompting."""
