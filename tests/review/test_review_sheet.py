"""Review from the spreadsheet: rows for waiting threads, answers pulled back, rows marked."""

from __future__ import annotations

from pathlib import Path

from openpyxl import load_workbook

from batch.nightly.job import run_job
from batch.review.sheet import COLUMNS
from batch.sheets.google import client_class

from conftest import ScriptedModel, critic_answer, make_settings, write_brief, writer_answer
from fake_sheets import FakeSheets

PH = "[FIGURE NEEDED: Q3 revenue]"
PH2 = "[DATE NEEDED: Berlin opening]"
DRAFT = f"Q3 revenue was {PH}. Berlin opens {PH2}."
NEEDS = [(PH, "What is the Q3 revenue?"), (PH2, "When is the Berlin opening?")]
LOG_KEY = "9ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210"


def models(*drafts):
    return {
        "writer": ScriptedModel([writer_answer(d, needs=NEEDS) for d in drafts]),
        "critic": ScriptedModel([critic_answer(5) for _ in drafts]),
    }


def xlsx_rows(path: Path) -> list[dict]:
    ws = load_workbook(path)["Review"]
    rows = list(ws.iter_rows(values_only=True))
    assert list(rows[0]) == COLUMNS
    return [dict(zip(COLUMNS, r, strict=False)) for r in rows[1:]]


def fill(path: Path, answers: dict[str, str], decision: str, by: str = "ana") -> None:
    wb = load_workbook(path)
    ws = wb["Review"]
    for row in ws.iter_rows(min_row=2):
        placeholder = row[COLUMNS.index("placeholder")].value
        if placeholder in answers:
            row[COLUMNS.index("answer")].value = answers[placeholder]
    ws.cell(row=2, column=COLUMNS.index("decision") + 1, value=decision)
    ws.cell(row=2, column=COLUMNS.index("by") + 1, value=by)
    wb.save(path)


def setup_xlsx(project):
    s = make_settings(project, **{"log.format": "xlsx", "log.path": "output/runs.xlsx"})
    write_brief(project, "q3.md", "Memo on Q3 revenue and the Berlin office.", id="q3")
    return s, project / "output" / "runs.xlsx"


def test_night_morning_approval_through_the_workbook(project):
    s, book = setup_xlsx(project)
    night = run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    assert night.results[0].outcome == "awaiting_human"
    rows = xlsx_rows(book)
    assert [(r["placeholder"], r["question"], r["status"]) for r in rows] == [
        (PH, "What is the Q3 revenue?", "open"),
        (PH2, "When is the Berlin opening?", "open"),
    ]
    assert load_workbook(book).sheetnames == ["Runs", "Review"]
    # the sheet alone is enough to decide: the text and what the checks find, once
    assert rows[0]["draft"] == DRAFT and rows[1]["draft"] == "(the thread's first row)"
    assert rows[0]["findings"] and not rows[1]["findings"]
    assert "needs_from_human" not in rows[0]["findings"]

    fill(book, {PH: "4.2M EUR", PH2: "1 November"}, "approve")
    morning = run_job(s, project / "briefs", models=models(), strict=True)
    [pulled] = morning.pulled
    assert pulled.outcome == "approved_by_human"
    assert morning.results[0].outcome == "skipped"  # finished by the pull, not redone
    rows = xlsx_rows(book)
    assert {r["status"] for r in rows} == {"done"} and rows[0]["note"] == "approved_by_human"
    output = (project / "output" / "q3.md").read_text()
    assert "Q3 revenue was 4.2M EUR. Berlin opens 1 November." in output
    assert "approved_by: ana" in output
    runs = load_workbook(book)["Runs"]
    header = [c.value for c in runs[1]]
    assert runs.cell(row=2, column=header.index("stop_reason") + 1).value == "approved_by_human"


def test_approve_with_a_missing_answer_stays_open_with_the_reason(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "4.2M EUR"}, "approve")
    summary = run_job(s, project / "briefs", models=models(), strict=True)
    assert summary.pulled[0].outcome == "not taken"
    rows = xlsx_rows(book)
    assert {r["status"] for r in rows} == {"open"}
    assert "missing: [DATE NEEDED: Berlin opening]" in rows[0]["note"]


def test_revise_from_the_sheet_pauses_again_with_fresh_rows(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "4.2M EUR"}, "revise: lead with the revenue")
    m = models(f"Revenue: {PH}. Berlin opens {PH2}.")
    summary = run_job(s, project / "briefs", models=m, strict=True)
    assert summary.pulled[0].outcome == "awaiting_human"
    assert "A reviewer asks: lead with the revenue" in m["writer"].sent[0][-1]["content"]
    rows = xlsx_rows(book)
    assert [r["status"] for r in rows] == ["done", "done", "open", "open"]
    assert rows[2]["round"] == 2 and rows[2]["answer"] == "4.2M EUR"  # kept from before


