"""The nightly run: the batch over a source, what it works with, the job around it, the
schedule that starts it, a clean stop on a signal, and the message after it.

    runner.py     the batch: pick up, resume or skip each brief; one thread's snapshot
                  and resume; a thread's state as its run-log record; the sheet sync
    resources.py  what a batch works with, opened once: models, store, graph, sinks
    jobs.py       the nightly job: pull review answers, run (or enqueue) the batch,
                  publish what waits, send the message
    schedule.py   the schedule (APScheduler, its job store in the database)
    signals.py    a clean stop on SIGTERM or Ctrl-C
    notify.py     the message after a batch: e-mail and a webhook
"""
