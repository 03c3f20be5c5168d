"""Every error briefloop raises on purpose, in one tree.

    BriefloopError              meant for a person: the CLI prints the message, no traceback
    ├── ConfigError             bad or missing configuration (exit code 2)
    ├── InputError              one brief cannot be used; the batch records it and goes on
    ├── SourceError             the source given is not one (no such path, not a folder,
    │                           sheet or brief): a usage mistake, found before a batch starts
    ├── ModelFileError          the embedded model file is missing or fails its sha256 check
    ├── SinkError               a spreadsheet view could not be written; rows stay pending
    ├── OutputError             a finished text could not be written (disk full, permissions)
    ├── LockBusy                another process holds a batch's or a thread's lock
    ├── StoreError              the SQLite state (checkpoints, run log) cannot be written or
    │                           read: disk full, I/O error. The batch stops (exit code 1);
    │                           what was committed stays, and a rerun resumes from it
    └── ModelError              a model call failed
        ├── ModelUnavailable    refused, timed out, 5xx: transient, retried with backoff
        ├── ModelNotFound       the server does not have the model: not retried
        ├── PromptTooLong       the prompt would not fit num_ctx: not retried
        └── ModelOutputInvalid  the structured answer failed validation, also after
                                one retry with the validation error in the prompt

Apart from it, the signals that stop work on purpose (control flow, never an error of
a person's, so no `except BriefloopError` ever takes one):

    StopSignal                  a model call not made, because time is up
    ├── OutOfBudget             the brief's model seconds (loop.max_model_seconds) are
    │                           spent; the loop stops with `budget` and its best draft
    └── BatchTimeUp             the batch's hours (run.max_hours) are up; the thread
                                stops where it is and the next run resumes it

Anything else is a bug: the CLI re-raises it so it shows with its traceback.
"""

from __future__ import annotations


class BriefloopError(Exception):
    """An error whose message is written for the person running briefloop."""


class ConfigError(BriefloopError):
    """The configuration is missing, unreadable or invalid."""


class InputError(BriefloopError):
    """One brief cannot be used (the batch records it and goes on)."""


class SourceError(BriefloopError):
    """The source given is not one: no batch is recorded for it."""


class ModelFileError(BriefloopError):
    """The embedded model file is missing or fails its sha256 check."""


class SinkError(BriefloopError):
    """A spreadsheet view could not be written or read; its rows stay pending."""


class OutputError(BriefloopError):
    """A finished text could not be written to the output folder."""


class StoreError(BriefloopError):
    """The SQLite state cannot be written or read (disk full, I/O error)."""


class LockBusy(BriefloopError):
    """Another process holds the lock (a batch, or a reviewer on the same thread)."""


class ModelError(BriefloopError):
    """A model call failed."""


class StopSignal(Exception):
    """A model call not made because time is up: work stops on purpose. The node that
    can end its loop well catches OutOfBudget; BatchTimeUp passes every node to the
    runner, which leaves the thread to be resumed."""


class OutOfBudget(StopSignal):
    """The call was not made: the brief's model seconds are spent."""


class BatchTimeUp(StopSignal):
    """The call was not made: the batch's hours are up."""


class ModelUnavailable(ModelError):
    """Refused, timed out or a 5xx: transient, retried with backoff."""


class ModelNotFound(ModelError):
    """The server does not have the model: not retried."""


class PromptTooLong(ModelError):
    """The prompt would not fit num_ctx: not retried."""


class ModelOutputInvalid(ModelError):
    """The structured answer failed validation, also after one retry."""


def is_transient(exc: BaseException) -> bool:
    """The retry_on predicate for model-calling nodes: only transient faults are retried."""
    return isinstance(exc, ModelUnavailable)


def one_line(exc: BaseException, limit: int = 300) -> str:
    """An exception as one line a person can read: its type and the first line of its
    message (a RecursionError or a driver's error can be many lines long)."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else ""
    return f"{exc.__class__.__name__}: {first}"[:limit] if first else exc.__class__.__name__