def test_a_row_for_a_thread_no_longer_waiting_is_skipped(project):
    from batch.review import threads as review
    from batch.run.runner import Runner

    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    with Runner(s, models={"writer": None, "critic": None}) as runner:
        [item] = review.list_waiting(runner)
        review.answer(runner, item.thread_id, "reject", {}, text="no longer needed")
    fill(book, {PH: "1"}, "approve")
    summary = run_job(s, project / "briefs", models=models(), strict=True)
    assert summary.pulled[0].outcome == "skipped"
    assert "not waiting any more (rejected_by_human)" in xlsx_rows(book)[0]["note"]


def test_review_through_the_google_sheet(project):
    fake = FakeSheets()
    fake.add_spreadsheet(LOG_KEY, worksheets={"Sheet1": []})
    s = make_settings(project, **{"log.gsheet": {"spreadsheet": LOG_KEY, "sync_interval": 0}})
    factory = lambda: fake.client(http_client=client_class(s.google))  # noqa: E731
    write_brief(project, "q3.md", "Memo on Q3 revenue and the Berlin office.", id="q3")
    run_job(s, project / "briefs", models=models(DRAFT), strict=True, google_client=factory)
    rows = fake.values(LOG_KEY, "Review")
    assert rows[0] == COLUMNS and [r[3] for r in rows[1:]] == [PH, PH2]
    # a person fills the sheet in (as the browser does: USER_ENTERED)
    col = {name: i for i, name in enumerate(COLUMNS)}
    filled = [r[:] for r in rows]
    filled[1][col["answer"]], filled[2][col["answer"]] = "4.2M EUR", "1 November"
    filled[1][col["decision"]], filled[1][col["by"]] = "approve", "bo"
    person = fake.client().open_by_key(LOG_KEY).worksheet("Review")
    person.update(filled, "A1", value_input_option="USER_ENTERED")
    summary = run_job(s, project / "briefs", models=models(), strict=True, google_client=factory)
    assert summary.pulled[0].outcome == "approved_by_human", summary.pulled
    after = fake.values(LOG_KEY, "Review")
    assert [r[col["status"]] for r in after[1:]] == ["done", "done"]
    assert fake.formulas == set()
    runs = fake.values(LOG_KEY, "Runs")
    assert runs[1][runs[0].index("stop_reason")] == "approved_by_human"


def test_an_old_decision_is_never_replayed_on_a_new_pause(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "4.2M EUR"}, "revise: lead with the revenue")
    m = models(f"Revenue: {PH}. Berlin opens {PH2}.")
    run_job(s, project / "briefs", models=m, strict=True)
    # as if the marks of that pull had been lost: the round-1 rows are open again
    wb = load_workbook(book)
    for row in wb["Review"].iter_rows(min_row=2, max_row=3):
        row[COLUMNS.index("status")].value = "open"
    wb.save(book)
    again = models()
    summary = run_job(s, project / "briefs", models=again, strict=True)
    assert summary.pulled == [] and again["writer"].calls == 0  # no second revision
    rows = xlsx_rows(book)
    assert [r["status"] for r in rows] == ["skipped", "skipped", "open", "open"]
    assert "answers an earlier pause" in rows[0]["note"]


def test_rows_of_a_thread_decided_from_the_cli_are_closed_by_the_next_publish(project):
    from batch.nightly.job import pull_reviews
    from batch.review import threads as review
    from batch.run.runner import Runner

    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    with Runner(s, models={"writer": None, "critic": None}) as runner:
        [item] = review.list_waiting(runner)
        review.answer(runner, item.thread_id, "approve", {PH: "4.2M EUR", PH2: "May"}, by="ana")
    assert {r["status"] for r in xlsx_rows(book)} == {"open"}  # not yet published
    run_job(s, project / "briefs", models=models(), strict=True)
    rows = xlsx_rows(book)
    assert [r["status"] for r in rows] == ["done", "done"]
    assert all(r["note"].startswith("decided elsewhere: approved_by_human by ana") for r in rows)
    assert pull_reviews(s) == []
    assert [r["status"] for r in xlsx_rows(book)] == ["done", "done"]


