// Playing a seat from the keyboard (docs/RULES.md §4): the hand is a fanned row of
// toggle buttons, sorted by strength, that is one stop of the tab order (a
// roving tabindex: arrows move inside it, Space or Enter selects), so Tab
// reaches Play and Pass at once. P passes on your turn; Play and Pass are
// aria-disabled when it is not. Give, discard and bomb appear when they are
// what the rules wait for. Refusals show the rules' reason code in an alert.

import { announce } from "./announce.js";
import { ApiError, api, requestId } from "./api.js";
import {
  RANKS,
  cardsInSymbols,
  cardsInWords,
  fillCard,
  normalise,
  rankName,
  sameCards,
  sortByStrength,
} from "./cards.js";
import { $, typing } from "./dom.js";
import { keepReceipts } from "./receipts.js";
import { plural, seatWords } from "./words.js";

const MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
const MAX_MELDS = 40; // the legal melds offered as buttons (a hand of jokers can make hundreds)
const CARD_ACTIONS = new Set(["play", "give", "discard"]);

export class SeatPlay {
  /** `refresh()` asks the watcher to fetch the seat's view again. */
  constructor(matchId, token, { names, refresh }) {
    this.id = matchId;
    this.token = token;
    this.names = names;
    this.refresh = refresh;
    this.view = null;
    this.legal = [];
    this.version = -1;
    this.announcedTurn = null; // the version whose turn was last announced
    this.busy = false;
    this.selectedRanks = new Set();
    this.onKey = (event) => this.key(event);
    this.handlers = [
      ["act-play", () => this.play()],
      ["act-pass", () => this.act({ action: "pass" })],
      ["act-give", () => this.giveOrDiscard("give")],
      ["act-discard", () => this.giveOrDiscard("discard")],
      ["act-bomb", () => this.bomb()],
    ].map(([id, handler]) => {
      const button = $(id);
      const listener = () => {
        if (button.getAttribute("aria-disabled") !== "true") handler();
        else if (!this.myTurn) this.notYourTurn();
      };
      button.addEventListener("click", listener);
      return [button, listener];
    });
    document.addEventListener("keydown", this.onKey);
    this.onHandKey = (event) => this.handKey(event);
    $("hand").addEventListener("keydown", this.onHandKey);
    $("hand").replaceChildren();
    this.showRefusal(null);
    $("turn-note").textContent = "";
    $("play").hidden = false;
  }

  stop() {
    document.removeEventListener("keydown", this.onKey);
    $("hand").removeEventListener("keydown", this.onHandKey);
    for (const [button, listener] of this.handlers) button.removeEventListener("click", listener);
    $("play").hidden = true;
    $("hand").replaceChildren();
  }

  /** A new seat view from GET /matches/{id}/seat: {view, legal, version}. */
  update({ view, legal, version }) {
    this.view = view;
    this.legal = legal ?? [];
    this.version = version ?? this.version;
    // weakest first in the order in force: a revolution re-sorts the hand
    const reversed = Boolean(view.revolution) !== (view.eleven_back === "strength");
    this.renderHand(sortByStrength(view.hand ?? [], reversed));
    this.markLegal();
    this.renderMelds();
    this.preselectForced();
    this.renderControls();
    this.renderPrompt();
    if (this.myTurn) $("turn-note").textContent = ""; // the turn came: the note is old news
  }

  /** On the seat's turn each card that some legal play, give or discard uses is marked. */
  markLegal() {
    const usable = new Set();
    if (this.myTurn) {
      for (const action of this.legal) {
        if (CARD_ACTIONS.has(action.action)) for (const code of action.cards ?? []) usable.add(normalise(code));
      }
    }
    const hand = $("hand");
    hand.dataset.turn = this.myTurn ? "yes" : "no";
    for (const button of hand.children) {
      if (this.myTurn) button.dataset.legal = String(usable.has(button.dataset.code));
      else delete button.dataset.legal;
    }
  }

