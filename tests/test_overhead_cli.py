"""The overhead benchmark's argument checks (no Ray: they run before ray.init)."""

from __future__ import annotations

import pytest

from suite.bench.overhead import OverheadArgumentError, check_arguments, main


@pytest.mark.parametrize("argv", [["--repetitions", "0"], ["--seconds", "0"], ["--seconds", "nan"]])
def test_bad_arguments_exit_2_with_one_line(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("error: repetitions=")


def test_good_arguments_pass_the_check():
    check_arguments(1, 0.5)
    with pytest.raises(OverheadArgumentError, match="--repetitions >= 1"):
        check_arguments(-1, 1.0)
