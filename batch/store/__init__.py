"""Where the state lives: the run log and its schema, the checkpointer, the queue
ledger, retention, and the locks over them, on SQLite files or one PostgreSQL database.

    backends.py  a Store per backend: the run log, the checkpointer, named locks
    run_columns.py  each run-log column, declared once: SQL type, kind, description
    schema.py    every table, once, and the ordered migration steps of both engines
    runlog.py    the run log: one row per brief thread, the batches, the sheets' outbox
    ledger.py    the cluster's queue ledger: what is queued, running, done or lost
    retention.py pruning old checkpoints of finished threads (`briefloop gc`)
    locks.py     file locks, released by the kernel when their holder dies
    slots.py     the model hosts' slots, cluster-wide (PostgreSQL advisory locks)
"""
