// Watching a live match: follow its event stream (the spectator's, or a
// seat's when a token is given), announce each event, and redraw the table
// from the service's view. The view is fetched again after events arrive (at
// most one request in flight), so the page never re-implements the rules.

import { api } from "./api.js";
import { TurnClock } from "./clock.js";
import { announce, addToLog, extendLogItem } from "./announce.js";
import { $ } from "./dom.js";
import { followEvents } from "./sse.js";
import { effectOf, flash, renderTable } from "./table.js";
import { QUIET, UNLOGGED, describeEvent, lockSuffix } from "./words.js";

const CONNECTION = {
  open: "Live: following the match as it happens.",
  retrying: "Connection lost; reconnecting…",
  closed: "Not following the match: the connection closed.",
  over: "The match is over: nothing more to follow.",
};

export class Watcher {
  /**
   * `match`: the GET /matches/{id} answer. `hooks.onSeat(data)` gets each seat
   * view ({view, legal, version}) while a token is set; `hooks.onEnded()` runs
   * once the match is over.
   */
  constructor(match, hooks = {}) {
    this.id = match.match_id;
    this.names = match.names ?? [];
    this.players = match.view?.players ?? this.names.length;
    this.lastSeq = match.version ?? null;
    this.hooks = hooks;
    this.token = null;
    this.seat = null;
    this.stream = null;
    this.refreshing = false;
    this.dirty = false;
    this.ended = false;
    this.stopped = false;
    this.state = match.state;
    this.lastPlay = null; // {item, seq}: the log entry a lock is added to
    this.waitingForView = []; // callbacks for the next view fetched
    this.lastView = match.view;
    this.clock = new TurnClock();
    renderTable(match.view, this.names);
    this.clock.set(match.turn_deadline_ms);
  }

  /** Call `callback(view, names)` once the next view has been fetched. */
  afterRefresh(callback) {
    this.waitingForView.push(callback);
    this.scheduleRefresh();
  }

  start() {
    const upTo = this.lastSeq;
    this.openStream();
    if (upTo !== null) this.loadRecent(upTo);
  }

  /** The last events before the stream's start, in the log only (they are past news). */
  async loadRecent(upTo, count = 30) {
    const from = Math.max(0, upTo - count + 1);
    try {
      const page = await api.events(this.id, from, count);
      const context = { names: this.names, players: this.players };
      const past = page.events.filter((event) => event.seq <= upTo && !UNLOGGED.has(event.type));
      for (const event of past.reverse()) {
        const shown = describeEvent(event, { ...context, symbols: true });
        addToLog(describeEvent(event, context), event.seq, { older: true, shown });
      }
    } catch {
      // the history is a nicety: the table and the stream matter more
    }
  }

  stop() {
    this.stopped = true;
    this.clock.stop();
    this.stream?.stop();
    this.stream = null;
  }

  /** Follow the match as a seat (token) or, with null, as a spectator again. */
  async useToken(token) {
    this.token = token;
    this.seat = null;
    this.stream?.stop();
    // the seat's view and legal actions (or the spectator's) first; a fetch
    // already under way goes round once more with the new token
    if (this.refreshing) this.dirty = true;
    else await this.refresh();
    this.openStream();
  }

  openStream() {
    if (this.stopped || this.ended) return;
    const connection = $("connection");
    this.stream = followEvents(`/matches/${encodeURIComponent(this.id)}/live`, {
      token: this.token,
      lastId: this.lastSeq,
      onEvent: (message) => this.onEvent(message),
      onState: (state) => {
        if (this.stopped) return; // the reader left this match: its stream's end is not news
        // a stream that closes because the match ended is no trouble: say so plainly
        const shown = state === "closed" && this.ended ? "over" : state;
        connection.hidden = false;
        connection.textContent = CONNECTION[shown] ?? shown;
        connection.dataset.state = shown;
      },
    });
  }

