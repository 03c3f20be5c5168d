"""The spreadsheet views of the run log: keyed tables in CSV, XLSX or a Google sheet,
the run-log rows written to them, and the outbox that sends each change once.

    tables.py    CSV / XLSX / Google worksheets as keyed tables (upsert by key, cell
                 colours, formulas stored as text)
    google.py    the gspread client with bounded retries, a Google worksheet as a table
    run_rows.py  a run-log record as a sheet row, and the sink that writes them
    sync.py      every sink and the review table built in one place; the outbox sent
"""
