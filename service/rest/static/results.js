// The results panel: at the end of each game and of the match, the places,
// the points of each game (players − place), the set's totals and what each
// leaving player still held; then Rematch, the audit verdict and downloads.

import { announce } from "./announce.js";
import { api, requestId } from "./api.js";
import { cardsInWords, cardLabel } from "./cards.js";
import { $ } from "./dom.js";
import { hostKey } from "./host.js";
import { showVerdict } from "./audit.js";
import { keptReceipts } from "./receipts.js";
import { placeWords, seatWords } from "./words.js";

const ORDINALS = ["", "1st", "2nd", "3rd", "4th", "5th"];
const REMATCH_POLL_MS = 3000; // how often a seat's page asks whether another seat opened the rematch

export class Results {
  constructor(id, { token }) {
    this.id = id;
    this.token = token;
    this.held = new Map(); // game number -> [{seat, cards|count}]
    this.game = 0;
    this.bots = {};
    this.names = [];
    this.players = 0;
    this.seat = null;
    this.poll = null;
    this.toldOf = null; // the rematch the page has announced
    $("rematch").textContent = "Rematch";
    $("rematch-news").textContent = "";
  }

  stop() {
    clearTimeout(this.poll);
    this.poll = null;
  }

  /** A seat's page, once the match is over: tell the player when another seat opens the rematch. */
  watchRematch() {
    if (this.poll !== null || !this.token()) return;
    const ask = async () => {
      const token = this.token();
      if (!token) {
        this.poll = null;
        return;
      }
      try {
        const opened = await api.rematchOpened(this.id, token);
        this.toldOfRematch(opened);
      } catch {
        // 404 until a seat opens it; any other failure: ask again later
      }
      if (this.poll !== null) this.poll = setTimeout(ask, REMATCH_POLL_MS);
    };
    this.poll = setTimeout(ask, 0);
  }

  toldOfRematch(opened) {
    if (this.seat !== null && opened.names?.[this.seat]) return; // this seat is there already
    const who = (opened.names ?? []).map((name, seat) => (name && !this.bots[String(seat)] ? name : null)).filter(Boolean);
    const text = `${who.join(" and ") || "Another player"} opened a rematch. Join it with the button below.`;
    $("rematch-news").textContent = text;
    $("rematch").textContent = "Join the rematch";
    if (this.toldOf !== opened.match_id) {
      this.toldOf = opened.match_id;
      announce(text, { logged: false });
    }
  }

  /** Follow the match's events (live or replayed) for what the panel needs. */
  onEvent(event, watcher = null) {
    if (event.type === "GameDealt") this.game = event.game_number;
    if (event.type === "SeatJoined" && event.bot) this.bots[String(event.seat)] = event.bot;
    if ((event.type === "PlayerFinished" || event.type === "PlayerFell") && (event.leftover?.length || event.leftover_count)) {
      // a page opened mid-game saw no GameDealt: the view says which game it is
      const game = this.game || watcher?.lastView?.game_number || 1;
      const list = this.held.get(game) ?? [];
      list.push({ seat: event.seat, cards: event.leftover ?? null, count: event.leftover_count ?? event.leftover?.length ?? 0 });
      this.held.set(game, list);
    }
    if (watcher && (event.type === "GameEnded" || event.type === "MatchEnded" || event.type === "MatchAbandoned")) {
      const final = event.type !== "GameEnded";
      // the view after the event has the results: show them once it is fetched
      watcher.afterRefresh((view, names) => this.show({ view, names }, { final }));
    }
  }

  show(match, { final = false, focus = true } = {}) {
    const view = match.view;
    this.names = match.names ?? this.names;
    this.players = view.players;
    if (view.seat !== null && view.seat !== undefined) this.seat = view.seat;
    const results = view.results ?? [];
    if (!results.length) return;
    const panel = $("results");
    panel.hidden = false;
    panel.dataset.final = String(final);
    panel.dataset.games = String(results.length);
    $("results-title").textContent = final ? "The match is over: results" : `Game ${results.length} is over`;
    this.renderTable(results, view.players);
    this.renderHeld(results.length);
    $("download-record").href = `/matches/${encodeURIComponent(this.id)}/record?format=jsonl`;
    $("download-record").hidden = !final;
    $("rematch").hidden = !final;
    if (final) this.watchRematch();
    this.renderReceipts();
    if (final) showVerdict(this.id, $("results-audit"));
    else $("results-audit").textContent = "";
    if (focus) {
      $("results-title").focus();
      const last = results[results.length - 1];
      const order = last
        .map((place, seat) => [place, seat])
        .sort((a, b) => a[0] - b[0])
        .map(([place, seat]) => `${ORDINALS[place]} ${seatWords(seat, this.names, this.seat)}`);
      announce(`${$("results-title").textContent}. ${order.join(", ")}.`, { logged: false });
    }
  }

