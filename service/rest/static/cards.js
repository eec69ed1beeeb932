// Card codes ("3S", "TS" or "10S", "JK") into words a screen reader reads well
// and into small elements that show the rank and suit symbol.

const RANK_WORDS = { T: "10", J: "jack", Q: "queen", K: "king", A: "ace" };
const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const SUIT_ORDER = "SHDC";
export const RANKS = "3456789TJQKA2";

/** {rank, suit} of a code; rank "T" for ten, suit "" for a joker. */
export function parseCard(code) {
  const text = String(code).toUpperCase();
  if (text === "JK" || text === "JOKER") return { rank: "JK", suit: "" };
  const rank = text.startsWith("10") ? "T" : text[0];
  return { rank, suit: text[text.length - 1] };
}

export function rankName(rank) {
  const text = String(rank).toUpperCase();
  if (text === "JK") return "joker";
  return RANK_WORDS[text === "10" ? "T" : text] ?? text;
}

/** "3 of spades", "queen of hearts", "joker". */
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  if (rank === "JK") return "joker";
  return `${rankName(rank)} of ${SUIT_WORDS[suit] ?? suit}`;
}

/** Short visible label: "10♠", "Q♥", "Joker". */
export function cardLabel(code) {
  const { rank, suit } = parseCard(code);
  if (rank === "JK") return "Joker";
  return `${rank === "T" ? "10" : rank}${SUIT_SYMBOLS[suit] ?? suit}`;
}

export function suitName(letter) {
  return SUIT_WORDS[letter] ?? letter;
}

export function suitSymbol(letter) {
  return SUIT_SYMBOLS[letter] ?? letter;
}

/** Cards in words, with joker readings: "joker as 6 of diamonds, 7 of diamonds". */
export function cardsInWords(codes, jokersAs = []) {
  const readings = [...jokersAs];
  return codes
    .map((code) => {
      const name = cardName(code);
      return parseCard(code).rank === "JK" && readings.length
        ? `${name} as ${cardName(readings.shift())}`
        : name;
    })
    .join(", ");
}

/** Cards for the eye: "7♠ 7♥", "Joker(=3♦)". */
export function cardsInSymbols(codes, jokersAs = []) {
  const readings = [...jokersAs];
  return codes
    .map((code) => {
      const label = cardLabel(code);
      return parseCard(code).rank === "JK" && readings.length ? `${label}(=${cardLabel(readings.shift())})` : label;
    })
    .join(" ");
}

/** Strength of a rank in normal order (3 weakest, joker strongest). */
export function strength(code, reversed = false) {
  const { rank } = parseCard(code);
  if (rank === "JK") return 100;
  const value = RANKS.indexOf(rank);
  return reversed ? RANKS.length - value : value;
}

/** A hand sorted weakest first, by the order in force (jokers last either way). */
export function sortByStrength(codes, reversed = false) {
  return [...codes].sort(
    (a, b) =>
      strength(a, reversed) - strength(b, reversed) ||
      SUIT_ORDER.indexOf(parseCard(a).suit) - SUIT_ORDER.indexOf(parseCard(b).suit),
  );
}

/** The same multiset of cards, whatever the spelling ("TS" = "10S"). */
export function sameCards(a, b) {
  const norm = (codes) => codes.map(normalise).sort().join(" ");
  return a.length === b.length && norm(a) === norm(b);
}

export function normalise(code) {
  const { rank, suit } = parseCard(code);
  return rank === "JK" ? "JK" : rank + suit;
}

/** A face-up card for lists (field, hands): text for eyes, a name for ears. */
export function cardElement(code, tag = "li") {
  const element = document.createElement(tag);
  fillCard(element, code);
  return element;
}

export function fillCard(element, code) {
  const { rank, suit } = parseCard(code);
  element.className = `card suit-${rank === "JK" ? "joker" : suit}`;
  element.dataset.code = normalise(code);
  const face = document.createElement("span");
  face.setAttribute("aria-hidden", "true");
  face.className = "face";
  // rank and suit apart, so a fanned hand can stack them as a card's index does
  const rankPart = document.createElement("span");
  rankPart.className = "rank";
  rankPart.textContent = rank === "JK" ? "Joker" : rank === "T" ? "10" : rank;
  face.append(rankPart);
  if (rank !== "JK") {
    const suitPart = document.createElement("span");
    suitPart.className = "suit";
    suitPart.textContent = SUIT_SYMBOLS[suit] ?? suit;
    face.append(suitPart);
  }
  const name = document.createElement("span");
  name.className = "visually-hidden";
  name.textContent = cardName(code);
  element.replaceChildren(face, name);
}

export { SUIT_ORDER };
