"""A batch: the run over a source, what it works with, a clean stop on a signal, and
the message after it. (The nightly job around it is batch.nightly.)

    runner.py     the batch: pick up, resume or skip each brief; one thread's snapshot
                  and resume; the sheet sync
    starting.py   how a brief becomes a thread: its id and its starting state
    records.py    a thread's state as the fields of its run-log record
    recorder.py   the one writer of run-log rows: a method per way a run moves
    resources.py  what a batch works with, opened once: models, store, graph, sinks
    signals.py    a clean stop on SIGTERM or Ctrl-C
    notify.py     the message after a batch: e-mail and a webhook
"""