  renderTable(results, players) {
    const table = $("results-table");
    const caption = document.createElement("caption");
    caption.textContent = "Place and points per game (a game gives players − place points)";
    const head = document.createElement("thead");
    const headRow = document.createElement("tr");
    const cell = (tag, text, scope) => {
      const element = document.createElement(tag);
      element.textContent = text;
      if (scope) element.scope = scope;
      return element;
    };
    headRow.append(cell("th", "Seat", "col"));
    results.forEach((_, index) => headRow.append(cell("th", `Game ${index + 1}`, "col")));
    headRow.append(cell("th", "Total", "col"));
    head.append(headRow);
    const body = document.createElement("tbody");
    const totals = [];
    for (let seat = 0; seat < players; seat += 1) {
      const row = document.createElement("tr");
      row.dataset.seat = String(seat);
      row.append(cell("th", seatWords(seat, this.names, this.seat), "row"));
      let total = 0;
      for (const places of results) {
        const place = places[seat];
        const points = players - place;
        total += points;
        const td = cell("td", `${ORDINALS[place] ?? place} · ${points} ${points === 1 ? "pt" : "pts"}`);
        td.title = placeWords(place, players);
        td.dataset.place = String(place);
        row.append(td);
      }
      const sum = cell("td", String(total));
      sum.className = "total";
      row.dataset.total = String(total);
      row.append(sum);
      totals.push([total, row]);
      body.append(row);
    }
    table.replaceChildren(caption, head, body);
  }

  renderHeld(games) {
    const box = $("results-held");
    const items = [];
    for (let game = 1; game <= games; game += 1) {
      for (const { seat, cards, count } of this.held.get(game) ?? []) {
        const item = document.createElement("li");
        const who = seatWords(seat, this.names, this.seat);
        if (cards) {
          const eye = document.createElement("span");
          eye.setAttribute("aria-hidden", "true");
          eye.textContent = `Game ${game}: ${who} still held ${cards.map(cardLabel).join(" ")}`;
          const ear = document.createElement("span");
          ear.className = "visually-hidden";
          ear.textContent = `Game ${game}: ${who} still held ${cardsInWords(cards)}`;
          item.append(eye, ear);
        } else item.textContent = `Game ${game}: ${who} still held ${count} cards`;
        items.push(item);
      }
    }
    if (!items.length) {
      box.replaceChildren();
      return;
    }
    const title = document.createElement("h3");
    title.textContent = "Left in hand";
    const list = document.createElement("ul");
    list.className = "held";
    list.append(...items);
    box.replaceChildren(title, list);
  }

  renderReceipts() {
    const link = $("download-receipts");
    const receipts = keptReceipts(this.id);
    link.hidden = receipts.length === 0;
    if (link.dataset.url) URL.revokeObjectURL(link.dataset.url);
    if (!receipts.length) return;
    const text = receipts.map((receipt) => JSON.stringify(receipt)).join("\n") + "\n";
    link.dataset.url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    link.href = link.dataset.url;
    link.download = `receipts-${this.id}.jsonl`;
  }

  /** The same seats and options, as a new match: you in your seat, bots in theirs. */
  async rematch(onCreated, onSeated) {
    $("rematch-error").textContent = "";
    const token = this.token();
    if (token) {
      // a seat: the match's one rematch, in the same seat, whoever asks first
      try {
        const table = await api.rematch(this.id, token);
        onSeated(table);
      } catch (failure) {
        $("rematch-error").textContent = `Could not open a rematch (${failure.code}): ${failure.detail}`;
      }
      return;
    }
    const hosted = JSON.parse(sessionStorage.getItem(hostKey(this.id)) ?? "null");
    let body = hosted?.body;
    if (!body) {
      const [match, presets] = await Promise.all([api.match(this.id), api.presets()]);
      // only the options that differ from the preset's: a table takes at most 64
      const defaults = presets.presets?.find((preset) => preset.name === match.view.preset)?.options ?? {};
      const options = Object.fromEntries(
        Object.entries(match.view.options).filter(([name, value]) => name !== "preset" && defaults[name] !== value),
      );
      body = {
        preset: match.view.preset,
        players: match.view.players,
        options,
        bots: this.bots,
        seat: this.seat,
        name: this.seat === null ? "" : (match.names?.[this.seat] ?? ""),
        games_per_set: match.view.games_per_set,
        auto_start: true,
      };
    }
    try {
      const table = await api.create({ ...body, request_id: requestId() });
      onCreated(table, body);
    } catch (failure) {
      $("rematch-error").textContent = `Could not open a rematch (${failure.code}): ${failure.detail}`;
    }
  }
}
