// The expert's analysis of a finished match, beside its replay: for the game shown,
// asked for (POST /matches/{id}/analysis?game=N) and followed with a progress bar until
// kept; then each seat's expected place after each of its judged moves as a graph (an
// SVG, with the same figures in a table for screen readers and keyboards), each
// labelled move marked in the move list and on the timeline, and the expert's choice
// beside the move shown. Thresholds and wording: docs/ANALYSIS.md.

import { api } from "./api.js";
import { cardsInSymbols } from "./cards.js";
import { $ } from "./dom.js";

const POLL_MS = 1000;
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 180;
const PAD = 28;
const LABELS = ["inaccuracy", "mistake", "blunder"];

/** A move in the notation's words, its cards as symbols: "play 8♥ 9♥". */
export function actionText(notation) {
  const [verb, ...rest] = notation.split(" ");
  const at = rest.indexOf("as");
  const cards = at < 0 ? rest : rest.slice(0, at);
  const jokersAs = at < 0 ? [] : rest.slice(at + 1);
  return cards.length ? `${verb} ${cardsInSymbols(cards, jokersAs)}` : verb;
}

function place(value) {
  return Number(value).toFixed(2);
}

function svg(tag, attributes = {}) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

function cell(tag, content) {
  const element = document.createElement(tag);
  if (content instanceof Node) element.append(content);
  else element.textContent = content;
  return element;
}

export class AnalysisView {
  constructor(id, names, players, go) {
    this.id = id;
    this.names = names;
    this.players = players;
    this.go = go; // to a step of the replay
    this.deals = [];
    this.game = null;
    this.result = null;
    this.timer = null;
    this.stopped = false;
    this.onAsk = () => this.ask();
    $("analysis-ask").addEventListener("click", this.onAsk);
  }

  seatName(seat) {
    const name = this.names[seat];
    return name && name !== `seat ${seat}` ? `Seat ${seat} (${name})` : `Seat ${seat}`;
  }

  start(events) {
    this.deals = events.filter((event) => event.type === "GameDealt").map((event) => [event.seq, event.game_number]);
  }

  gameAt(seq) {
    let game = 1;
    for (const [dealt, number] of this.deals) if (dealt <= seq) game = number;
    return game;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    $("analysis-ask").removeEventListener("click", this.onAsk);
  }

  /** The step shown moved: load its game's analysis, and say what the expert thought. */
  show(seq) {
    const game = this.gameAt(seq);
    if (game !== this.game) {
      this.game = game;
      this.result = null;
      this.clear();
      this.load();
    }
    this.seq = seq;
    this.note();
  }

  status(text) {
    $("analysis-status").textContent = text;
  }

  async load() {
    const game = this.game;
    this.status(`Looking for the expert's analysis of game ${game}…`);
    try {
      this.follow(await api.analysis(this.id, game), game);
    } catch (error) {
      if (game !== this.game || this.stopped) return;
      if (error.code === "analysis_not_requested") {
        this.status(`Game ${game} has not been analysed yet.`);
        this.offer(game);
      } else if (error.code === "match_not_over") {
        this.status("The expert analyses a match once it is over.");
      } else {
        this.status(`Could not read the analysis: ${error.detail ?? error.message}`);
      }
    }
  }

  offer(game) {
    const button = $("analysis-ask");
    button.textContent = `Analyse game ${game}`;
    button.hidden = false;
  }

  async ask() {
    const game = this.game;
    $("analysis-ask").hidden = true;
    this.status(`Asking for the analysis of game ${game}…`);
    try {
      this.follow(await api.analyse(this.id, game), game);
    } catch (error) {
      if (game !== this.game || this.stopped) return;
      this.status(`The analysis was refused: ${error.detail ?? error.message}`);
      this.offer(game);
    }
  }