  /** The legal plays as buttons: one selects exactly its cards, Play then plays them. */
  renderMelds() {
    const box = $("legal-melds");
    const seen = new Set();
    const plays = [];
    if (this.myTurn) {
      for (const action of this.legal) {
        if (action.action !== "play") continue;
        const key = [...action.cards].map(normalise).sort().join(" ");
        if (seen.has(key)) continue; // a joker's other readings: the select chooses among them
        seen.add(key);
        plays.push(action);
      }
    }
    const key = `${this.version}|${[...seen].join("|")}`;
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    const list = $("legal-list");
    const shown = plays.slice(0, MAX_MELDS);
    list.replaceChildren(
      ...shown.map((play) => {
        const item = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        button.className = "meld";
        button.dataset.cards = play.cards.map(normalise).join(" ");
        // the symbols for the eye, the words for a screen reader (the name keeps the visible text)
        const words = document.createElement("span");
        words.className = "visually-hidden";
        words.textContent = ` (${cardsInWords(play.cards.map(normalise))})`;
        button.append(cardsInSymbols(play.cards.map(normalise)), words);
        button.addEventListener("click", () => this.selectOnly(play.cards.map(normalise)));
        item.append(button);
        return item;
      }),
    );
    const more = plays.length - shown.length;
    $("legal-more").textContent = more > 0 ? `and ${more} more ${plural(more, "play")}` : "";
    box.hidden = !this.myTurn || (this.view.waiting_for && this.view.waiting_for !== "play" && !plays.length);
    $("legal-title").textContent = plays.length
      ? "You can play (choose one to select its cards):"
      : "Nothing you hold can be played now.";
  }

  /** A give or discard the rules force (the strongest cards in the exchange): those cards
   * selected once per position and said; a free choice is said too. */
  preselectForced() {
    const note = $("forced-note");
    const moves = this.myTurn ? this.legal.filter((action) => action.action === "give" || action.action === "discard") : [];
    if (!moves.length) {
      note.textContent = "";
      return;
    }
    const sets = new Set(moves.map((action) => [...action.cards].map(normalise).sort().join(" ")));
    const verb = moves[0].action === "give" ? "give" : "discard";
    if (sets.size === 1) {
      const cards = moves[0].cards.map(normalise);
      note.textContent = `The rules choose the cards you ${verb}: ${cardsInWords(cards)}. They are selected; press ${verb === "give" ? "Give" : "Discard"}.`;
      if (this.preselected !== this.version) {
        this.preselected = this.version;
        this.selectOnly(cards);
      }
    } else {
      const count = moves[0].cards.length;
      note.textContent = `Choose ${count} ${plural(count, "card")} to ${verb} among the marked ones.`;
    }
  }

  /** Select exactly `codes` in the hand (duplicates, like two jokers, each once). */
  selectOnly(codes) {
    const wanted = [...codes];
    for (const button of $("hand").children) {
      const index = wanted.indexOf(button.dataset.code);
      if (index >= 0) wanted.splice(index, 1);
      button.setAttribute("aria-pressed", String(index >= 0));
    }
    this.selectionChanged();
  }

  get myTurn() {
    const view = this.view;
    return Boolean(view && view.phase === "in_game" && view.turn === view.seat);
  }

  // -- the hand ----------------------------------------------------------

  /** Keep the buttons of cards still held (and their focus and selection). */
  renderHand(codes) {
    const hand = $("hand");
    const wanted = [];
    const seen = {};
    for (const code of codes) {
      const normal = normalise(code);
      seen[normal] = (seen[normal] ?? 0) + 1;
      wanted.push({ code: normal, key: `${normal}#${seen[normal]}` });
    }
    const existing = new Map([...hand.children].map((button) => [button.dataset.key, button]));
    const buttons = wanted.map(({ code, key }) => {
      let button = existing.get(key);
      if (!button) {
        button = document.createElement("button");
        button.type = "button";
        fillCard(button, code);
        button.dataset.key = key;
        button.setAttribute("aria-pressed", "false");
        button.tabIndex = -1;
        button.addEventListener("click", () => this.toggle(button));
        button.addEventListener("focus", () => this.rove(button));
      }
      existing.delete(key);
      return button;
    });
    const lostFocus = [...existing.values()].some((button) => button === document.activeElement);
    for (const button of existing.values()) button.remove();
    // re-append in hand order; moving a node keeps it, and keeps its focus
    buttons.forEach((button, index) => {
      if (hand.children[index] !== button) hand.insertBefore(button, hand.children[index] ?? null);
    });
    hand.style.setProperty("--cards", String(buttons.length));
    buttons.forEach((button, index) => button.style.setProperty("--i", String(index)));
    // one card of the hand is in the tab order: the last focused, else the first
    if (!buttons.some((button) => button.tabIndex === 0) && buttons.length) buttons[0].tabIndex = 0;
    if (lostFocus) (hand.querySelector('button[tabindex="0"]') ?? $("act-play")).focus();
    $("hand-title").textContent = `Your hand (${codes.length} ${plural(codes.length, "card")})`;
    this.selectionChanged();
  }

