"""Judging a text by code, no model: what a brief asks, the checks of a draft, and for
API docs the signatures and the examples run against the real module in a sandbox.

    checklist/        the brief as a checklist: facts, asks, missing facts, public API
                      (reading.py a brief into it, sources.py a source file's,
                      coverage.py whether a draft covers an item)
    wording.py        how code reads a sentence (words, numbers, stems, negations) and
                      what it measures of a text (word count, runs of words, near copies)
    checks/           the code checks as a registry (one Check object each) and the
                      code's score; checks/base.py is what a check is and is given
    feedback.py       the critic model's points made fit to pass on
    apidocs.py        API docs of a Python file checked against its AST
    doc_examples/     a doc's examples run against the module (rules.py what an example
                      may do; sandbox.py bubblewrap around them; harness.py what runs
                      inside)
    exports/          the exported names of JS/TS/Go/Rust/Java files (tree-sitter)
"""
