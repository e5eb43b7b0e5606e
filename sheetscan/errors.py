"""Typed errors and the process exit codes they map to."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    """Process exit codes, distinct per kind of failure."""

    ok = 0
    internal_error = 1  # a bug: one line (the traceback with --verbose)
    bad_input = 2  # a file that is missing, unreadable or malformed; bad arguments
    no_sheet = 3  # an image with no sheet found in it
    unreadable = 4  # a sheet found, but too blurred or too dark to read
    installation = 5  # a missing or unusable model, or a missing dependency: the installation's fault
    interrupted = 130  # stopped by Ctrl-C (128 + SIGINT, as shells report it)


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

    def __reduce__(self):  # crosses process boundaries in batches
        return type(self), (self.path, self.problem)


class RuleOptionError(SheetscanError):
    """An unknown rule option name."""

    exit_code = ExitCode.bad_input


class NoSheetError(SheetscanError):
    """An image in which no sheet was found."""

    exit_code = ExitCode.no_sheet


class UnreadableSheetError(SheetscanError):
    """A sheet that was found but is too blurred or too dark to read."""

    exit_code = ExitCode.unreadable


class ModelError(SheetscanError):
    """A missing or unusable trained model: the installation's problem, not the photo's."""

    exit_code = ExitCode.installation


class InternalError(SheetscanError):
    """A bug met while reading one input: reported for that input, the batch goes on."""

    exit_code = ExitCode.internal_error


class Interrupted(SheetscanError):
    """Ctrl-C: what was done is kept, the rest not done."""

    exit_code = ExitCode.interrupted