  /** The roving tabindex: `button` becomes the hand's one tab stop. */
  rove(button) {
    for (const other of $("hand").children) other.tabIndex = other === button ? 0 : -1;
  }

  handKey(event) {
    const buttons = [...$("hand").children];
    const index = buttons.indexOf(document.activeElement);
    if (index < 0 || event.ctrlKey || event.metaKey || event.altKey) return;
    let target = null;
    if (event.key in MOVES) target = Math.max(0, Math.min(buttons.length - 1, index + MOVES[event.key]));
    else if (event.key === "Home") target = 0;
    else if (event.key === "End") target = buttons.length - 1;
    if (target === null) return;
    event.preventDefault();
    buttons[target].focus();
  }

  toggle(button) {
    const pressed = button.getAttribute("aria-pressed") === "true";
    button.setAttribute("aria-pressed", String(!pressed));
    this.selectionChanged();
  }

  selected() {
    return [...$("hand").querySelectorAll('button[aria-pressed="true"]')].map(
      (button) => button.dataset.code,
    );
  }

  clearSelection() {
    for (const button of $("hand").querySelectorAll('button[aria-pressed="true"]')) {
      button.setAttribute("aria-pressed", "false");
    }
    this.selectedRanks.clear();
    this.selectionChanged();
  }

  /** Legal plays made of exactly the selected cards (several when jokers may stand for different cards). */
  matchingPlays() {
    const cards = this.selected();
    if (!cards.length) return [];
    return this.legal.filter((action) => action.action === "play" && sameCards(action.cards, cards));
  }

  selectionChanged() {
    const plays = this.matchingPlays();
    const choice = $("joker-choice");
    const select = $("joker-select");
    if (plays.length > 1) {
      // the same cards read in several ways: let the player say how
      const key = plays.map((play) => (play.jokers_as ?? []).join(" ")).join("|");
      if (select.dataset.key !== key) {
        select.dataset.key = key;
        select.replaceChildren(
          ...plays.map((play, index) => {
            const option = document.createElement("option");
            option.value = String(index);
            const readings = play.jokers_as ?? [];
            option.textContent = readings.length
              ? readings.map((code) => cardsInWords([code])).join(", ")
              : "the usual reading";
            return option;
          }),
        );
      }
      choice.hidden = false;
    } else {
      choice.hidden = true;
      select.dataset.key = "";
    }
    const count = this.selected().length;
    $("act-play").textContent = count ? `Play ${count} ${plural(count, "card")}` : "Play selected";
  }

  // -- controls ----------------------------------------------------------

  renderControls() {
    const waiting = this.myTurn ? this.view.waiting_for : null;
    const kinds = new Set(this.legal.map((action) => action.action));
    const bombBox = $("bomb-ranks");
    let hiding = !kinds.has("bomb") && bombBox.contains(document.activeElement);
    const setEnabled = (id, on, shown = true) => {
      const button = $(id);
      if (!shown && button === document.activeElement) hiding = true;
      button.hidden = !shown;
      // aria-disabled, not disabled: the button keeps its place in the tab order and its focus
      button.setAttribute("aria-disabled", String(!on));
    };
    // Off the seat's turn Play and Pass are disabled. On it they stay pressable:
    // when a play is not allowed the service's refusal says why (cannot_pass,
    // suit_locked…), which a silently disabled button would not.
    const step = [
      "exchange", "seven_pass", "ten_discard", "queen_bomber", "salvage", "kings_march", "zombie",
      "king_pastor",
    ].includes(waiting);
    setEnabled("act-play", this.myTurn, !step);
    setEnabled("act-pass", this.myTurn, !step);
    const giveCount = this.legal.find((action) => action.action === "give")?.cards?.length ?? 0;
    setEnabled("act-give", kinds.has("give"), kinds.has("give"));
    $("act-give").textContent = `Give ${giveCount} selected ${plural(giveCount, "card")}`;
    const discardCount = this.legal.find((action) => action.action === "discard")?.cards?.length ?? 0;
    setEnabled("act-discard", kinds.has("discard"), kinds.has("discard"));
    $("act-discard").textContent = `Discard ${discardCount} selected ${plural(discardCount, "card")}`;
    const bombCount = this.legal.find((action) => action.action === "bomb")?.ranks?.length ?? 0;
    setEnabled("act-bomb", kinds.has("bomb"), kinds.has("bomb"));
    $("act-bomb").textContent = `Bomb ${bombCount} ${plural(bombCount, "rank")}`;
    this.renderBombRanks(kinds.has("bomb"));
    this.renderPicks(kinds.has("pick"));
    // the focused control just went away (Give, once given): keep the focus
    // in the play area rather than let it fall to the start of the page
    if (hiding) ($("act-play").hidden ? $("hand-title") : $("act-play")).focus();
  }

