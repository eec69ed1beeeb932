// The list of matches: filter by state and preset, and a "More matches"
// button that follows the listing's cursor.

import { api } from "./api.js";
import { $ } from "./dom.js";

const STATES = { open: "open", live: "live", finished: "finished", abandoned: "abandoned" };

function when(value) {
  if (value === null || value === undefined || value === "") return "";
  let date;
  if (typeof value === "number") date = new Date(value > 1e12 ? value : value * 1000);
  else date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

function matchItem(match) {
  const item = document.createElement("li");
  item.dataset.matchId = match.match_id;
  item.dataset.state = match.state;
  const link = document.createElement("a");
  link.href = `#/match/${encodeURIComponent(match.match_id)}`;
  const game =
    match.state === "open" ? "not started" : `game ${match.game_number || 1} of ${match.games_per_set}`;
  link.textContent = `${match.preset}, ${match.players} players: ${game}`;
  const badge = document.createElement("span");
  badge.className = `badge state-${STATES[match.state] ?? "other"}`;
  badge.textContent = match.state;
  const details = document.createElement("p");
  details.className = "match-details";
  const names = (match.names ?? []).filter(Boolean).join(", ");
  const time = when(match.updated_at ?? match.created_at);
  details.textContent = [names, time && `updated ${time}`, `id ${match.match_id}`]
    .filter(Boolean)
    .join(" · ");
  const heading = document.createElement("p");
  heading.className = "match-title";
  heading.append(badge, " ", link);
  item.append(heading, details);
  return item;
}

export class MatchList {
  constructor() {
    this.next = null;
    this.loading = false;
    $("filter").addEventListener("submit", (event) => {
      event.preventDefault();
      this.load(true);
    });
    $("more").addEventListener("click", () => this.load(false));
  }

  filter() {
    const limit = Number($("match-list").dataset.pageSize) || 20;
    return { state: $("filter-state").value, preset: $("filter-preset").value, limit };
  }

  async load(reset) {
    if (this.loading) return;
    this.loading = true;
    const list = $("match-list");
    const status = $("list-status");
    status.textContent = "Loading matches…";
    try {
      const page = await api.matches({ ...this.filter(), cursor: reset ? null : this.next });
      if (reset) list.replaceChildren();
      const firstNew = list.childElementCount;
      for (const match of page.matches) list.append(matchItem(match));
      this.next = page.next ?? null;
      $("more").hidden = this.next === null;
      const count = list.childElementCount;
      status.textContent = count
        ? `${count} ${count === 1 ? "match" : "matches"} shown${this.next ? "; more available" : ""}.`
        : "No matches found.";
      // after "More", carry keyboard focus to the first new match
      if (!reset && page.matches.length) list.children[firstNew].querySelector("a").focus();
    } catch (error) {
      status.textContent = `Could not load matches: ${error.message}`;
    } finally {
      this.loading = false;
    }
  }
}
