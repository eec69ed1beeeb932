// Replaying a finished match one event at a time: the view after event N
// comes from GET /matches/{id}/state?seq=N (every hand shown, since the match
// is over); buttons and the arrow, Home and End keys move through it.

import { announce } from "./announce.js";
import { allEvents, api } from "./api.js";
import { $, typing } from "./dom.js";
import { renderTable } from "./table.js";
import { describeEvent } from "./words.js";

const KEYS = { ArrowLeft: -1, ArrowRight: 1 };

export class Replay {
  constructor(match) {
    this.id = match.match_id;
    this.names = match.names ?? [];
    this.players = match.view?.players ?? this.names.length;
    this.total = (match.version ?? 0) + 1; // seqs run 0..version
    this.events = [];
    this.states = new Map();
    this.seq = null;
    this.wanted = null;
    this.onKey = (event) => this.key(event);
    this.buttons = [
      ["replay-first", () => this.go(0)],
      ["replay-prev", () => this.go(this.current() - 1)],
      ["replay-next", () => this.go(this.current() + 1)],
      ["replay-last", () => this.go(this.total - 1)],
    ].map(([id, handler]) => {
      const button = $(id);
      const listener = () => handler();
      button.addEventListener("click", listener);
      return [button, listener];
    });
    renderTable(match.view, this.names);
  }

  async start() {
    $("replay").hidden = false;
    document.addEventListener("keydown", this.onKey);
    $("replay-position").textContent = "Loading the events…";
    this.events = await allEvents(this.id);
    this.total = Math.max(this.total, this.events.length);
    // start at the first deal: the full deal is the natural first thing to see
    const dealt = this.events.findIndex((event) => event.type === "GameDealt");
    await this.go(dealt >= 0 ? dealt : 0, { quiet: true });
  }

  stop() {
    document.removeEventListener("keydown", this.onKey);
    for (const [button, listener] of this.buttons) button.removeEventListener("click", listener);
    $("replay").hidden = true;
    this.stopped = true;
  }

  current() {
    return this.wanted ?? this.seq ?? 0;
  }

  key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    let target = null;
    if (event.key in KEYS) target = this.current() + KEYS[event.key];
    else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = this.total - 1;
    if (target === null) return;
    event.preventDefault();
    this.go(target);
  }

  async state(seq) {
    if (!this.states.has(seq)) {
      this.states.set(seq, api.state(this.id, seq));
    }
    try {
      return await this.states.get(seq);
    } catch (error) {
      this.states.delete(seq);
      throw error;
    }
  }

  /** Show the position after event `seq`; a later call overtakes an earlier one still loading. */
  async go(seq, { quiet = false } = {}) {
    const target = Math.max(0, Math.min(this.total - 1, seq));
    this.wanted = target;
    let data;
    try {
      data = await this.state(target);
    } catch (error) {
      $("replay-event").textContent = `Could not load event ${target + 1}: ${error.message}`;
      this.wanted = null;
      return;
    }
    if (this.wanted !== target || this.stopped) return;
    this.wanted = null;
    this.seq = target;
    renderTable(data.view, this.names);
    const position = $("replay-position");
    position.textContent = `Event ${target + 1} of ${this.total}`;
    position.dataset.seq = String(target);
    const event = this.events[target];
    const text = event
      ? describeEvent(event, { names: this.names, players: this.players })
      : "";
    $("replay-event").textContent = text;
    $("replay-event").dataset.type = event?.type ?? "";
    for (const [id, disabled] of [
      ["replay-first", target === 0],
      ["replay-prev", target === 0],
      ["replay-next", target === this.total - 1],
      ["replay-last", target === this.total - 1],
    ]) {
      $(id).setAttribute("aria-disabled", String(disabled));
    }
    if (!quiet) announce(`Event ${target + 1} of ${this.total}: ${text}`, { logged: false });
    // the next step is the likely next request: fetch it ahead
    if (target + 1 < this.total) this.state(target + 1).catch(() => {});
  }
}
