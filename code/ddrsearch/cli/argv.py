"""Fix-ups of the command line before argparse reads it: a query may start with a dash."""

from __future__ import annotations

import argparse

__all__ = ["CommandParser", "move_dash_query"]


class CommandParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` that keeps its options and sub-commands, through argparse's public API.

    Attributes:
        options: option string (``-k``, ``--dir``) -> the :class:`argparse.Action`
            that :meth:`add_argument` returned for it.
        commands: sub-command name -> its parser (the ``choices`` of the action
            :meth:`add_subparsers` returned); sub-parsers are CommandParsers too.
    """

    def __init__(self, *args, **kwargs):
        self.options: dict[str, argparse.Action] = {}  # before super().__init__, which adds --help
        self.commands: dict[str, CommandParser] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *args, **kwargs):
        action = super().add_argument(*args, **kwargs)
        self.options.update(dict.fromkeys(action.option_strings, action))
        return action

    def add_subparsers(self, **kwargs):
        action = super().add_subparsers(**kwargs)
        self.commands = action.choices
        return action


def move_dash_query(argv: list[str], parser: CommandParser, commands=("search", "ask")) -> list[str]:
    """Let a query start with a dash: ``search "-LCM" -k 3`` becomes ``search -k 3 -- -LCM``.

    For the sub-commands named in ``commands``, an argument that starts with
    ``-``, is not one of the sub-command's options (or ``--option=value``)
    and does not follow an option that takes a value, is the query: it is
    moved behind ``--``. Arguments after an explicit ``--`` are left alone.
    """
    if not argv or argv[0] not in commands or "--" in argv:
        return argv
    subparser = parser.commands.get(argv[0])
    if subparser is None:
        return argv
    options = subparser.options
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

