"""Judging a text by code, no model: what a brief asks, the checks of a draft, and for
API docs the signatures and the examples run against the real module in a sandbox.

    checklist.py      the brief as a checklist: facts, asks, missing facts, public API
    checks.py         the deterministic checks of a draft: findings and the code's score
    apidocs.py        API docs of a Python file checked against its AST
    examples.py       a doc's examples run against the module; the verdict, outside
    example_rules.py  what an example may do before it is run at all
    example_harness.py  runs inside the sandbox: imports the module, runs the examples
    sandbox.py        bubblewrap around untrusted, model-written code
    exports.py        the exported names of JS/TS/Go/Rust/Java files (tree-sitter)
"""
