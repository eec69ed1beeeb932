// Replaying a finished match move by move: the view after event N comes from
// GET /matches/{id}/state?seq=N (every hand shown, since the match is over: the
// full deal). Buttons, the arrow keys and autoplay step from move to move (the
// turn passing on is no step of its own), a list of every move jumps to it, and
// a timeline has one step per event; Home and End go to the ends; autoplay at 1×/2×/4×; jump to
// a game; see it as everyone or as one seat saw it. Each step has a link
// (#/match/<id>/replay/<seq>), kept in the address bar as the replay moves. The expert's
// analysis of the game shown sits beside it (analysis.js).

import { AnalysisView } from "./analysis.js";
import { announce } from "./announce.js";
import { allEvents, api } from "./api.js";
import { $, typing } from "./dom.js";
import { effectOf, flash, renderTable } from "./table.js";
import { cardsInSymbols, sortByStrength } from "./cards.js";
import { UNLOGGED, describeEvent } from "./words.js";

const KEYS = { ArrowLeft: -1, ArrowRight: 1 };
const STEP_MS = 1200; // autoplay at 1×

/** The view as seat `seat` saw it: its own hand, the others' counts. */
function seenBy(view, seat) {
  if (seat === null) return view;
  return {
    ...view,
    viewer: `seat ${seat}`,
    seat,
    hand: view.hands?.[seat] ?? view.hand,
    hands: null,
    blind: null,
    unused: null,
  };
}

export class Replay {
  constructor(match, { seq = null } = {}) {
    this.id = match.match_id;
    this.names = match.names ?? [];
    this.players = match.view?.players ?? this.names.length;
    this.total = (match.version ?? 0) + 1; // seqs run 0..version
    this.events = [];
    this.states = new Map();
    this.seq = null;
    this.wanted = null;
    this.startAt = seq;
    this.perspective = null;
    this.timer = null;
    this.onKey = (event) => this.key(event);
    this.listeners = [
      ["replay-first", "click", () => this.go(0)],
      ["replay-prev", "click", () => this.go(this.nextMove(-1))],
      ["replay-next", "click", () => this.go(this.nextMove(1))],
      ["replay-last", "click", () => this.go(this.total - 1)],
      ["replay-auto", "click", () => this.toggleAutoplay()],
      ["replay-speed", "change", () => this.timer && this.schedule()],
      ["replay-timeline", "input", () => this.go(Number($("replay-timeline").value))],
      ["replay-game", "change", () => this.go(Number($("replay-game").value))],
      ["replay-perspective", "change", () => this.changePerspective()],
    ].map(([id, type, handler]) => {
      const element = $(id);
      element.addEventListener(type, handler);
      return [element, type, handler];
    });
    renderTable(match.view, this.names);
    this.analysis = new AnalysisView(this.id, this.names, this.players, (seq) => this.go(seq));
  }

  async start() {
    $("replay").hidden = false;
    document.addEventListener("keydown", this.onKey);
    $("replay-position").textContent = "Loading the events…";
    this.events = await allEvents(this.id);
    if (this.stopped) return;
    this.total = Math.max(this.total, this.events.length);
    const timeline = $("replay-timeline");
    timeline.max = String(this.total - 1);
    this.fillChoices();
    this.fillMoves();
    this.analysis.start(this.events);
    // a link opens at its step; otherwise the first deal (the full deal) comes first
    const dealt = this.events.findIndex((event) => event.type === "GameDealt");
    const first = this.startAt ?? (dealt >= 0 ? dealt : 0);
    await this.go(first, { quiet: true });
  }

  fillChoices() {
    const games = this.events.filter((event) => event.type === "GameDealt");
    $("replay-game").replaceChildren(
      ...games.map((event) => {
        const option = document.createElement("option");
        option.value = String(event.seq);
        option.textContent = `Game ${event.game_number}`;
        return option;
      }),
    );
    const perspective = $("replay-perspective");
    perspective.replaceChildren(perspective.options[0]);
    for (let seat = 0; seat < this.players; seat += 1) {
      const option = document.createElement("option");
      option.value = String(seat);
      const name = this.names[seat];
      option.textContent = `Seat ${seat}${name && name !== `seat ${seat}` ? ` (${name})` : ""}, as it saw the match`;
      perspective.append(option);
    }
  }

  /** A move: an event the log tells (the turn passing on is not one). */
  isMove(event) {
    return Boolean(event) && !UNLOGGED.has(event.type);
  }

  /** The seq of the next move after (1) or before (-1) the current step, else the end. */
  nextMove(direction) {
    let seq = this.current() + direction;
    while (seq > 0 && seq < this.total - 1 && !this.isMove(this.events[seq])) seq += direction;
    return seq;
  }

  /** Every move as a button that goes to it, numbered, with its game. */
  fillMoves() {
    const list = $("replay-moves");
    let number = 0;
    list.replaceChildren(
      ...this.events.filter((event) => this.isMove(event)).map((event) => {
        number += 1;
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "move";
        button.dataset.seq = String(event.seq);
        button.textContent = `${number}. ${describeEvent(event, { names: this.names, players: this.players, symbols: true })}`;
        button.addEventListener("click", () => this.go(event.seq));
        item.append(button);
        return item;
      }),
    );
  }

