// Draws one View (service/rules/views.py View.to_dict) on the table: the
// status, the field, and every seat with its count, turn, pass and place.
// Used by watching, replaying and playing alike.

import { cardElement, cardsInWords, suitName, suitSymbol } from "./cards.js";
import { $ } from "./dom.js";
import { placeWords, plural, seatWords } from "./words.js";

const PHASES = {
  before_deal: "Waiting for the deal",
  in_game: "Playing",
  game_over: "Game over",
  match_over: "Match over",
};

const WAITING = {
  play: "play or pass",
  exchange: "card exchange",
  seven_pass: "seven-pass give",
  ten_discard: "ten-discard",
  queen_bomber: "queen bomber",
  four_stop: "four-stop answer",
};

function setFact(id, text, on = false) {
  const element = $(id);
  element.textContent = text;
  element.classList.toggle("on", on);
}

function cardList(codes, label) {
  const list = document.createElement("ul");
  list.className = "cards";
  list.setAttribute("aria-label", label);
  for (const code of codes) list.append(cardElement(code));
  return list;
}

/** Fill the table with `view`; `names` are the seat names from the match. */
export function renderTable(view, names = []) {
  const seat = (number) => seatWords(number, names);
  $("table").dataset.phase = view.phase;

  setFact("fact-game", `${view.game_number || 1} of ${view.games_per_set}`);
  setFact("fact-phase", PHASES[view.phase] ?? view.phase);
  const turnText =
    view.turn === null || view.turn === undefined
      ? "nobody"
      : `${seat(view.turn)}${view.waiting_for && view.waiting_for !== "play" ? `, ${WAITING[view.waiting_for] ?? view.waiting_for}` : ""}`;
  setFact("fact-turn", turnText, view.turn !== null && view.turn !== undefined);
  setFact("fact-revolution", view.revolution ? "yes: strength reversed" : "no", view.revolution);
  setFact(
    "fact-eleven-back",
    view.eleven_back ? `on (${view.eleven_back === "order" ? "turn order" : "strength"} reversed)` : "off",
    Boolean(view.eleven_back),
  );
  setFact(
    "fact-direction",
    view.direction < 0 ? "reversed" : "normal",
    view.direction < 0,
  );
  const locked = view.suit_lock ?? [];
  const lockFact = $("fact-suit-lock");
  lockFact.classList.toggle("on", locked.length > 0);
  if (locked.length) {
    lockFact.replaceChildren();
    // symbols for the eye, words for the ear
    const symbols = document.createElement("span");
    symbols.setAttribute("aria-hidden", "true");
    symbols.className = "suit-symbols";
    symbols.textContent = locked.map(suitSymbol).join(" ");
    const words = document.createElement("span");
    words.className = "visually-hidden";
    words.textContent = locked.map(suitName).join(" and ");
    lockFact.append(symbols, words);
  } else {
    lockFact.textContent = "none";
  }
  setFact("fact-number-lock", view.number_lock ? "yes: one rank stronger each play" : "no", view.number_lock);
  setFact("fact-omen", view.omen ? "yes" : "no", view.omen);

  renderField(view, seat);
  renderSeats(view, names);
  renderRevealed(view);
}

function renderField(view, seat) {
  const owner = $("field-owner");
  const cards = $("field-cards");
  if (!view.field || view.field.length === 0) {
    owner.textContent = "Empty: the next player leads.";
    cards.replaceChildren();
    cards.setAttribute("aria-label", "No cards on the field");
    $("field").dataset.cards = "";
    return;
  }
  const kind = view.field_kind ? ` (${view.field_kind})` : "";
  owner.textContent = `Played by ${view.field_seat === null ? "nobody" : seat(view.field_seat)}${kind}: ${cardsInWords(view.field, view.field_jokers_as)}`;
  cards.replaceChildren(...view.field.map((code) => cardElement(code)));
  cards.setAttribute("aria-label", "Cards on the field");
  $("field").dataset.cards = view.field.join(" ");
}

function renderSeats(view, names) {
  const list = $("seats");
  const items = [];
  const places = view.places ?? {};
  for (let number = 0; number < view.players; number += 1) {
    const item = document.createElement("li");
    item.className = "seat";
    item.dataset.seat = number;
    const count = view.hand_sizes?.[number] ?? 0;
    item.dataset.count = count;
    const isTurn = view.turn === number;
    item.classList.toggle("turn", isTurn);
    item.classList.toggle("mine", view.seat === number);
    if (isTurn) item.setAttribute("aria-current", "true");

    const title = document.createElement("h5");
    title.textContent = seatWords(number, names) + (view.seat === number ? " (you)" : "");
    const facts = document.createElement("p");
    facts.className = "seat-facts";
    const parts = [`${count} ${plural(count, "card")}`];
    if (isTurn) parts.push("to play");
    if (view.passed?.includes(number)) parts.push("passed");
    const place = places[String(number)];
    if (place) {
      parts.push(`finished ${placeWords(place, view.players)}`);
      item.dataset.place = place;
    }
    if (view.forbidden?.includes(number)) parts.push("forbidden finish");
    if (view.fallen?.includes(number)) parts.push("fell (miyako-ochi)");
    if (!place && view.active && !view.active.includes(number) && view.phase === "in_game") {
      parts.push("out");
    }
    facts.textContent = parts.join(" · ");
    item.append(title, facts);

    const hand = view.hands?.[number];
    if (hand) {
      item.dataset.hand = hand.join(" ");
      item.append(cardList(hand, `${seatWords(number, names)}'s hand`));
    }
    items.push(item);
  }
  list.replaceChildren(...items);
}

function renderRevealed(view) {
  const box = $("revealed");
  const parts = [];
  if (view.blind?.length) parts.push(["Blind cards", view.blind]);
  if (view.unused?.length) parts.push(["Unused cards", view.unused]);
  if (view.out_of_play?.length) parts.push(["Out of play", view.out_of_play]);
  box.hidden = parts.length === 0;
  box.replaceChildren(
    ...parts.flatMap(([label, codes]) => {
      const term = document.createElement("h4");
      term.textContent = label;
      return [term, cardList(codes, label)];
    }),
  );
}
