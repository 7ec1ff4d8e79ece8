"""Fix-ups of the command line before argparse reads it: a query may start with a dash."""

from __future__ import annotations

import argparse

__all__ = ["move_dash_query"]


def move_dash_query(argv: list[str], parser: argparse.ArgumentParser, commands=("search", "ask")) -> list[str]:
    """Let a query start with a dash: ``search "-LCM" -k 3`` becomes ``search -k 3 -- -LCM``.

    For the sub-commands named in ``commands``, an argument that starts with
    ``-``, is not one of the sub-command's options (or ``--option=value``)
    and does not follow an option that takes a value, is the query: it is
    moved behind ``--``. Arguments after an explicit ``--`` are left alone.
    """
    if not argv or argv[0] not in commands or "--" in argv:
        return argv
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    subparser = sub.choices.get(argv[0]) if sub else None
    if subparser is None:
        return argv
    options = subparser._option_string_actions
    out, query, expects_value = [argv[0]], [], False
    for arg in argv[1:]:
        if expects_value:
            out.append(arg)
            expects_value = False
            continue
        name = arg.split("=", 1)[0]
        if arg in options or ("=" in arg and name in options) or (
                len(arg) > 2 and arg[:2] in options and arg[2:].isdigit()):
            out.append(arg)
            action = options.get(arg)
            expects_value = action is not None and action.nargs != 0 and "=" not in arg
            continue
        if arg[:2] == "--" and arg[2:3].isalpha():  # "--name": an option, never the query
            if not any(o.startswith(name) for o in options if o.startswith("--")):  # nor an abbreviation of one
                subparser.error(f"{argv[0]} has no option {name}; see ddrsearch {argv[0]} --help")
            out.append(arg)
            continue
        if arg.startswith("-") and len(arg) > 1 and not query:  # "-LCM" may be the query
            query.append(arg)
            continue
        out.append(arg)
    return out + (["--", *query] if query else [])