  /** The move list marks the step shown (the last move at or before it) and keeps it in sight. */
  markMove(seq) {
    const list = $("replay-moves");
    let current = null;
    for (const button of list.querySelectorAll("button")) {
      if (Number(button.dataset.seq) <= seq) current = button;
      button.removeAttribute("aria-current");
    }
    if (!current) return;
    current.setAttribute("aria-current", "step");
    // scroll the list only, never the page
    const top = current.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - current.offsetHeight) {
      list.scrollTop = Math.max(0, top - list.clientHeight / 2);
    }
  }

  /** "Seen by" one seat: that seat's hand as it was, in words and symbols. */
  showSeenHand(view) {
    const box = $("replay-hand");
    const seat = this.perspective;
    const hand = seat === null ? null : view.hands?.[seat];
    box.hidden = !hand;
    if (!hand) return;
    const name = this.names[seat];
    const cards = sortByStrength(hand, Boolean(view.revolution));
    box.textContent = `${name || `Seat ${seat}`}'s hand (${cards.length}): ${cardsInSymbols(cards) || "no cards"}`;
    box.dataset.cards = cards.join(" ");
  }

  stop() {
    document.removeEventListener("keydown", this.onKey);
    for (const [element, type, handler] of this.listeners) element.removeEventListener(type, handler);
    this.stopAutoplay();
    this.analysis.stop();
    this.analysis.clear();
    $("replay").hidden = true;
    this.stopped = true;
  }

  current() {
    return this.wanted ?? this.seq ?? 0;
  }

  key(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    if (event.target instanceof HTMLElement && event.target.closest("#hand")) return;
    let target = null;
    if (event.key in KEYS) target = this.nextMove(KEYS[event.key]);
    else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = this.total - 1;
    if (target === null) return;
    event.preventDefault();
    this.go(target);
  }

  /** The address bar moved to another step of this replay (a link followed). */
  goFromLink(seq) {
    this.go(seq);
  }

  toggleAutoplay() {
    if (this.timer) this.stopAutoplay();
    else {
      if (this.current() >= this.total - 1) this.go(0, { quiet: true });
      $("replay-auto").setAttribute("aria-pressed", "true");
      $("replay-auto").textContent = "Pause";
      this.schedule();
    }
  }

  schedule() {
    clearTimeout(this.timer);
    const speed = Number($("replay-speed").value) || 1;
    this.timer = setTimeout(async () => {
      if (this.stopped) return;
      if (this.current() >= this.total - 1) {
        this.stopAutoplay();
        return;
      }
      await this.go(this.nextMove(1), { quiet: true });
      if (this.timer) this.schedule();
    }, STEP_MS / speed);
  }

  stopAutoplay() {
    clearTimeout(this.timer);
    this.timer = null;
    $("replay-auto").setAttribute("aria-pressed", "false");
    $("replay-auto").textContent = "Autoplay";
  }

  changePerspective() {
    const value = $("replay-perspective").value;
    this.perspective = value === "" ? null : Number(value);
    if (this.seq !== null) this.go(this.seq, { quiet: true });
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
    const stepped = this.seq !== null && target === this.seq + 1;
    this.seq = target;
    renderTable(seenBy(data.view, this.perspective), this.names);
    this.showSeenHand(data.view);
    this.markMove(target);
    this.analysis.show(target);
    const position = $("replay-position");
    position.textContent = `Event ${target + 1} of ${this.total}`;
    position.dataset.seq = String(target);
    $("replay-timeline").value = String(target);
    $("replay-timeline").setAttribute("aria-valuetext", `Event ${target + 1} of ${this.total}`);
    const games = [...$("replay-game").options].filter((option) => Number(option.value) <= target);
    if (games.length) $("replay-game").value = games[games.length - 1].value;
    const event = this.events[target];
    const me = this.perspective;
    const text = event ? describeEvent(event, { names: this.names, players: this.players, me }) : "";
    $("replay-event").textContent = text;
    $("replay-event").dataset.type = event?.type ?? "";
    if (stepped && event && effectOf(event)) flash(effectOf(event));
    for (const [id, disabled] of [
      ["replay-first", target === 0],
      ["replay-prev", target === 0],
      ["replay-next", target === this.total - 1],
      ["replay-last", target === this.total - 1],
    ]) {
      $(id).setAttribute("aria-disabled", String(disabled));
    }
    const link = `#/match/${encodeURIComponent(this.id)}/replay/${target}`;
    $("replay-link").href = link;
    if (location.hash.startsWith(`#/match/${encodeURIComponent(this.id)}`) && location.hash !== link) {
      history.replaceState(null, "", link); // no hashchange: the replay stays as it is
    }
    if (!quiet) announce(`Event ${target + 1} of ${this.total}: ${text}`, { logged: false });
    // the next step is the likely next request: fetch it ahead
    if (target + 1 < this.total) this.state(target + 1).catch(() => {});
  }
}
