"""What an audit finds: one result per check, and the verdict they add up to."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Verdict = Literal["valid", "invalid"]


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check's outcome: where it first found the log wrong (``first_bad_seq``,
    None when no single event is to blame) and why; ``detail`` adds what it saw."""

    name: str
    ok: bool
    first_bad_seq: int | None = None
    reason: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ok": self.ok,
            "first_bad_seq": self.first_bad_seq,
            "reason": self.reason,
            **self.detail,
        }


def passed(name: str, **detail: Any) -> CheckResult:
    return CheckResult(name, True, detail=detail)


def failed(name: str, seq: int | None, reason: str, **detail: Any) -> CheckResult:
    return CheckResult(name, False, seq, reason, detail)


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "match_id": self.match_id,
            "events": self.events,
            "checks": [result.to_dict() for result in self.checks],
        }


def report_of(match_id: str | None, events: int, checks: tuple[CheckResult, ...]) -> AuditReport:
    verdict: Verdict = "valid" if all(result.ok for result in checks) else "invalid"
    return AuditReport(verdict, match_id, events, checks)
