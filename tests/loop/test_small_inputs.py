"""Small inputs that used to end in a traceback or a 500, each a one-line error now."""

from __future__ import annotations

import zipfile

import pytest
from click.testing import CliRunner

from batch import config
from batch.cli import cli
from batch.errors import BriefloopError, ConfigError
from batch.inputs.briefs import BadBrief, Brief, scan_folder
from batch.inputs.sources import scan_source


@pytest.mark.parametrize("which", ["99999999999999999999", "2147483648", "١", "１", "0"])
def test_a_batch_id_out_of_range_or_not_ascii_is_no_such_batch(tmp_path, which):
    cfg = tmp_path / "briefloop.toml"
    cfg.write_text('[paths]\nroot = "."\n')
    result = CliRunner().invoke(cli, ["--config", str(cfg), "runs", "--batch", which])
    assert result.exit_code == 2, result.output
    assert "no batch" in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "value", ["1000000000000000000000000000000", "10^30", "0", "-5", "100001", "1e9"]
)
def test_a_word_limit_out_of_reason_is_that_briefs_error(tmp_path, value):
    (tmp_path / "a.md").write_text(f"---\nmax_words: {value}\n---\nWrite a memo.\n")
    [found] = scan_folder(tmp_path, 100_000).briefs
    assert isinstance(found, BadBrief) and "max_words" in found.reason
    assert len(found.reason) < 200


@pytest.mark.parametrize("value,ok", [("1" * 40, False), ("100001", False), ("300", True)])
def test_a_word_limit_in_a_sheet_is_bounded_too(tmp_path, value, ok):
    sheet = tmp_path / "s.csv"
    sheet.write_text(f"id,brief,max_words\na,Write a memo.,{value}\n")
    [found] = scan_source(str(sheet), 100_000).briefs
    assert isinstance(found, Brief if ok else BadBrief)


@pytest.mark.parametrize(
    "dsn",
    [
        "postgresql://u@db:x1/briefloop",
        "postgresql://u:pw@db:99999/briefloop",
        "postgresql://u@db:-1/briefloop",
    ],
)
def test_a_dsn_port_that_is_not_a_port_is_a_config_error(tmp_path, dsn):
    cfg = tmp_path / "briefloop.toml"
    cfg.write_text(f'[store]\nbackend = "postgres"\ndsn = "{dsn}"\n')
    with pytest.raises(ConfigError, match="port") as e:
        config.load(cfg, environ={})
    assert "pw" not in str(e.value) and "\n" not in str(e.value)


def _workbook_with(tmp_path, part: str, xml: bytes):
    from openpyxl import Workbook

    good = tmp_path / "good.xlsx"
    wb = Workbook()
    wb.active.append(["id", "brief"])
    wb.active.append(["a", "Write a memo."])
    wb.save(good)
    broken = tmp_path / "broken.xlsx"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, xml if item.filename == part else src.read(item.filename))
    return broken


@pytest.mark.parametrize(
    "part,xml",
    [
        ("xl/worksheets/sheet1.xml", b"<worksheet><sheetData><row><c"),  # cut off
        ("xl/worksheets/sheet1.xml", b"not xml at all"),
        ("xl/workbook.xml", b"<workbook><sheets><sheet name="),
        ("xl/sharedStrings.xml", b"<sst><si><t>x</si>"),
    ],
)
def test_a_workbook_with_broken_xml_is_a_one_line_error(tmp_path, part, xml):
    broken = _workbook_with(tmp_path, part, xml)
    try:
        scan = scan_source(str(broken), 100_000)
    except BriefloopError as e:
        assert "\n" not in str(e) and "workbook" in str(e)
    else:  # a part openpyxl does without
        assert scan.briefs