def test_approve_with_a_reason_in_the_sheet_approves_over_the_findings(project):
    s = make_settings(
        project,
        **{
            "log.format": "xlsx",
            "log.path": "output/runs.xlsx",
            "loop.review": "unfinished",
            "loop.max_rounds": 1,
        },
    )
    write_brief(project, "q3.md", "Memo on Q3 revenue and the Berlin office.", id="q3")
    broken = "Q3 revenue grew 17%. We opened Berlin."
    m = {
        "writer": ScriptedModel([writer_answer(broken)]),
        "critic": ScriptedModel([critic_answer(5)]),
    }
    run_job(s, project / "briefs", models=m, strict=True)
    book = project / "output" / "runs.xlsx"
    fill(book, {}, "approve")
    first = run_job(s, project / "briefs", models=models(), strict=True)
    assert first.pulled[0].outcome == "not taken"
    assert xlsx_rows(book)[0]["status"] == "open"
    fill(book, {}, "approve: the 17% is in the board pack")
    second = run_job(s, project / "briefs", models=models(), strict=True)
    assert second.pulled[0].outcome == "approved_by_human"
    assert [r["status"] for r in xlsx_rows(book)] == ["done"]


def test_rows_of_one_thread_that_disagree_are_not_taken(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "4.2M EUR", PH2: "1 November"}, "approve")
    wb = load_workbook(book)
    ws = wb["Review"]
    ws.cell(row=3, column=COLUMNS.index("decision") + 1, value="reject: not needed")
    wb.save(book)
    summary = run_job(s, project / "briefs", models=models(), strict=True)
    [pulled] = summary.pulled
    assert pulled.outcome == "not taken" and "'approve' and 'reject: not needed'" in pulled.message
    rows = xlsx_rows(book)
    assert {r["status"] for r in rows} == {"open"}
    assert all("leave one decision" in r["note"] for r in rows)
    assert not (project / "output" / "q3.md").exists()
    # one decision left: taken on the next pull
    wb = load_workbook(book)
    for row in wb["Review"].iter_rows(min_row=2):
        cell = row[COLUMNS.index("decision")]
        if str(cell.value or "").startswith("reject"):
            cell.value = None
    wb.save(book)
    again = run_job(s, project / "briefs", models=models(), strict=True)
    assert again.pulled[0].outcome == "approved_by_human", again.pulled


def test_the_same_decision_on_several_rows_is_one_decision(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "4.2M EUR", PH2: "1 November"}, "approve")
    wb = load_workbook(book)
    wb["Review"].cell(row=3, column=COLUMNS.index("decision") + 1, value=" Approve ")
    wb.save(book)
    summary = run_job(s, project / "briefs", models=models(), strict=True)
    assert summary.pulled[0].outcome == "approved_by_human", summary.pulled


def test_a_formula_in_an_answer_cell_is_not_taken_as_its_text(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "=4.2*1000000", PH2: "1 November"}, "approve")
    summary = run_job(s, project / "briefs", models=models(), strict=True)
    [pulled] = summary.pulled
    assert pulled.outcome == "not taken" and "is a formula" in pulled.message
    assert {r["status"] for r in xlsx_rows(book)} == {"open"}
    assert not (project / "output" / "q3.md").exists()
    # a value that only starts like one is a value
    fill(book, {PH: "-4% on Q2", PH2: "1 November"}, "approve")
    again = run_job(s, project / "briefs", models=models(), strict=True)
    assert again.pulled[0].outcome == "approved_by_human", again.pulled
    assert "Q3 revenue was -4% on Q2." in (project / "output" / "q3.md").read_text()


def test_an_answer_from_the_cli_or_the_page_closes_its_rows_at_once(project):
    from click.testing import CliRunner

    from batch.cli import cli

    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    [row, _] = xlsx_rows(book)
    result = CliRunner().invoke(
        cli,
        [
            "--config",
            str(project / "briefloop.toml"),
            "review",
            "answer",
            row["thread_id"],
            "--set",
            f"{PH}=4.2M EUR",
            "--set",
            f"{PH2}=May",
            "--approve",
            "--by",
            "ana",
        ],
    )
    assert result.exit_code == 0, result.output
    # no run and no pull in between: the sheet says it is done
    rows = xlsx_rows(book)
    assert [r["status"] for r in rows] == ["done", "done"], rows
    assert all(r["note"].startswith("decided elsewhere: approved_by_human by ana") for r in rows)


