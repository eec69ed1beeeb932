"""The audit of a match: anyone holding its exported event log can check that
the hash chain is unbroken, that every deal came from the seed committed to
before play, and that every event is what the rules give (ARCHITECTURE.md,
Fair dealing and audit). Pure: no I/O but reading what it is given; the
``daifugo audit`` command (``command``) does the reading."""

from .auditor import (
    INPUT_ERROR,
    audit_events,
    audit_log,
    report_of_events,
    report_of_log,
    report_of_request,
)
from .jsonl import AuditInputError, export_jsonl, parse_jsonl
from .report import AuditReport, CheckResult, Verdict

__all__ = [
    "INPUT_ERROR",
    "AuditInputError",
    "AuditReport",
    "CheckResult",
    "Verdict",
    "audit_events",
    "audit_log",
    "export_jsonl",
    "parse_jsonl",
    "report_of_events",
    "report_of_log",
    "report_of_request",
]
