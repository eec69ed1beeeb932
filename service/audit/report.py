"""What an audit finds: one result per check, and the verdict they add up to."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

Verdict = Literal["valid", "invalid"]


class FindingCode(StrEnum):
    """What a referee is told beside the verdict: true of a valid log, and worth knowing."""

    # a hidden choice stored before its type was blinded (an old log): its hash let any
    # seat holding a head or receipt after it test guesses of the card
    UNBLINDED_HIDDEN_CHOICE = "unblinded_hidden_choice"


@dataclass(frozen=True, slots=True)
class Finding:
    """A warning: it does not make the log invalid (the chain, the seal and the rules
    hold), but the match was not as safe as a new one is."""

    code: FindingCode
    seq: int
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code.value,
            "severity": "warning",
            "seq": self.seq,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome: where it first found the log wrong (``first_bad_seq``,
    None when no single event is to blame) and why; ``detail`` adds what it saw.
    A check that could not run (``ran`` false: no key given, the match not over) is
    not a pass: ``ok`` is false, ``reason`` says what it lacked."""

    name: str
    ok: bool
    first_bad_seq: int | None = None
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    ran: bool = True
    findings: tuple[Finding, ...] = ()

    @property
    def status(self) -> Literal["passed", "failed", "not_run"]:
        if not self.ran:
            return "not_run"
        return "passed" if self.ok else "failed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "status": self.status,
            "ok": self.ok,
            "first_bad_seq": self.first_bad_seq,
            "reason": self.reason,
            **self.detail,
        }


def passed(name: str, **detail: Any) -> CheckResult:
    return CheckResult(name, True, detail=detail)


def failed(name: str, seq: int | None, reason: str, **detail: Any) -> CheckResult:
    return CheckResult(name, False, seq, reason, detail)


def not_run(name: str, reason: str, **detail: Any) -> CheckResult:
    return CheckResult(name, False, None, reason, detail, ran=False)


@dataclass(frozen=True, slots=True)
class AuditReport:
    verdict: Verdict
    match_id: str | None
    events: int
    checks: tuple[CheckResult, ...]

    def check(self, name: str) -> CheckResult:
        for result in self.checks:
            if result.name == name:
                return result
        raise KeyError(name)

    @property
    def not_run(self) -> tuple[CheckResult, ...]:
        return tuple(result for result in self.checks if not result.ran)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return tuple(finding for result in self.checks for finding in result.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "match_id": self.match_id,
            "events": self.events,
            "checks": [result.to_dict() for result in self.checks],
            "not_run": [{"name": result.name, "reason": result.reason} for result in self.not_run],
            "findings": [finding.to_dict() for finding in self.findings],
        }


def report_of(match_id: str | None, events: int, checks: tuple[CheckResult, ...]) -> AuditReport:
    """``valid``: every check that ran passed (``not_run`` lists the others: what the
    verdict does not cover); ``invalid``: one failed."""
    failing = any(result.ran and not result.ok for result in checks)
    verdict: Verdict = "invalid" if failing else "valid"
    return AuditReport(verdict, match_id, events, checks)
