"""What a batch reads: the briefs and where they come from, the rubrics and house rules
they are judged by, and a new project folder to start from.

    briefs.py       a brief file (front matter, body), read safely; a bad one named
    sources.py      where briefs come from: a folder, CSV, XLSX, a Google sheet, source
                    files to document
    rubrics.py      rubrics: the criteria, their weights and the approval threshold
    house_rules.py  house rules: a Markdown file of rules and banned phrases
    project.py      `briefloop init`: the shipped config, rubrics and house rules
"""
