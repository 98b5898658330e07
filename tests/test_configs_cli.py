"""``python -m suite.configs``: one line per config, one config in detail, a bad name refused."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from suite.configs.__main__ import main
from suite.configs.describe import detail_rows, setting_text
from suite.configs.promote import provenance
from suite.configs.registry import all_configs, get_config

ROOT = Path(__file__).resolve().parents[1]
LONG_FLOAT = re.compile(r"\d\.0*[1-9]\d{4,}")  # 0.33424021001906645 (5+ significant digits)


def test_the_list_is_one_line_per_config_with_its_result_and_evidence(capsys):
    assert main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    configs = all_configs()
    assert len(configs) >= 7
    for tuned in configs:
        rows = [line for line in lines if line.split()[:1] == [tuned.name]]
        assert len(rows) == 1, (tuned.name, lines)
        assert tuned.env in rows[0]
        if tuned.evidence is not None:  # where its number was read from, and the number
            assert tuned.evidence.pointer.split()[0] in rows[0]
            assert tuned.measured().headline in rows[0]
        else:
            assert tuned.claim in rows[0] and "none of ours" in rows[0]
    assert not LONG_FLOAT.search("\n".join(lines))
    assert lines[-1] == "Details: python -m suite.configs NAME"


def test_a_promoted_configs_details_round_its_settings_and_name_its_evidence(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one row per line, so the checks see whole rows
    assert main(["pendulum"]) == 0
    out = capsys.readouterr().out
    assert not LONG_FLOAT.search(out), out
    rows = dict(detail_rows(get_config("pendulum")))
    assert rows["defaults"].startswith("N=1, K=1, broadcast_interval=1")
    assert "lr=0.001" in rows["settings"] and "learner=suite" in rows["settings"]
    assert "exact values are in suite/configs/promoted/pendulum_search_laptop_suite.json" in out
    assert rows["expect"] == get_config("pendulum").measured().result
    assert rows["evidence"].startswith("suite/configs/promoted/pendulum_search_laptop_suite.json")
    for label in ("settings", "expect", "evidence", "measured on", "verdict", "decided by"):
        assert f"{label}  " in out, label
    # When: the run's own span, read from its run.json, not only the promotion's time
    run = json.loads((ROOT / "results/example-pendulum_search-laptop_suite/run.json").read_text())
    assert f"run {run['started_at']} to {run['ended_at']}, promoted 2026" in rows["measured on"]


def test_a_promotion_keeps_the_runs_own_start_and_end():
    kept = provenance({"started_at": "2026-01-01T10:00:00+00:00", "ended_at": "2026-01-01T11:00"})
    assert kept["run_started_at"] == "2026-01-01T10:00:00+00:00"
    assert kept["run_ended_at"] == "2026-01-01T11:00"
    assert kept["promoted_at"] > kept["run_ended_at"]  # the promotion is later, and said apart


def test_a_library_configs_details_show_its_builder_settings_and_claim():
    rows = dict(detail_rows(get_config("pong")))
    assert "N=4, K=2, broadcast_interval=5" in rows["defaults"]
    assert "num_envs_per_env_runner=8" in rows["settings"] and "None" not in rows["settings"]
    assert rows["expect"] == get_config("pong").claim
    assert rows["evidence"].startswith("none of ours")
    assert "python -m suite.sweep atari_nk" in rows["run"]


def test_an_unknown_name_is_one_line_and_a_non_zero_exit():
    done = subprocess.run(  # the command itself: its exit code is the process's
        [sys.executable, "-m", "suite.configs", "cartpol"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("error: unknown config 'cartpol'. Did you mean 'cartpole'?")


def test_settings_read_as_a_person_types_them():
    assert setting_text(0.0005460090962097051) == "0.000546"
    assert setting_text(0.33424021001906645) == "0.334"
    assert setting_text(5.0) == "5" and setting_text(4000) == "4000"
    assert setting_text([128, 128]) == "[128, 128]" and setting_text(True) == "True"


def test_a_promoted_config_whose_evidence_has_no_return_says_so(tmp_path, monkeypatch, capsys):
    """Evidence without ``return_iqm`` (as ``suite.configs.promote`` writes whatever evidence it
    is given) raised KeyError in the list and the details; both now say it has none."""
    from suite.configs.promoted import PromotedConfig, write_promoted

    monkeypatch.setenv("SUITE_PROMOTED_DIR", str(tmp_path))
    monkeypatch.setenv("COLUMNS", "400")
    evidence = {"verdict": "leaning", "run_id": "r1", "sweep": "continuous_nk"}
    config = PromotedConfig(
        "pendulum_noiqm", "pendulum_rllib", "Pendulum-v1", {"k": 3}, "", evidence
    )
    write_promoted(config, tmp_path)
    assert main([]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("pendulum_noiqm")]
    assert "no return recorded (evidence has no return_iqm)" in line
    assert main(["pendulum_noiqm"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "no return to expect: the evidence in" in out
    assert "pendulum_noiqm.json has no return_iqm (verdict: leaning)" in out
    rows = dict(detail_rows(get_config("pendulum_noiqm")))
    assert rows["verdict"].startswith("leaning")


def test_bracketed_words_are_printed_not_read_as_markup(capsys, monkeypatch):
    import suite.configs.__main__ as cli

    monkeypatch.setattr(cli, "detail_rows", lambda tuned: [("source", "lr [linear], IS [0, 2]")])
    assert cli.main(["cartpole_probed"]) == 0
    assert "lr [linear], IS [0, 2]" in capsys.readouterr().out
