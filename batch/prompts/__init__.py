"""Prompt templates: every sentence a model reads, kept out of code.

`$name` fields are filled by batch.prompting (string.Template; a literal dollar is
`$$`). A file's line breaks are the prompt's: a long line stays one line. A block
template (a message, or a section of one) ends with its last line's newline; a fragment
(part of a line, or a whole message such as the retry turns) is filled with
`batch.prompting.fragment`, which drops the file's final newline. Every file is listed
in `batch.prompting.TEMPLATES`, and tests/test_prompt_texts.py renders each one.
"""
