"""Typed errors and the process exit codes they map to."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, distinct per kind of failure."""

    ok = 0
    bad_input = 2  # a file that is missing, unreadable or malformed; bad arguments


class SheetscanError(Exception):
    """Base error: a message for the user and the exit code it maps to."""

    exit_code = ExitCode.bad_input

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class InputFileError(SheetscanError):
    """A file that is missing, not of the expected form, or inconsistent."""

    exit_code = ExitCode.bad_input

    def __init__(self, path: str, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class RuleOptionError(SheetscanError):
    """An unknown rule option name."""

    exit_code = ExitCode.bad_input
