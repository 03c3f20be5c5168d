"""The nightly job and the schedule that starts it: over the batch (batch.run), the
review sheet (batch.review) and the cluster's queue (batch.cluster).

    job.py       one night: pull the review answers, run (or enqueue) the batch,
                 publish what waits for a person, send the message after it
    schedule.py  the schedule (APScheduler, its job store in the database)
"""
