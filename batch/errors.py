"""Every error briefloop raises on purpose, in one tree.

    BriefloopError              meant for a person: the CLI prints the message, no traceback
    ├── ConfigError             bad or missing configuration (exit code 2)
    ├── InputError              one brief cannot be used; the batch records it and goes on
    ├── ModelFileError          the embedded model file is missing or fails its sha256 check
    ├── SinkError               a spreadsheet view could not be written; rows stay pending
    ├── OutputError             a finished text could not be written (disk full, permissions)
    ├── StoreError              the SQLite state (checkpoints, run log) cannot be written or
    │                           read: disk full, I/O error. The batch stops (exit code 1);
    │                           what was committed stays, and a rerun resumes from it
    └── ModelError              a model call failed
        ├── ModelUnavailable    refused, timed out, 5xx: transient, retried with backoff
        ├── ModelNotFound       the server does not have the model: not retried
        ├── PromptTooLong       the prompt would not fit num_ctx: not retried
        └── ModelOutputInvalid  the structured answer failed validation, also after
                                one retry with the validation error in the prompt

Anything else is a bug: the CLI re-raises it so it shows with its traceback.
"""

from __future__ import annotations


class BriefloopError(Exception):
    """An error whose message is written for the person running briefloop."""


class ConfigError(BriefloopError):
    pass


class InputError(BriefloopError):
    pass


class ModelFileError(BriefloopError):
    pass


class SinkError(BriefloopError):
    pass


class OutputError(BriefloopError):
    pass


class StoreError(BriefloopError):
    pass


class ModelError(BriefloopError):
    pass


class ModelUnavailable(ModelError):
    pass


class ModelNotFound(ModelError):
    pass


class PromptTooLong(ModelError):
    pass


class ModelOutputInvalid(ModelError):
    pass


def is_transient(exc: BaseException) -> bool:
    """The retry_on predicate for model-calling nodes: only transient faults are retried."""
    return isinstance(exc, ModelUnavailable)
