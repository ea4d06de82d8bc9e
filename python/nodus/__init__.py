# SPDX-License-Identifier: MIT
"""nodus from Python: rewards from nodus results (``reward``, ``Policy``), a local mode
that drives the nodus CLI (``nodus.local.evaluate``) and a client of ``nodus serve``
(``nodus.Client``). Pure Python, standard library only."""

from . import client, local
from .client import Client, Evaluation, ServeError, campaign_files, solution_from_file
from .local import NodusCLIError
from .result import BINARY_VERDICTS, FAILURES, LABELS, MISSING, NO_VERDICT, STATUSES, Result, results_from_report
from .reward import Policy, PolicyError, as_result, log_lower_bound, reward

__version__ = "0.1.0"

__all__ = [
    "BINARY_VERDICTS", "FAILURES", "LABELS", "MISSING", "NO_VERDICT", "STATUSES", "Result", "results_from_report",
    "Policy", "PolicyError", "as_result", "log_lower_bound", "reward", "local", "NodusCLIError",
    "client", "Client", "Evaluation", "ServeError", "campaign_files", "solution_from_file",
]
