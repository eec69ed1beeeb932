// The audit, visible: a finished match's verdict (GET /matches/{id}/audit),
// and the "Audit a record" page, which sends an exported log to POST /audit
// and lists each check, the first bad seq of a failed one linked to its step.

import { api } from "./api.js";
import { $ } from "./dom.js";

const MAX_LOG = 20 * 1024 * 1024;

/** A check's status as the report gives it; reports from before it had one, by ok. */
function statusOf(check) {
  return check.status ?? (check.ok ? "passed" : "failed");
}

/** The report's findings in words: each code with the events it was found at. */
function warnings(report) {
  const seqs = new Map();
  for (const finding of report.findings) seqs.set(finding.code, [...(seqs.get(finding.code) ?? []), finding.seq]);
  return [...seqs].map(([code, at]) => `${code} (event${at.length > 1 ? "s" : ""} #${at.join(", #")})`).join("; ");
}

/** Write the match's verdict into `element` (nothing while it is live). */
export async function showVerdict(id, element) {
  element.hidden = false;
  element.textContent = "Auditing…";
  try {
    const report = await api.audit(id);
    element.dataset.verdict = report.verdict;
    const named = (status) => report.checks.filter((check) => statusOf(check) === status).map((check) => check.name);
    const notRun = named("not_run");
    // the words of `daifugo audit`'s report: passed, failed, not_run (a check with nothing to check)
    const unrun = notRun.length ? ` Not run (not_run): ${notRun.join(", ")}.` : "";
    const warned = report.findings?.length ? ` Warnings: ${warnings(report)}.` : "";
    element.textContent =
      report.verdict === "valid"
        ? `Audit: valid. ${named("passed").length} of ${report.checks.length} checks passed over ${report.events} events.${unrun}${warned}`
        : `Audit: invalid. Failed: ${named("failed").join(", ")}.${unrun}`;
  } catch (error) {
    element.dataset.verdict = "";
    element.textContent = error.code === "match_not_over" ? "" : `Audit unavailable: ${error.message}`;
    element.hidden = error.code === "match_not_over";
  }
}

export class AuditPage {
  constructor() {
    $("audit-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.run();
    });
  }

  open() {
    $("audit-error").textContent = "";
  }

  async run() {
    const file = $("audit-file").files?.[0];
    $("audit-error").textContent = "";
    if (!file) {
      $("audit-error").textContent = "Choose an exported event log first.";
      return;
    }
    if (file.size > MAX_LOG) {
      $("audit-error").textContent = "That file is too large to be a match's log.";
      return;
    }
    let report;
    try {
      report = await api.auditLog(await file.text());
    } catch (failure) {
      $("audit-error").textContent = `Not an event log (${failure.code}): ${failure.detail}`;
      return;
    }
    this.render(report);
  }

  render(report) {
    const box = $("audit-report");
    box.hidden = false;
    const verdict = $("audit-report-verdict");
    verdict.dataset.verdict = report.verdict;
    verdict.textContent = `${report.verdict === "valid" ? "Valid" : "Invalid"}: ${report.events} events${report.match_id ? ` of match ${report.match_id}` : ""}.`;
    const items = report.checks.map((check) => {
      const item = document.createElement("li");
      item.dataset.check = check.name;
      const status = statusOf(check);
      item.dataset.ok = String(check.ok);
      item.dataset.status = status; // not_run is no failure: it is not shown as one
      const name = document.createElement("strong");
      name.textContent = `${check.name}: ${status}`;
      item.append(name);
      if (status === "not_run" && check.reason) item.append(` — ${check.reason}`);
      if (status === "failed") {
        if (check.reason) item.append(` — ${check.reason}`);
        if (check.first_bad_seq !== null && check.first_bad_seq !== undefined) {
          item.append(" ");
          const seq = check.first_bad_seq;
          if (report.match_id) {
            const link = document.createElement("a");
            link.href = `#/match/${encodeURIComponent(report.match_id)}/replay/${seq}`;
            link.className = "bad-seq";
            link.dataset.seq = String(seq);
            link.textContent = `first bad event: #${seq} (open that step of the replay)`;
            item.append(link);
          } else item.append(`first bad event: #${seq}`);
        }
      }
      return item;
    });
    $("audit-report-checks").replaceChildren(...items);
    const findings = (report.findings ?? []).map((finding) => {
      const item = document.createElement("li");
      item.dataset.finding = finding.code;
      const code = document.createElement("strong");
      code.textContent = `${finding.code} (${finding.severity}), event #${finding.seq}`;
      item.append(code, ` — ${finding.message}`);
      return item;
    });
    $("audit-findings").replaceChildren(...findings);
    $("audit-report-findings").hidden = findings.length === 0;
    $("audit-report-title").focus?.();
  }
}