  /** A status answer: the result, or the progress and a look again soon. */
  follow(answer, game) {
    if (game !== this.game || this.stopped) return;
    const progress = $("analysis-progress");
    if (answer.state === "done") {
      progress.hidden = true;
      this.render(answer.result);
      return;
    }
    if (answer.state === "failed") {
      progress.hidden = true;
      this.status(answer.reason || "The analysis failed.");
      this.offer(game);
      return;
    }
    progress.hidden = false;
    if (answer.total) {
      progress.max = answer.total;
      progress.value = answer.done;
      progress.setAttribute("aria-valuetext", `${answer.done} of ${answer.total} moves judged`);
      this.status(`Analysing game ${game}: ${answer.done} of ${answer.total} moves judged…`);
    } else {
      progress.removeAttribute("value"); // not known yet: indeterminate
      progress.removeAttribute("aria-valuetext");
      this.status(`Analysis of game ${game} queued…`);
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      try {
        this.follow(await api.analysis(this.id, game), game);
      } catch (error) {
        if (game === this.game && !this.stopped) {
          $("analysis-progress").hidden = true;
          this.status(`The analysis stopped: ${error.detail ?? error.message}`);
          this.offer(game);
        }
      }
    }, POLL_MS);
  }

  clear() {
    clearTimeout(this.timer);
    $("analysis-progress").hidden = true;
    $("analysis-ask").hidden = true;
    $("analysis-results").hidden = true;
    $("analysis-graph").replaceChildren();
    $("analysis-move").textContent = "";
    $("replay-timeline").removeAttribute("list");
    $("analysis-marks").replaceChildren();
    for (const verdict of document.querySelectorAll("#replay-moves .verdict")) verdict.remove();
    for (const button of document.querySelectorAll("#replay-moves button[data-label]")) delete button.dataset.label;
  }

  judged() {
    return (this.result?.moves ?? []).filter((move) => move.kind === "judged");
  }

  render(result) {
    this.result = result;
    const judged = this.judged();
    const labelled = judged.filter((move) => move.label);
    this.status(
      `Game ${result.game} analysed at ${result.playouts} playouts a move: ${judged.length} moves judged, ` +
        `${labelled.length} labelled.`,
    );
    $("analysis-results").hidden = false;
    this.drawGraph(judged);
    this.fillSeats(result.seats);
    this.fillMoves(judged);
    this.markReplay(labelled);
    this.note();
  }

  /** Each seat's expected place after each of its judged moves: one line a seat. */
  drawGraph(judged) {
    const places = this.result.players;
    const first = judged.length ? judged[0].seq : 0;
    const last = judged.length ? judged[judged.length - 1].seq : 1;
    const x = (seq) => PAD + ((seq - first) / Math.max(1, last - first)) * (WIDTH - 2 * PAD);
    const y = (value) => PAD / 2 + ((value - 1) / Math.max(1, places - 1)) * (HEIGHT - PAD);
    const graph = svg("svg", {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: "img",
      "aria-labelledby": "analysis-graph-title",
      class: "analysis-svg",
    });
    const title = svg("title", { id: "analysis-graph-title" });
    title.textContent =
      `Expected place of each seat after each of its judged moves in game ${this.result.game} ` +
      "(1 is best, at the top); the table below gives every figure.";
    graph.append(title);
    for (let at = 1; at <= places; at += 1) {
      graph.append(svg("line", { x1: PAD, x2: WIDTH - PAD / 2, y1: y(at), y2: y(at), class: "analysis-rule" }));
      const label = svg("text", { x: 4, y: y(at) + 4, class: "analysis-axis" });
      label.textContent = String(at);
      graph.append(label);
    }
    for (let seat = 0; seat < this.result.players; seat += 1) {
      const mine = judged.filter((move) => move.seat === seat);
      if (!mine.length) continue;
      const points = mine.map((move) => `${x(move.seq).toFixed(1)},${y(move.taken_place).toFixed(1)}`).join(" ");
      graph.append(svg("polyline", { points, class: `analysis-line seat-line-${seat % 5}` }));
      for (const move of mine.filter((item) => item.label)) {
        const size = 3 + 1.5 * LABELS.indexOf(move.label);
        graph.append(
          svg("circle", { cx: x(move.seq), cy: y(move.taken_place), r: size, class: `analysis-mark mark-${move.label}` }),
        );
      }
    }
    $("analysis-graph").replaceChildren(graph);
    $("analysis-legend").replaceChildren(
      ...Array.from({ length: this.result.players }, (_, seat) => {
        const item = document.createElement("li");
        const swatch = document.createElement("span");
        swatch.className = `analysis-swatch seat-swatch-${seat % 5}`;
        swatch.setAttribute("aria-hidden", "true");
        item.append(swatch, this.seatName(seat));
        return item;
      }),
      ...LABELS.map((label) => {
        const item = document.createElement("li");
        const swatch = document.createElement("span");
        swatch.className = `analysis-swatch mark-swatch mark-${label}`;
        swatch.setAttribute("aria-hidden", "true");
        item.append(swatch, `a ${label}`);
        return item;
      }),
    );
  }

  fillSeats(seats) {
    $("analysis-seats-body").replaceChildren(
      ...seats.map((row) => {
        const line = document.createElement("tr");
        line.append(
          cell("th", this.seatName(row.seat)),
          cell("td", String(row.judged)),
          cell("td", place(row.loss)),
          ...LABELS.map((label) => cell("td", String(row[label]))),
        );
        line.firstChild.setAttribute("scope", "row");
        return line;
      }),
    );
  }

  /** The graph as a table: every judged move, a button to its step. */
  fillMoves(judged) {
    $("analysis-moves-body").replaceChildren(
      ...judged.map((move) => {
        const line = document.createElement("tr");
        line.dataset.seq = String(move.seq);
        if (move.label) line.dataset.label = move.label;
        const go = document.createElement("button");
        go.type = "button";
        go.textContent = `Step ${move.seq + 1}: seat ${move.seat}`;
        go.addEventListener("click", () => this.go(move.seq));
        line.append(
          cell("th", go),
          cell("td", `${actionText(move.taken)}: ${place(move.taken_place)}`),
          cell("td", move.best === move.taken ? "the same" : `${actionText(move.best)}: ${place(move.best_place)}`),
          cell("td", move.label ?? "—"),
        );
        line.firstChild.setAttribute("scope", "row");
        return line;
      }),
    );
  }

  /** Each labelled move marked in the move list (its words) and on the timeline (a tick). */
  markReplay(labelled) {
    const bySeq = new Map(labelled.map((move) => [move.seq, move]));
    for (const button of document.querySelectorAll("#replay-moves button.move")) {
      const move = bySeq.get(Number(button.dataset.seq));
      if (!move) continue;
      button.dataset.label = move.label;
      const verdict = document.createElement("span");
      verdict.className = `verdict mark-${move.label}`;
      verdict.textContent = ` — ${move.label}; the expert: ${actionText(move.best)}`;
      button.append(verdict);
    }
    $("analysis-marks").replaceChildren(
      ...labelled.map((move) => {
        const option = document.createElement("option");
        option.value = String(move.seq);
        option.label = move.label;
        return option;
      }),
    );
    if (labelled.length) $("replay-timeline").setAttribute("list", "analysis-marks");
  }

  /** The expert's choice beside the move shown (the last move at or before the step). */
  note() {
    const box = $("analysis-move");
    const moves = this.result?.moves ?? [];
    let move = null;
    for (const item of moves) if (item.seq <= this.seq) move = item;
    if (!move) {
      box.textContent = "";
      return;
    }
    const who = this.seatName(move.seat);
    const taken = actionText(move.taken);
    if (move.kind === "forced") {
      box.textContent = `${who}: ${taken}, the only legal move.`;
    } else if (move.kind !== "judged") {
      box.textContent = `${who}: ${taken} (not judged: the expert could not search it).`;
    } else if (move.best === move.taken) {
      box.textContent = `${who} chose ${taken}: the expert's choice too (expected place ${place(move.taken_place)}).`;
    } else {
      const verdict = move.label ? `: ${move.label}` : "";
      box.textContent =
        `${who} chose ${taken} (expected place ${place(move.taken_place)}); ` +
        `the expert: ${actionText(move.best)} (${place(move.best_place)})${verdict}.`;
    }
    box.dataset.label = move.label ?? "";
  }
}
