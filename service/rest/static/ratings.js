// The ratings: a pool's leaderboard (GET /ratings), and a player's page: the rating over
// time as a plot (with the same numbers in a table for screen readers) and the recent
// rated games, each linked to its match's replay at that game's end.

import { api } from "./api.js";
import { $ } from "./dom.js";

const PAGE = 50;
const enc = encodeURIComponent;
const fixed = (value) => (Math.round(value * 100) / 100).toFixed(2);
const signed = (value) => (value > 0 ? `+${fixed(value)}` : fixed(value));

export class RatingsPage {
  constructor() {
    this.next = 0;
    this.pool = "federation.4-5";
    $("ratings-more").addEventListener("click", () => this.load(false));
    $("ratings-filter").addEventListener("submit", (event) => {
      event.preventDefault();
      this.pool = $("ratings-pool").value;
      this.load(true);
    });
  }

  async load(reset) {
    const body = $("ratings").tBodies[0];
    const status = $("ratings-status");
    if (reset) this.next = 0;
    status.textContent = "Loading the ratings…";
    try {
      const page = await api.ratings(this.pool, this.next, PAGE);
      const select = $("ratings-pool");
      if (select.options.length !== page.pools.length) {
        select.replaceChildren(...page.pools.map((pool) => new Option(pool, pool)));
      }
      select.value = page.pool;
      if (reset) body.replaceChildren();
      for (const rating of page.ratings) {
        const row = document.createElement("tr");
        const rank = document.createElement("td");
        rank.textContent = String(rating.rank);
        const name = document.createElement("th");
        name.scope = "row";
        const link = document.createElement("a");
        link.href = `#/player/${enc(page.pool)}/${enc(rating.player_id)}`;
        link.textContent = rating.name;
        name.append(link);
        row.append(rank, name);
        const values = [fixed(rating.ordinal), fixed(rating.mu), fixed(rating.sigma), String(rating.games), signed(rating.last_change)];
        for (const value of values) {
          const cell = document.createElement("td");
          cell.textContent = value;
          row.append(cell);
        }
        body.append(row);
      }
      this.next = page.next ?? this.next + page.ratings.length;
      $("ratings-more").hidden = page.next === null;
      status.textContent = body.childElementCount
        ? `${body.childElementCount} players shown in ${page.pool}.`
        : `No rated game in ${page.pool} yet.`;
    } catch (error) {
      status.textContent = `Could not load the ratings: ${error.message}`;
    }
  }
}

export async function showPlayer(pool, playerId) {
  const status = $("player-status");
  const body = $("player-games").tBodies[0];
  body.replaceChildren();
  $("player-plot").replaceChildren();
  $("player-summary").textContent = "";
  status.textContent = "Loading the player…";
  let page;
  try {
    page = await api.playerRatings(pool, playerId);
  } catch (error) {
    status.textContent = `Could not load this player: ${error.message}`;
    return;
  }
  const rating = page.rating;
  $("player-title").textContent = rating.name;
  document.title = `${rating.name} · Daifugō`;
  $("player-summary").textContent =
    `${pool}: rank ${rating.rank}, rating ${fixed(rating.ordinal)} (μ ${fixed(rating.mu)}, σ ${fixed(rating.sigma)}), ` +
    `${rating.games} ${rating.games === 1 ? "game" : "games"}, last change ${signed(rating.last_change)}.`;
  plot($("player-plot"), page.games, rating.name);
  for (const game of [...page.games].reverse()) {
    const row = document.createElement("tr");
    const when = document.createElement("td");
    when.textContent = new Date(game.at).toLocaleString();
    const match = document.createElement("td");
    const link = document.createElement("a");
    link.href = `#/match/${enc(game.match_id)}/replay/${game.game_seq}`;
    link.textContent = `${game.match_id} (replay)`;
    match.append(link);
    row.append(when, match);
    for (const value of [String(game.place), fixed(game.ordinal), signed(game.delta)]) {
      const cell = document.createElement("td");
      cell.textContent = value;
      row.append(cell);
    }
    body.append(row);
  }
  status.textContent = `${page.games.length} rated ${page.games.length === 1 ? "game" : "games"} shown.`;
}

/** The rating over time as an SVG line; one image for assistive technology, whose
 * label says the trend (the table below it holds every number). */
function plot(figure, games, name) {
  const ns = "http://www.w3.org/2000/svg";
  const width = 600;
  const height = 200;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("class", "rating-plot");
  if (games.length === 0) {
    svg.setAttribute("aria-label", `${name} has no rated game yet`);
    figure.append(svg);
    return;
  }
  const values = games.map((game) => game.ordinal);
  const low = Math.min(...values, 0);
  const high = Math.max(...values, 1);
  const x = (index) => (games.length === 1 ? width / 2 : (index / (games.length - 1)) * (width - 20) + 10);
  const y = (value) => height - 10 - ((value - low) / (high - low || 1)) * (height - 20);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", values.map((value, index) => `${x(index)},${y(value)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  svg.append(line);
  const first = values[0];
  const last = values[values.length - 1];
  svg.setAttribute(
    "aria-label",
    `${name}'s rating over ${games.length} games, from ${fixed(first)} to ${fixed(last)} (lowest ${fixed(Math.min(...values))}, highest ${fixed(Math.max(...values))})`,
  );
  figure.append(svg);
}
