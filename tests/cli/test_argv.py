"""ddrsearch.cli.argv: a query that starts with a dash is a query, not an option."""

from __future__ import annotations

from ddrsearch.cli.argv import move_dash_query
from ddrsearch.cli.command import build_parser


def test_dash_query_handling_keeps_a_short_option_with_equals():
    """move_dash_query took ``-k=2`` for a query starting with a dash; a short option with ``=`` is kept as an option.
    """
    # argparse itself takes `search -k=2 ... "stuck pipe"` (k=2); move_dash_query takes "-k=2" for a query
    # starting with a dash, so `ddrsearch search -k=2 --method bm25 "stuck pipe"` fails with
    # "ddrsearch: error: unrecognized arguments: -k=2" (same for ask -k=2).
    from ddrsearch.cli.argv import move_dash_query
    from ddrsearch.cli.command import build_parser

    parser = build_parser()
    argv = ["search", "-k=2", "--method", "bm25", "stuck pipe"]
    args = parser.parse_args(move_dash_query(list(argv), parser))
    assert (args.k, args.query) == (2, "stuck pipe")


def test_a_query_may_start_with_a_dash():
    parser = build_parser()
    for argv, query, k in ((["search", "-LCM", "-k", "3"], "-LCM", 3),
                           (["search", "-k", "3", "--", "-LCM"], "-LCM", 3),
                           (["search", "--method=bm25", "-LCM"], "-LCM", 5),
                           (["search", "-k3", "-LCM"], "-LCM", 3),
                           (["search", "stuck pipe", "-k", "2"], "stuck pipe", 2)):
        args = parser.parse_args(move_dash_query(argv, parser))
        assert (args.query, args.k) == (query, k)
    assert move_dash_query(["eval", "-k", "3"], parser) == ["eval", "-k", "3"]
    assert "--" in parser._subparsers._group_actions[0].choices["search"].format_help()
