from pathlib import Path

import pytest

from batch import config
from batch.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "briefloop.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_no_config_in_reach_is_an_error_not_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"no config file.*briefloop init"):
        config.load(environ={})
    assert list(tmp_path.iterdir()) == []


def test_the_config_is_found_from_a_subfolder(tmp_path, monkeypatch):
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "briefloop.toml").write_text("[loop]\nmax_rounds = 4\n")
    (tmp_path / "briefs" / "deep").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "briefs" / "deep")
    s = config.load(environ={})
    assert s.loop.max_rounds == 4
    assert s.models.writer.provider == "embedded" and s.models.finalizer is None
    assert s.checkpoint_path == tmp_path / "config" / "checkpoints" / "briefloop.sqlite"


def test_shipped_config_is_valid():
    s = config.load(Path(__file__).resolve().parents[2] / "config" / "briefloop.toml", environ={})
    assert s.path(s.paths.rubrics).is_dir()
    assert s.models.critic.temperature == 0


def test_unknown_key_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match=r"loop\.max_round: unknown key"):
        config.load(write(tmp_path, "[loop]\nmax_round = 3\n"), environ={})


@pytest.mark.parametrize(
    "toml,line",
    [
        (
            "[loop]\nmax_roundz = 3\n",
            "2: loop.max_roundz: unknown key (did you mean 'max_rounds'?)",
        ),
        (
            "[run]\nconcurrency = 2\n\n[models.writer]\ntemprature = 0.3\n",
            "5: models.writer.temprature: unknown key (did you mean 'temperature'?)",
        ),
        # a dotted key under the table above it
        (
            "[models]\nwriter.modle = 'x'\n",
            "2: models.writer.modle: unknown key (did you mean 'model'?)",
        ),
        ("[notfy]\nsmtp_host = 'x'\n", "1: notfy: unknown key (did you mean 'notify'?)"),
        # the second job of an array of tables, not the first
        (
            "[[schedule.jobs]]\nname = 'a'\ncron = '0 2 * * *'\n\n[[schedule.jobs]]\nname = 'b'\n"
            "cron = '0 3 * * *'\nsorce = 'briefs'\n",
            "8: schedule.jobs[1].sorce: unknown key (did you mean 'source'?)",
        ),
        # nothing close: no guess
        ("[loop]\nwibble = 1\n", "2: loop.wibble: unknown key"),
    ],
)
def test_a_config_mistake_names_its_line_and_the_key_meant(tmp_path, toml, line):
    path = write(tmp_path, toml)
    with pytest.raises(ConfigError) as e:
        config.load(path, environ={})
    assert f"{path}:{line}" in str(e.value).splitlines()


def test_every_config_mistake_is_listed_in_the_files_order(tmp_path):
    path = write(
        tmp_path,
        "[models.writer]\nprovider = 'embeded'\n\n[loop]\nmax_roundz = 3\nthreshhold = 80\n"
        "\n[[schedule.jobs]]\nname = 'n'\ncron = '0 2 * * *'\n",
    )
    with pytest.raises(ConfigError) as e:
        config.load(path, environ={})
    lines = str(e.value).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "models.writer.provider",
        "loop.max_roundz",
        "loop.threshhold",
        "schedule.jobs[0].source",
    ]
    assert lines[-1] == f"{path}:8: schedule.jobs[0].source: missing: this table needs it"
    assert "more)" not in str(e.value)


def test_wrong_type_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match=r"loop\.max_rounds"):
        config.load(write(tmp_path, "[loop]\nmax_rounds = 'many'\n"), environ={})


def test_missing_explicit_file(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        config.load(tmp_path / "nope.toml", environ={})


def test_bad_toml(tmp_path):
    with pytest.raises(ConfigError, match="not valid TOML"):
        config.load(write(tmp_path, "[loop\n"), environ={})


def test_precedence_flag_over_env_over_file(tmp_path):
    path = write(tmp_path, "[loop]\nmax_rounds = 4\nno_progress_rounds = 3\n")
    env = {"BRIEFLOOP_LOOP__MAX_ROUNDS": "6", "BRIEFLOOP_LOOP__NO_PROGRESS_ROUNDS": "5"}
    s = config.load(path, overrides={"loop.max_rounds": 9}, environ=env)
    assert s.loop.max_rounds == 9
    assert s.loop.no_progress_rounds == 5
    assert config.load(path, environ={}).loop.max_rounds == 4


def test_env_unknown_key_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="unknown key"):
        config.load(write(tmp_path, ""), environ={"BRIEFLOOP_LOOP__MAX_RUNDS": "2"})


