"""Errors that reach the user as one clear line (the CLI prints them without a traceback)."""


class EtarmError(Exception):
    """A problem with the user's input or environment, worded for the user."""
