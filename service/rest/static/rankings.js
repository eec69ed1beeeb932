// The rankings page: players by points (GET /rankings), a page at a time.

import { api } from "./api.js";
import { $ } from "./dom.js";

const PAGE = 50;

export class RankingsPage {
  constructor() {
    this.next = 0;
    $("rankings-more").addEventListener("click", () => this.load(false));
  }

  async load(reset) {
    const body = $("rankings").tBodies[0];
    const status = $("rankings-status");
    if (reset) this.next = 0;
    status.textContent = "Loading the rankings…";
    try {
      const page = await api.rankings(this.next, PAGE);
      if (reset) body.replaceChildren();
      page.rankings.forEach((standing, index) => {
        const row = document.createElement("tr");
        const rank = document.createElement("td");
        rank.textContent = String(this.next + index + 1);
        const name = document.createElement("th");
        name.scope = "row";
        name.textContent = standing.name;
        row.append(rank, name);
        for (const value of [standing.points, standing.games, standing.firsts]) {
          const cell = document.createElement("td");
          cell.textContent = String(value);
          row.append(cell);
        }
        body.append(row);
      });
      this.next = page.next ?? this.next + page.rankings.length;
      $("rankings-more").hidden = page.next === null;
      status.textContent = body.childElementCount ? `${body.childElementCount} players shown.` : "Nobody has finished a game yet.";
    } catch (error) {
      status.textContent = `Could not load the rankings: ${error.message}`;
    }
  }
}