  /** Salvage, king's march, zombie (docs/RULES.md §5): one button per legal pick. */
  renderPicks(shown) {
    const box = $("pile-picks");
    box.hidden = !shown;
    const picks = shown ? this.legal.filter((action) => action.action === "pick").slice(0, 60) : [];
    const key = picks.map((pick) => pick.cards.join(" ")).join("|");
    if (box.dataset.key === key) return;
    box.dataset.key = key;
    box.replaceChildren(
      ...picks.map((pick) => {
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = pick.cards.length ? `Take ${cardsInWords(pick.cards)}` : "Take nothing";
        button.addEventListener("click", () => this.act({ action: "pick", cards: pick.cards }));
        return button;
      }),
    );
  }

  renderBombRanks(shown) {
    const box = $("bomb-ranks");
    box.hidden = !shown;
    if (!shown) {
      box.replaceChildren();
      this.selectedRanks.clear();
      return;
    }
    if (box.childElementCount) return;
    for (const rank of RANKS) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "rank";
      button.dataset.rank = rank;
      button.textContent = rank === "T" ? "10" : rank;
      button.setAttribute("aria-label", rankName(rank) === rank ? `${rank}s` : `${rankName(rank)}s`);
      button.setAttribute("aria-pressed", "false");
      button.addEventListener("click", () => {
        const on = !this.selectedRanks.has(rank);
        if (on) this.selectedRanks.add(rank);
        else this.selectedRanks.delete(rank);
        button.setAttribute("aria-pressed", String(on));
      });
      box.append(button);
    }
  }

  renderPrompt() {
    const prompt = $("seat-prompt");
    const view = this.view;
    prompt.dataset.turn = this.myTurn ? "yes" : "no";
    prompt.dataset.version = String(this.version);
    prompt.dataset.phase = view.phase;
    let text;
    if (view.phase === "match_over") {
      const place = view.places?.[String(view.seat)];
      text = place ? `The match is over. You finished ${ordinal(place)}.` : "The match is over.";
    } else if (this.myTurn) {
      text = `Your turn: ${this.turnTask()}.`;
    } else if (view.places?.[String(view.seat)]) {
      text = `You finished ${ordinal(view.places[String(view.seat)])}; waiting for the game to end.`;
    } else if (view.turn !== null && view.turn !== undefined) {
      text = `Waiting for ${seatWords(view.turn, this.names)}.`;
    } else {
      text = "Waiting for the game to start.";
    }
    prompt.textContent = `You play ${seatWords(view.seat, this.names)}. ${text}`;
    // say it once per new position, not on every redraw
    if (this.myTurn && this.announcedTurn !== this.version) {
      this.announcedTurn = this.version;
      bringIntoView();
      announce(`Your turn: ${this.turnTask()}.`, { logged: false });
    }
    if (view.phase === "match_over" && !this.announcedEnd) {
      this.announcedEnd = true;
      announce(text, { logged: false });
    }
  }

  turnTask() {
    const waiting = this.view.waiting_for;
    const count = this.view.step_count ?? 0;
    const legal = this.legal;
    if (waiting === "exchange") {
      const give = legal.find((action) => action.action === "give");
      return `give ${give?.cards?.length ?? ""} ${plural(give?.cards?.length ?? 2, "card")} in the card exchange`;
    }
    if (waiting === "seven_pass") return `give ${count} ${plural(count, "card")} to the next player`;
    if (waiting === "ten_discard") return `discard ${count} ${plural(count, "card")}`;
    if (waiting === "queen_bomber") return `name ${count} ${plural(count, "rank")} to bomb`;
    if (waiting === "salvage" || waiting === "kings_march") {
      return `take up to ${count} ${plural(count, "card")} from the discard pile, or nothing`;
    }
    if (waiting === "zombie") return "take a card from the discard pile for the next player, or nothing";
    if (waiting === "king_pastor") return "choose 1 card to pass to the next player";
    if (waiting === "eight_cut_return") return "answer the eight-cut with 8s of its size, or pass";
    if (waiting === "four_stop") return "answer the eight with a pair of 4s, or pass";
    const field = this.view.field;
    if (!field?.length) return "you lead; play any cards";
    // the prompt says what to beat, so the hand and the prompt are enough to play
    const owner = seatWords(this.view.field_seat, this.names);
    const beat = `${cardsInWords(field, this.view.field_jokers_as)} from ${owner}`;
    if (!legal.some((action) => action.action === "play")) return `nothing you hold beats ${beat}: pass with P`;
    return `beat ${beat}, or pass`;
  }

  // -- actions -----------------------------------------------------------

  key(event) {
    if (event.key !== "p" && event.key !== "P") return;
    if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
    event.preventDefault();
    if (!this.myTurn) {
      this.notYourTurn(); // P off the seat's turn passes nothing, and says so
      return;
    }
    this.act({ action: "pass" });
  }

  /** Play, Pass or P pressed off the seat's turn: say whose turn it is (role=status). */
  notYourTurn() {
    const turn = this.view?.turn;
    const whose = turn === null || turn === undefined ? "nobody is to act now" : `waiting for ${seatWords(turn, this.names)}`;
    const note = $("turn-note");
    note.textContent = `Not your turn: ${whose}.`;
    note.dataset.shown = String(Date.now()); // the same words again are still news
  }

  play() {
    const cards = this.selected();
    if (!cards.length) {
      this.showRefusal({ code: "no_cards", message: "Select the cards to play first (Space or Enter on a card)." });
      return;
    }
    const plays = this.matchingPlays();
    let chosen = plays[0];
    if (plays.length > 1) chosen = plays[Number($("joker-select").value) || 0];
    // no legal play of these cards: send them anyway, so the rules say why not
    this.act(chosen ? { ...chosen } : { action: "play", cards, jokers_as: [] });
  }

  giveOrDiscard(action) {
    const cards = this.selected();
    this.act({ action, cards });
  }

  bomb() {
    this.act({ action: "bomb", ranks: RANKS.split("").filter((rank) => this.selectedRanks.has(rank)) });
  }

  async act(action) {
    if (this.busy) return;
    this.busy = true;
    const body = {
      request_id: requestId(),
      action: action.action,
      cards: action.cards ?? [],
      jokers_as: action.jokers_as ?? [],
      ranks: action.ranks ?? [],
    };
    this.showRefusal(null); // an old refusal must not linger next to a new action
    try {
      const answer = await api.act(this.id, this.token, body);
      this.keepReceipt(answer);
      this.clearSelection();
    } catch (error) {
      if (error instanceof ApiError) {
        this.keepReceipt(error); // a signed refusal is kept as well
        this.showRefusal({ code: error.code, message: error.detail });
      } else this.showRefusal({ code: "error", message: String(error) });
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  /** Signed receipts, when the service gives them: the results offer them for download. */
  keepReceipt(answer) {
    keepReceipts(this.id, [answer?.receipt]);
  }

  showRefusal(refusal) {
    const box = $("refusal");
    if (!refusal) {
      box.textContent = "";
      delete box.dataset.code;
      return;
    }
    box.dataset.code = refusal.code;
    box.textContent = `Refused (${refusal.code}): ${refusal.message}`;
  }
}

/** The turn brings the hand and Play/Pass into view (all of the play area when it fits). */
const MARGIN = 8; // px left around the play area when it is scrolled into view

export function bringIntoView() {
  const top = $("seat-prompt").getBoundingClientRect().top;
  const bottom = $("play").querySelector(".actions").getBoundingClientRect().bottom;
  if (bottom - top > window.innerHeight) {
    $("play").querySelector(".actions").scrollIntoView({ block: "end" });
  } else if (top < 0) window.scrollBy(0, Math.floor(top) - MARGIN);
  else if (bottom > window.innerHeight) window.scrollBy(0, Math.ceil(bottom - window.innerHeight) + MARGIN);
}

function ordinal(place) {
  return ["", "1st", "2nd", "3rd", "4th", "5th"][place] ?? `${place}th`;
}
