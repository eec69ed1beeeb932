// The turn clock: when a turn time limit is set, the seconds left to the seat
// to act, counted down from the service's deadline (ms since the epoch), in the
// table's status line and beside a seat's prompt (in view on its turn).

import { $ } from "./dom.js";

const TICK_MS = 250; // often enough that a shown second is never a whole second late
const CLOCKS = ["fact-clock", "seat-clock"];

export class TurnClock {
  constructor() {
    this.deadline = null;
    this.timer = null;
  }

  /** A fresh view's deadline (null: nobody is timed now). */
  set(deadlineMs) {
    this.deadline = typeof deadlineMs === "number" ? deadlineMs : null;
    if (this.deadline === null) {
      this.stop();
      return;
    }
    if (this.timer === null) this.timer = setInterval(() => this.tick(), TICK_MS);
    this.tick();
  }

  tick() {
    if (this.deadline === null) return;
    const left = Math.max(0, Math.ceil((this.deadline - Date.now()) / 1000));
    for (const id of CLOCKS) {
      const box = $(id);
      box.hidden = false;
      box.dataset.left = String(left);
      box.dataset.low = String(left <= 10);
      box.querySelector(".clock-left").textContent = `${left} s`;
    }
  }

  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.deadline = null;
    for (const id of CLOCKS) $(id).hidden = true;
  }
}