  onEvent({ id, type, data }) {
    const event = typeof data === "object" && data !== null ? data : { type };
    event.type ??= type;
    const seq = event.seq ?? (id === null ? null : Number(id));
    if (seq !== null && this.lastSeq !== null && seq <= this.lastSeq) return; // already seen
    if (seq !== null) this.lastSeq = seq;
    if (event.type === "SeatJoined" && event.name) this.names[event.seat] = event.name;
    if (event.type === "MatchStarted") this.state = "live";
    if (event.type === "MatchEnded") this.state = "finished";
    if (event.type === "MatchAbandoned") this.state = "abandoned";
    const context = { names: this.names, players: this.players, me: this.seat };
    const text = describeEvent(event, context);
    const shown = describeEvent(event, { ...context, symbols: true });
    const suffix = lockSuffix(event);
    if (suffix && this.lastPlay && seq === this.lastPlay.seq + 1) {
      // the lock the play started, on the play's own line
      extendLogItem(this.lastPlay.item, suffix, lockSuffix(event, false));
      this.lastPlay.seq = seq;
      announce(text, { logged: false });
    } else if (UNLOGGED.has(event.type)) {
      // the table shows whose turn it is
    } else if (event.type === "SeatJoined" && this.state === "open") {
      announce(text, { seq, shown }); // who sits down matters while the table fills
    } else if (QUIET.has(event.type)) addToLog(text, seq, { shown });
    else {
      const item = announce(text, { seq, shown });
      this.lastPlay = event.type === "CardsPlayed" ? { item, seq } : null;
    }
    const effect = effectOf(event);
    if (effect) flash(effect);
    this.hooks.onEvent?.(event);
    if (event.type === "MatchEnded" || event.type === "MatchAbandoned" || event.type === "SeedRevealed") this.ended = true;
    this.scheduleRefresh();
    if (event.type === "SeedRevealed") {
      // the last event of every match: nothing more will come
      this.stream?.stop();
      $("connection").hidden = true;
    }
  }

  /** Fetch the view again soon; calls made while one is running fold into one more. */
  scheduleRefresh() {
    if (this.refreshing) {
      this.dirty = true;
      return;
    }
    this.refresh();
  }

  async refresh() {
    this.refreshing = true;
    try {
      do {
        this.dirty = false;
        await this.fetchView();
      } while (this.dirty && !this.stopped);
    } catch (error) {
      addToLog(`Could not load the view: ${error.message}`);
    } finally {
      this.refreshing = false;
    }
    if (this.waitingForView.length && !this.stopped) {
      const waiting = this.waitingForView.splice(0);
      for (const callback of waiting) callback(this.lastView, this.names);
    }
    if (this.ended && !this.stopped && !this.endedReported) {
      this.endedReported = true;
      this.hooks.onEnded?.();
    }
  }

  /** open, live, finished or abandoned, as the events and the view say. */
  stateOf(view) {
    if (this.state === "abandoned") return this.state;
    if (view.phase === "match_over") this.state = "finished";
    else if (view.game_number > 0) this.state = "live";
    return this.state;
  }

  async fetchView() {
    if (this.stopped) return;
    if (this.token) {
      const data = await api.seat(this.id, this.token);
      if (this.stopped || !this.token) return;
      this.seat = data.view.seat;
      this.lastView = data.view;
      renderTable(data.view, this.names);
      this.clock.set(data.turn_deadline_ms);
      this.hooks.onSeat?.(data);
      this.hooks.onView?.({ names: this.names, state: this.stateOf(data.view) });
      if (data.view.phase === "match_over") this.ended = true;
    } else {
      const data = await api.match(this.id);
      if (this.stopped || this.token) return;
      this.names = data.names ?? this.names;
      this.lastView = data.view;
      this.state = data.state ?? this.state;
      this.stateOf(data.view);
      renderTable(data.view, this.names);
      this.clock.set(data.turn_deadline_ms);
      this.hooks.onView?.({ names: this.names, state: this.state });
      if (data.view.phase === "match_over") this.ended = true;
    }
  }
}