def test_env_names_the_config_file(tmp_path):
    path = write(tmp_path, "[run]\nconcurrency = 3\n")
    assert config.load(environ={"BRIEFLOOP_CONFIG": str(path)}).run.concurrency == 3


def test_per_role_models_is_one_line(tmp_path):
    s = config.load(
        write(tmp_path, '[models.critic]\nprovider = "ollama"\nmodel = "qwen2.5:7b"\n'), environ={}
    )
    assert (s.models.writer.provider, s.models.critic.provider) == ("embedded", "ollama")


def test_max_tokens_must_fit_context(tmp_path):
    with pytest.raises(ConfigError, match="max_tokens must be smaller than num_ctx"):
        config.load(
            write(tmp_path, "[models.writer]\nnum_ctx = 512\nmax_tokens = 600\n"), environ={}
        )


def test_relative_paths_resolve_against_root(tmp_path):
    s = config.load(write(tmp_path, '[paths]\nroot = "proj"\noutput = "out"\n'), environ={})
    assert s.output_dir == tmp_path / "proj" / "out"


def test_reviewer_variable_is_not_a_config_key(tmp_path):
    s = config.load(write(tmp_path, ""), environ={"BRIEFLOOP_REVIEWER": "alice"})
    assert s.loop.max_rounds == 3


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:99999",
        "http://host:abc",
        "http://[::1",
        "localhost:11434",
        "ftp://host",
        "http://:11434",
        "http://alice:s3cret@host:0",
    ],
)
def test_a_malformed_base_url_is_a_config_error(tmp_path, url):
    with pytest.raises(ConfigError) as e:
        config.load(write(tmp_path, f'[models.writer]\nbase_url = "{url}"\n'), environ={})
    message = str(e.value)
    assert "models.writer.base_url" in message and "\n" not in message
    assert "s3cret" not in message


def test_a_good_base_url_passes(tmp_path):
    s = config.load(
        write(tmp_path, '[models.critic]\nbase_url = "https://u:p@gpu-1:8443/x"\n'), environ={}
    )
    assert s.models.critic.base_url == "https://u:p@gpu-1:8443/x"


@pytest.mark.parametrize("line", ["max_rounds = true", "max_rounds = 2.0", 'max_rounds = "3"'])
def test_config_values_keep_their_type(tmp_path, line):
    with pytest.raises(ConfigError, match="loop.max_rounds"):
        config.load(write(tmp_path, f"[loop]\n{line}\n"), environ={})


# -- [store] and [cluster] ------------------------------------------------------------


def test_the_default_store_is_sqlite_and_no_cluster(tmp_path):
    s = config.load(write(tmp_path, ""), environ={})
    assert s.store.backend == "sqlite" and not s.clustered


def test_postgres_needs_a_dsn(tmp_path):
    with pytest.raises(ConfigError, match="needs dsn"):
        config.load(write(tmp_path, '[store]\nbackend = "postgres"\n'), environ={})


def test_the_dsn_comes_from_the_environment_too(tmp_path):
    s = config.load(
        write(tmp_path, '[store]\nbackend = "postgres"\n'),
        environ={"BRIEFLOOP_STORE__DSN": "postgresql://bl:pw@db:5432/briefloop"},
    )
    assert s.store.dsn == "postgresql://bl:pw@db:5432/briefloop"


@pytest.mark.parametrize(
    "dsn", ["mysql://u:s3cret@db/x", "postgresql://u:s3cret@db", "db.example.com"]
)
def test_a_bad_dsn_is_a_config_error_without_its_password(tmp_path, dsn):
    with pytest.raises(ConfigError) as e:
        config.load(write(tmp_path, f'[store]\nbackend = "postgres"\ndsn = "{dsn}"\n'), environ={})
    assert "store.dsn" in str(e.value) and "s3cret" not in str(e.value)


@pytest.mark.parametrize("broker", ["http://queue:6379", "redis://", "queue:6379"])
def test_a_bad_broker_is_a_config_error(tmp_path, broker):
    with pytest.raises(ConfigError, match="cluster.broker"):
        config.load(write(tmp_path, f'[cluster]\nbroker = "{broker}"\n'), environ={})


def test_a_cluster_needs_the_postgres_store(tmp_path):
    with pytest.raises(ConfigError, match="share one PostgreSQL database"):
        config.load(write(tmp_path, '[cluster]\nbroker = "redis://q:6379/0"\n'), environ={})
    s = config.load(
        write(
            tmp_path,
            '[cluster]\nbroker = "amqp://u:p@q:5672//"\n'
            '[store]\nbackend = "postgres"\ndsn = "postgresql://db/bl"\n',
        ),
        environ={},
    )
    assert s.clustered
