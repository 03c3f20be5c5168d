"""A person in the loop: the threads that wait for one, the three ways to answer, and
what a person reads in the morning: the night's runs and each text's story.

    threads.py  list, show, answer (approve, reject, send back) and resume the waiting
                threads; an answer runs on here or, in a cluster, goes where the
                batch's resumer sends it (Runner.run_on)
    history.py  a thread's story from its checkpoints: rounds, findings, diffs, decisions
    links.py    links to one thread, with a token scoped to it and expiring
    web.py      the review page's routes (templates/ in the package)
    pages.py    what the runs page and a story page show
    render.py   drafts, score charts and diffs as escaped HTML
    guard.py    the page's token (or a link's), CSRF, origin and the security headers
    sheet.py    reviewing in the spreadsheet: the waiting threads published as rows,
                the answers pulled back
"""
