// Draws one View (service/rules/views.py View.to_dict) on the table: seats
// around the felt (the viewer's own at the bottom), the field large in the
// middle, what is in force now, and the rules in play with a tooltip each.
// Used by watching, replaying and playing alike.

import { cardElement, cardsInWords, suitName, suitSymbol } from "./cards.js";
import { $ } from "./dom.js";
import { activeRules, ruleInfo } from "./rules.js";
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

// where each seat sits, counted from the viewer's seat in turn order
const POSITIONS = {
  2: ["bottom", "top"],
  3: ["bottom", "left", "right"],
  4: ["bottom", "left", "top", "right"],
  5: ["bottom", "left", "top-left", "top-right", "right"],
};

const EFFECTS = {
  CardsPlayed: "play",
  FieldFlushed: "flush",
  RevolutionChanged: "revolution",
  SuitLocked: "lock",
  NumberLocked: "lock",
  ColorLocked: "lock",
  TwoBackStarted: "revolution",
  PlayerFinished: "finish",
};

export function effectOf(event) {
  return EFFECTS[event.type] ?? null;
}

/** A short animation on the felt (CSS; none with prefers-reduced-motion). */
export function flash(kind) {
  const felt = $("felt");
  if (!felt) return;
  felt.classList.remove("fx");
  void felt.offsetWidth; // restart the animation
  felt.dataset.fx = kind;
  felt.classList.add("fx");
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
  $("fact-game").textContent = `${view.game_number || 1} of ${view.games_per_set}`;
  $("fact-phase").textContent = PHASES[view.phase] ?? view.phase;
  $("fact-turn").textContent =
    view.turn === null || view.turn === undefined
      ? "nobody"
      : `${seat(view.turn)}${view.waiting_for && view.waiting_for !== "play" ? `, ${WAITING[view.waiting_for] ?? view.waiting_for}` : ""}`;
  renderStates(view);
  renderField(view, seat);
  renderSeats(view, names);
  renderRevealed(view);
  renderRules(view.options ?? {});
}

/** What is in force now, only what is: revolution, locks, eleven-back… Each chip
 *  reads in English on screen, its Japanese name beside it (lang="ja"), and is spoken
 *  as a sentence. */
function renderStates(view) {
  const items = [];
  const add = (key, english, japanese, spoken) => {
    const item = document.createElement("li");
    item.dataset.state = key;
    const eye = document.createElement("span");
    eye.setAttribute("aria-hidden", "true");
    eye.append(english);
    if (japanese) {
      const jp = document.createElement("span");
      jp.lang = "ja";
      jp.className = "jp-secondary";
      jp.textContent = japanese;
      eye.append(" ", jp);
    }
    const ear = document.createElement("span");
    ear.className = "visually-hidden";
    ear.textContent = spoken;
    item.append(eye, ear);
    items.push(item);
  };
  if (view.revolution) add("revolution", "Revolution", "革命", "Revolution: strength reversed");
  if (view.eleven_back) {
    const reversed = view.eleven_back === "order" ? "turn order" : "strength";
    add("eleven-back", "Eleven-back", "11バック", `Eleven-back: ${reversed} reversed`);
  }
  if (view.two_back) add("two-back", "Two-back", "2バック", "Two-back: strength reversed until the flush");
  if (view.direction < 0) add("direction", "↺ Order reversed", "", "Turn order reversed");
  const pile = view.discard_pile ?? [];
  if (pile.length) {
    // marked: taken by a pick this game, never taken again (docs/RULES.md §5.6 #21)
    const marked = view.discard_pile_marked ?? [];
    const markedWords = marked.length ? `; marked, never taken again: ${cardsInWords(marked)}` : "";
    add(
      "discard-pile",
      `Discard pile ${pile.length}${marked.length ? ` (${marked.length} marked)` : ""}`,
      "捨て札",
      `Discard pile: ${pile.length} ${pile.length === 1 ? "card" : "cards"}, ${cardsInWords(pile)}${markedWords}`,
    );
  }
  const locked = view.suit_lock ?? [];
  const suits = locked.map(suitSymbol).join("");
  if (locked.length && view.partial_lock) {
    add("partial-lock", `Partial lock ${suits}`, "片縛り", `Partial lock: every play holds ${locked.map(suitName).join(" and ")}`);
  } else if (locked.length) {
    add("suit-lock", `Suit lock ${suits}`, "縛り", `Suit lock: ${locked.map(suitName).join(" and ")}`);
  }
  if (view.color_lock) {
    const colour = view.color_lock === "red" ? "♥♦" : "♠♣";
    add("color-lock", `Colour lock ${colour}`, "色縛り", `Colour lock: ${view.color_lock} cards only`);
  }
  if (view.number_lock) add("number-lock", "Number lock", "数字しばり", "Number lock: one rank stronger each play");
  if (view.omen) add("omen", "Omen", "オーメン", "Omen: no more revolutions or special effects");
  $("states").replaceChildren(...items);
  $("states").hidden = items.length === 0;
}

