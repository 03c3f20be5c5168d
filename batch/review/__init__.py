"""A person in the loop: the threads that wait for one, and the three ways to answer.

    threads.py  list, show, answer (approve, reject, send back) and resume the waiting
                threads; an answer runs on here or, in a cluster, goes to the queue
    web.py      the local review page (templates/ in the package)
    sheet.py    reviewing in the spreadsheet: the waiting threads published as rows,
                the answers pulled back
"""
