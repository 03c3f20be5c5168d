"""A batch: the run over a source, what it works with, a clean stop on a signal, and
the message after it. (The nightly job around it is batch.nightly.)

    runner.py     the batch: pick up, resume or skip each brief; one thread's snapshot
                  and resume; a thread's state as its run-log record; the sheet sync
    resources.py  what a batch works with, opened once: models, store, graph, sinks
    signals.py    a clean stop on SIGTERM or Ctrl-C
    notify.py     the message after a batch: e-mail and a webhook
"""