let shownRules = "";

function renderRules(options) {
  const names = activeRules(options);
  const key = names.join(" ");
  if (key === shownRules) return;
  shownRules = key;
  $("rules-active").replaceChildren(
    ...names.map((name) => {
      const [japanese, english, meaning] = ruleInfo(name);
      const item = document.createElement("li");
      item.dataset.rule = name;
      const chip = document.createElement("button");
      chip.type = "button";
      chip.className = "rule-chip";
      const tip = document.createElement("span");
      tip.id = `tip-${name}`;
      tip.setAttribute("role", "tooltip");
      tip.className = "tooltip";
      tip.textContent = `${english} (${japanese}): ${meaning}`;
      chip.setAttribute("aria-describedby", tip.id);
      chip.setAttribute("aria-expanded", "false");
      const jp = document.createElement("span");
      jp.lang = "ja";
      jp.className = "jp-secondary";
      jp.textContent = japanese;
      chip.append(`${english} `, jp);
      // a tap or Enter pins the tooltip open (hover and focus show it too)
      chip.addEventListener("click", () => {
        chip.setAttribute("aria-expanded", String(chip.getAttribute("aria-expanded") !== "true"));
      });
      chip.addEventListener("keydown", (event) => {
        if (event.key === "Escape") chip.setAttribute("aria-expanded", "false");
      });
      item.append(chip, tip);
      return item;
    }),
  );
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
  const key = view.field.join(" ");
  if ($("field").dataset.cards !== key) {
    cards.replaceChildren(...view.field.map((code) => cardElement(code)));
  }
  cards.setAttribute("aria-label", "Cards on the field");
  $("field").dataset.cards = key;
}

function renderSeats(view, names) {
  const list = $("seats");
  const items = [];
  const places = view.places ?? {};
  const players = view.players;
  const me = view.seat ?? 0;
  list.dataset.players = String(players);
  // open hands (a replay, the end) need room: the felt lays the seats out in rows
  $("felt").classList.toggle("open-hands", Boolean(view.hands));
  for (let number = 0; number < players; number += 1) {
    const item = document.createElement("li");
    item.className = "seat";
    item.dataset.seat = number;
    item.dataset.pos = (POSITIONS[players] ?? [])[(number - me + players) % players] ?? "top";
    const count = view.hand_sizes?.[number] ?? 0;
    item.dataset.count = count;
    const isTurn = view.turn === number;
    item.classList.toggle("turn", isTurn);
    item.classList.toggle("mine", view.seat === number);
    if (isTurn) item.setAttribute("aria-current", "true");

    const title = document.createElement("p");
    title.className = "seat-name";
    title.textContent = seatWords(number, names) + (view.seat === number ? " (you)" : "");
    const backs = document.createElement("span");
    backs.className = "backs";
    backs.setAttribute("aria-hidden", "true");
    backs.style.setProperty("--count", String(Math.min(count, 12)));
    const facts = document.createElement("p");
    facts.className = "seat-facts";
    const parts = [`${count} ${plural(count, "card")}`];
    if (isTurn) parts.push("their turn");
    if (view.passed?.includes(number)) parts.push("passed");
    const place = places[String(number)];
    if (place) {
      parts.push(`finished ${placeWords(place, players)}`);
      item.dataset.place = place;
    }
    if (view.forbidden?.includes(number)) parts.push("forbidden finish");
    if (view.fallen?.includes(number)) parts.push("fell (miyako-ochi or kyō-ochi)");
    if (!place && view.active && !view.active.includes(number) && view.phase === "in_game") {
      parts.push("out");
    }
    facts.textContent = parts.join(" · ");
    item.append(title);
    if (count > 0) item.append(backs);
    item.append(facts);

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
  // ten-discarded and bombed cards are face up the whole game (docs/RULES.md §5.6 #25)
  if (view.out_of_play?.length) parts.push(["Discarded (ten-discard, queen bomb)", view.out_of_play]);
  box.hidden = parts.length === 0;
  box.replaceChildren(
    ...parts.flatMap(([label, codes]) => {
      const term = document.createElement("h4");
      term.textContent = label;
      return [term, cardList(codes, label)];
    }),
  );
}
