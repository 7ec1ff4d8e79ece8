"""ddrsearch.cli.command: the entry point (``python -m ddrsearch``, a closed pipe)."""

from __future__ import annotations

import pytest

from ddrsearch.cli.command import main


def test_output_piped_into_head_is_not_reported_as_an_error(monkeypatch, capsys):
    """Output piped into ``head`` printed "[Errno 32] Broken pipe"; a closed pipe ends the command quietly."""
    import ddrsearch.cli.command as cli
    import ddrsearch.cli.data_commands as data_commands

    def closed_pipe(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(data_commands, "_cmd_env", closed_pipe)
    assert cli.main(["env"]) == 1  # before: "ddrsearch env: [Errno 32] Broken pipe"
    assert capsys.readouterr().err == ""


def test_ctrl_c_ends_a_command_with_one_line_and_status_130(monkeypatch, capsys):
    """Before (adversarial pass): Ctrl-C during a batch of reports printed a raw KeyboardInterrupt traceback."""
    import ddrsearch.cli.command as cli
    import ddrsearch.cli.data_commands as data_commands

    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(data_commands, "_cmd_env", interrupted)
    assert cli.main(["env"]) == 130
    assert capsys.readouterr().err == "ddrsearch env: interrupted.\n"


def test_python_dash_m_runs_the_command_line():
    """``python -m ddrsearch`` runs the command line (the package has a __main__)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code_dir = Path(__file__).resolve().parents[2] / "code"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(code_dir), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "ddrsearch", "--help"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "search" in done.stdout and "ask" in done.stdout


def test_an_option_a_command_lacks_is_refused_with_that_commands_usage(capsys):
    """Before: 'show D038-r08 --bogus' printed 'usage: ddrsearch [-h] COMMAND ...' (the top-level usage). After:
    the command's own usage, listing its options, and the option named."""
    with pytest.raises(SystemExit) as exc:
        main(["show", "D038-r08", "--bogus"])
    err = capsys.readouterr().err
    assert exc.value.code == 2
    assert err.startswith("usage: ddrsearch show [-h] [--row ROW]") and "unrecognized arguments: --bogus" in err


def test_an_empty_index_path_is_refused_not_read_as_the_default(capsys):
    """Before: search --index "" silently used the default index folder. After: a usage error saying it is empty."""
    for argv in (["search", "stuck", "--index", ""], ["index", "build", "--index", " "]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and "argument --index: " in err and "is empty: give the index folder" in err


def test_k_below_one_is_refused_with_the_commands_own_usage(capsys):
    """Before: 'search stuck -k 0' printed the top-level usage. After: search's own, and the value named."""
    with pytest.raises(SystemExit) as exc:
        main(["search", "stuck", "-k", "0"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.startswith("usage: ddrsearch search") and "-k must be at least 1, got 0" in err


def test_errors_and_warnings_reach_the_terminal_without_escape_sequences(monkeypatch, capsys):
    """Before: a file named 'bad\\x1b[31mred.pdf' was echoed raw in the skipped-file warning (and a YAML id
    holding ESC in eval's error), so it could recolour or erase terminal lines. After: stripped."""
    import warnings

    import ddrsearch.cli.data_commands as data_commands
    from ddrsearch.errors import DDRSearchError

    def noisy(args):
        warnings.warn("bad\x1b[31mred.pdf skipped\x1b[2K\x1b[G", UserWarning, stacklevel=1)
        raise DDRSearchError("id S\x1b[2K\x1b[GOK01 is not valid")

    monkeypatch.setattr(data_commands, "_cmd_env", noisy)
    assert main(["env"]) == 1
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "warning: bad" in err and "red.pdf skipped" in err and "id S" in err and "OK01 is not valid" in err


def test_a_warning_is_one_line_whatever_the_file_name_it_quotes(capsys):
    # second adversarial pass: a non-PDF named "bad\x1b[2J\nwarning: all 77 verified.pdf" forged a warning line
    from ddrsearch.cli.command import _show_warning

    _show_warning("bad\x1b[2J\nwarning: all 77 verified.pdf skipped, not searched: not a PDF", UserWarning, "f", 1)
    err = capsys.readouterr().err
    assert err == "warning: bad warning: all 77 verified.pdf skipped, not searched: not a PDF\n"
