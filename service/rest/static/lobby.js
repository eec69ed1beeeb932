// The lobby: tables whose creator let anyone join ("anyone can join from the
// lobby"), each with a Join button that takes its next free seat with no invite.
// This browser remembers (localStorage, every tab) the tables it holds a seat at,
// so one person does not take a second seat of the same table by a second click
// or from another tab; the service bounds how many seats one address holds.

import { api, requestId } from "./api.js";
import { $ } from "./dom.js";
import { keepReceipts } from "./receipts.js";

const seatedKey = (id) => `daifugo:seated:${id}`;

/** Note that this browser holds seat `seat` of match `id` (not the token: that stays in the tab). */
export function rememberSeat(id, seat) {
  try {
    localStorage.setItem(seatedKey(id), String(seat));
  } catch {
    // storage refused (private mode): the service's quota still bounds the seats
  }
}

/** The seat this browser holds at match `id`, or null. */
export function seatHeld(id) {
  try {
    const seat = localStorage.getItem(seatedKey(id));
    return seat === null ? null : Number(seat);
  } catch {
    return null;
  }
}

function freeSeats(match) {
  return (match.names ?? []).filter((name) => !name).length;
}

export class Lobby {
  /** `onSeated(id, token)`: the seat taken; the page opens the table. */
  constructor(onSeated) {
    this.onSeated = onSeated;
    this.joining = null; // {id, retry}: one request id per table, kept across retries
    this.loading = false;
  }

  async load() {
    if (this.loading) return;
    this.loading = true;
    const status = $("lobby-status");
    try {
      const page = await api.matches({ state: "open", limit: 50 });
      const open = page.matches.filter((match) => match.lobby && freeSeats(match) > 0);
      $("lobby-list").replaceChildren(...open.map((match) => this.item(match)));
      status.textContent = open.length
        ? `${open.length} ${open.length === 1 ? "table has" : "tables have"} a free seat anyone can take.`
        : "No table is waiting for players now. Open one with New table.";
    } catch (error) {
      status.textContent = `Could not load the open tables: ${error.message}`;
    } finally {
      this.loading = false;
    }
  }

  item(match) {
    const id = match.match_id;
    const item = document.createElement("li");
    item.dataset.matchId = id;
    const free = freeSeats(match);
    const title = document.createElement("p");
    title.className = "match-title";
    title.id = `lobby-title-${id}`;
    const seated = (match.names ?? []).filter(Boolean);
    title.textContent = `${match.preset}, ${match.players} players: ${free} ${free === 1 ? "seat" : "seats"} free`;
    const details = document.createElement("p");
    details.className = "match-details";
    details.textContent = [seated.length ? `seated: ${seated.join(", ")}` : "", `id ${id}`]
      .filter(Boolean)
      .join(" · ");
    const about = document.createElement("div");
    about.append(title, details);
    item.append(about);
    const held = seatHeld(id);
    if (held !== null) {
      const link = document.createElement("a");
      link.href = `#/match/${encodeURIComponent(id)}`;
      link.textContent = `You have seat ${held} here: open the table`;
      item.append(link);
      return item;
    }
    const join = document.createElement("button");
    join.type = "button";
    join.className = "lobby-join";
    join.dataset.matchId = id;
    join.textContent = "Join";
    // the button's name says which table: "Join" alone repeats down the list
    join.setAttribute("aria-label", `Join: ${title.textContent}`);
    join.addEventListener("click", () => this.join(id, join));
    item.append(join);
    return item;
  }

  async join(id, button) {
    const error = $("lobby-error");
    error.textContent = "";
    if (seatHeld(id) !== null) {
      error.textContent = "This browser already has a seat at that table.";
      return;
    }
    if (button.getAttribute("aria-disabled") === "true") return; // a double click
    if (this.joining?.id !== id) this.joining = { id, retry: requestId() };
    button.setAttribute("aria-disabled", "true");
    try {
      const taken = await api.join(id, $("lobby-name").value.trim(), this.joining.retry);
      this.joining = null;
      keepReceipts(id, taken.receipts);
      rememberSeat(id, taken.seat);
      this.onSeated(id, taken.seat_token);
    } catch (failure) {
      const reason = {
        seats_full: "Every seat of that table has been taken.",
        already_started: "That table has started.",
        permission_denied: "That table takes players by invite only.",
        quota_seats: "You hold as many seats from the lobby as one address may; finish or leave a match first.",
      }[failure.code] ?? failure.detail ?? failure.message;
      error.textContent = `Could not join (${failure.code}): ${reason}`;
      button.setAttribute("aria-disabled", "false");
      if (failure.code === "seats_full" || failure.code === "already_started") this.load();
    }
  }
}