def test_a_reopen_from_the_cli_lists_the_thread_in_the_sheet_at_once(project):
    from click.testing import CliRunner

    from batch.cli import cli

    s, book = setup_xlsx(project)
    write_brief(project, "q3.md", "Office closed Friday from 15:00.", id="q3")
    good = "The office is closed on Friday from 15:00."
    night = run_job(
        s,
        project / "briefs",
        models={
            "writer": ScriptedModel([writer_answer(good)]),
            "critic": ScriptedModel([critic_answer(5)]),
        },
        strict=True,
    )
    [done] = night.results
    assert done.outcome == "approved"
    assert "Review" not in load_workbook(book).sheetnames  # nothing waits
    config = ["--config", str(project / "briefloop.toml")]
    result = CliRunner().invoke(
        cli, [*config, "review", "reopen", done.thread_id, "--reason", "the hour is wrong"]
    )
    assert result.exit_code == 0, result.output
    assert [r["status"] for r in xlsx_rows(book)] == ["open"]


def fill_cells(path: Path, cells: list[tuple[int, object]], decision: str = "approve") -> None:
    """Answers typed as cells of their own type (a number, a date), row by row."""
    wb = load_workbook(path)
    ws = wb["Review"]
    for row, value in cells:
        ws.cell(row=row, column=COLUMNS.index("answer") + 1, value=value)
    ws.cell(row=2, column=COLUMNS.index("decision") + 1, value=decision)
    ws.cell(row=2, column=COLUMNS.index("by") + 1, value="ana")
    wb.save(path)


def test_a_number_cell_goes_out_as_typed_and_a_date_cell_is_not_taken(project):
    import datetime

    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill_cells(book, [(2, 4200000), (3, datetime.datetime(2026, 11, 1))])
    morning = run_job(s, project / "briefs", models=models(), strict=True)
    [pulled] = morning.pulled
    assert pulled.outcome == "not taken" and "date or time cell" in pulled.message
    rows = xlsx_rows(book)
    assert rows[0]["status"] == "open" and PH2 in rows[0]["note"]
    assert not (project / "output" / "q3.md").exists()
    # typed as text: taken, the number as it was typed
    fill_cells(book, [(2, 4200000.0), (3, "1 November")])
    run_job(s, project / "briefs", models=models(), strict=True)
    output = (project / "output" / "q3.md").read_text()
    assert "Q3 revenue was 4200000. Berlin opens 1 November." in output


def test_two_rows_answering_one_placeholder_differently_are_named_not_taken(project):
    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    wb = load_workbook(book)
    ws = wb["Review"]
    first = [c.value for c in ws[2]]
    ws.append(first)  # the same placeholder's row, twice (copied by a second reviewer)
    wb.save(book)
    fill_cells(book, [(2, "4.2M EUR"), (3, "1 November"), (4, "4.5M EUR")])
    [pulled] = run_job(s, project / "briefs", models=models(), strict=True).pulled
    assert pulled.outcome == "not taken"
    assert f"answer {PH} with '4.2M EUR' and '4.5M EUR'" in pulled.message
    assert not (project / "output" / "q3.md").exists()
    # the same answer twice (spacing aside) is one answer
    fill_cells(book, [(4, "4.2M  EUR")])
    [pulled] = run_job(s, project / "briefs", models=models(), strict=True).pulled
    assert pulled.outcome == "approved_by_human"
    assert "Q3 revenue was 4.2M EUR." in (project / "output" / "q3.md").read_text()


def test_a_reopened_thread_gets_its_rows_back(project):
    from batch.review import attempts
    from batch.review import sheet as review_sheet
    from batch.run.runner import Runner

    s, book = setup_xlsx(project)
    run_job(s, project / "briefs", models=models(DRAFT), strict=True)
    fill(book, {PH: "4.2M EUR", PH2: "1 November"}, "approve")
    run_job(s, project / "briefs", models=models(), strict=True)
    assert {r["status"] for r in xlsx_rows(book)} == {"done"}
    with Runner(s, models=models()) as runner:
        [thread] = [r["thread_id"] for r in runner.runlog.all()]
        attempts.reopen(runner, thread, "the revenue figure is wrong", by="bo")
        review_sheet.refresh(runner)
    rows = xlsx_rows(book)
    assert [(r["placeholder"], r["status"], r["decision"]) for r in rows] == [
        (PH, "open", None),
        (PH2, "open", None),
    ]
    # answered again from the sheet: taken, and the rows close again
    fill(book, {PH: "4.3M EUR", PH2: "1 November"}, "approve", by="bo")
    [pulled] = run_job(s, project / "briefs", models=models(), strict=True).pulled
    assert pulled.outcome == "approved_by_human"
    assert "Q3 revenue was 4.3M EUR." in (project / "output" / "q3.md").read_text()
