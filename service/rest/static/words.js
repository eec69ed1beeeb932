// Events and facts in plain words, for the live region, the event log and
// the replay position. One place, so every surface says things the same way.
// tests/unit/test_vocabulary.py holds its event types and reasons to the rules'.

import { cardsInSymbols, cardsInWords, rankName, suitName, suitSymbol } from "./cards.js";

const ORDINALS = ["", "1st", "2nd", "3rd", "4th", "5th"];

/** The title of a place with `players` seats (docs/RULES.md §1 Leaving and places). */
export function placeTitle(place, players) {
  if (place === 1) return "Daifugō, grand millionaire";
  if (place === players) return "Daihinmin, extreme poor";
  if (players >= 4 && place === 2) return "Fugō, millionaire";
  if (players >= 4 && place === players - 1) return "Hinmin, poor";
  return "Heimin, commoner";
}

export function placeWords(place, players) {
  return `${ORDINALS[place] ?? `${place}th`} (${placeTitle(place, players)})`;
}

/** "Seat 2", "alice (seat 2)", or "You (seat 2)" for the seat being played. */
export function seatWords(seat, names = [], me = null) {
  if (me !== null && me !== undefined && seat === me) return `You (seat ${seat})`;
  const name = names?.[seat];
  if (name && name !== `seat ${seat}` && name !== "host") return `${name} (seat ${seat})`;
  return `Seat ${seat}`;
}

const FLUSH_REASONS = {
  eight_cut: "Eight-cut! The field is flushed",
  spade3_return: "Spade-3 return! The field is flushed",
  all_passed: "Everyone passed: the field is flushed",
  ambulance: "Ambulance (pair of 9s): the field is flushed",
  rokurokubi: "Rokurokubi (pair of 6s): the field is flushed",
  sandstorm: "Sandstorm (three 3s): the field is flushed",
  emperor: "Emperor: the field is flushed",
  four_stop: "Four-stop: the eight-cut is stopped and the field is flushed",
  five_cut: "Five-cut in revolution! The field is flushed",
  six_cut: "Six-cut in revolution! The field is flushed",
  seven_cut: "Seven-cut in revolution! The field is flushed",
  spade2_return: "Spade-2 return! The field is flushed",
  triple_three_return: "Three 3s return the joker! The field is flushed",
  assassination: "Assassination! The field is flushed",
  finish_flush: "A player went out: the field is flushed",
};

const REVOLUTION_CAUSES = {
  revolution: "four of a kind",
  stairs_revolution: "stairs of four",
  coup: "coup, three 9s",
  omen: "omen, three 6s",
  great_revolution: "great revolution, four 2s",
  emperor: "emperor",
  nanasan_revolution: "nanasan, three 7s",
  joker_revolution: "joker revolution, both jokers",
};

const STEPS = {
  seven_pass: (count) => `give ${count} ${plural(count, "card")} to the next player (seven-pass)`,
  ten_discard: (count) => `discard ${count} ${plural(count, "card")} (ten-discard)`,
  queen_bomber: (count) => `name ${count} ${plural(count, "rank")} to bomb (queen bomber)`,
  salvage: () => "take up to 1 card from the discard pile (salvage)",
  kings_march: (count) => `take up to ${count} ${plural(count, "card")} from the discard pile (king's march)`,
  zombie: () => "take up to 1 card from the discard pile for the next player (zombie)",
  king_pastor: () => "choose 1 card to pass on (king pastor)",
};

export function plural(count, word) {
  return count === 1 ? word : `${word}s`;
}

function cardsOrCount(event, name, symbols = false) {
  const cards = event[name];
  if (Array.isArray(cards)) return symbols ? cardsInSymbols(cards) : cardsInWords(cards);
  const count = event[`${name}_count`] ?? 0;
  return `${count} hidden ${plural(count, "card")}`;
}

function humanise(code) {
  return String(code).replaceAll("_", " ");
}

/**
 * One event in words, or null for bookkeeping nobody needs to hear.
 * `context`: {names, players, me (the seat being played, if any)}.
 */
export function describeEvent(event, { names = [], players = 0, me = null, symbols = false } = {}) {
  const seat = (number) => seatWords(number, names, me);
  const cards = symbols ? cardsInSymbols : cardsInWords;
  const suits = (list) => (symbols ? list.map(suitSymbol).join("") : list.map(suitName).join(" and "));
  const n = players || names.length || 0;
  switch (event.type) {
    case "MatchCreated":
      return `Match created: ${event.preset}, ${event.players} players`;
    case "SeatJoined":
      return `${seat(event.seat)} joined`;
    case "MatchStarted":
      return "The match has started; the dealing seed is committed";
    case "GameDealt":
      return `Game ${event.game_number} dealt; ${seat(event.leader)} leads`;
    case "HandsSwapped":
      return `Tenpenchi: ${seat(event.seats[0])} and ${seat(event.seats[1])} swap hands`;
    case "ExchangeStarted":
      return "Card exchange begins";
    case "CardsGiven":
      return `${seat(event.seat)} gave ${cardsOrCount(event, "cards", symbols)} to ${seat(event.to)}`;
    case "CardsPlayed": {
      const kind = event.kind && event.kind !== "single" ? ` (${event.kind})` : "";
      const why = event.reason ? `, ${humanise(event.reason)}` : "";
      return `${seat(event.seat)} played ${cards(event.cards, event.jokers_as)}${kind}${why}`;
    }
    case "Passed":
      return `${seat(event.seat)} passed${event.reason ? ` (${humanise(event.reason)})` : ""}`;
    case "RevolutionChanged": {
      const cause = REVOLUTION_CAUSES[event.cause] ?? humanise(event.cause);
      return event.revolution
        ? `Revolution! (${cause}) Strength order reversed`
        : `Counter-revolution! (${cause}) Normal strength order`;
    }
    case "OmenInvoked":
      return `Omen by ${seat(event.seat)}: no more revolutions or special effects this game`;
    case "ElevenBackStarted":
      return event.reading === "order"
        ? "Eleven-back: turn order reversed until the field flushes"
        : "Eleven-back: strength reversed until the field flushes";
    case "ElevenBackStrengthened":
      return "Strong eleven-back: it lasts through the next trick";
    case "ElevenBackEnded":
      return `${event.cause === "six_return" ? "Six-return" : humanise(event.cause)}: eleven-back ends`;
    case "TwoBackStarted":
      return "Two-back: strength reversed until the field flushes";
    case "SuitLocked":
      if (!event.suits?.length) return "Suit lock lifted";
      return `${event.partial ? "Partial lock" : "Suit lock"}: ${suits(event.suits)}`;
    case "ColorLocked":
      return `Colour lock: ${event.color}`;
    case "LocksReleased":
      return "Queen release: every lock ends";
    case "NumberLocked":
      return `Number lock from ${rankName(event.rank)}: each play must be one rank stronger`;
    case "DirectionReversed":
      return `Turn order reversed${event.cause ? ` (${humanise(event.cause)})` : ""}`;
    case "PlayersSkipped":
      return `Skipped${event.causes?.length ? ` (${event.causes.map(humanise).join(" + ")})` : ""}: ${event.seats.map(seat).join(", ")}`;
    case "StepRequired":
      return `${seat(event.seat)} must ${(STEPS[event.step] ?? ((c) => `${humanise(event.step)} ${c}`))(event.count)}`;
    case "FourStopOffered":
      return `Four-stop: ${event.seats.map(seat).join(", ")} may answer with a pair of 4s`;
    case "EightCutReturnOffered":
      return `Eight-cut return: ${event.seats.map(seat).join(", ")} may answer with 8s${event.four_stop ? " or a pair of 4s" : ""}`;
    case "PilePicked": {
      const taken = event.cards?.length ? cards(event.cards) : "nothing";
      const to = event.to !== event.seat ? ` for ${seat(event.to)}` : "";
      return `${seat(event.seat)} took ${taken} from the discard pile${to} (${humanise(event.reason)})`;
    }
    case "PickLapsed":
      return `${seat(event.seat)}'s ${humanise(event.reason)} lapses: no card in the discard pile may be taken`;
    case "CardChosen":
      return `${seat(event.seat)} chose ${cardsOrCount(event, "cards", symbols)} to pass on (king pastor)`;
    case "RanksBombed":
      return `${seat(event.seat)} bombed ${event.ranks.map(rankName).join(", ")}`;
    case "CardsDiscarded":
      return `${seat(event.seat)} discarded ${cardsOrCount(event, "cards", symbols)}`;
    case "PlayerFinished": {
      const how = event.forbidden ? " by a forbidden finish" : "";
      const cause =
        event.cause && !["play", "emptied"].includes(event.cause) ? ` (${humanise(event.cause)})` : "";
      return `${seat(event.seat)} finished ${placeWords(event.place, n)}${how}${cause}`;
    }
    case "PlayerFell":
      return `${event.cause === "kyo_ochi" ? "Kyō-ochi" : "Miyako-ochi"}: ${seat(event.seat)} falls to ${placeWords(event.place, n)}`;
    case "FieldFlushed":
      return `${FLUSH_REASONS[event.reason] ?? `Field flushed (${humanise(event.reason)})`}; ${seat(event.leader)} leads`;
    case "TurnMoved":
      return `${seat(event.seat)} to play`;
    case "GameEnded": {
      const order = event.places
        .map((place, index) => [place, index])
        .sort((a, b) => a[0] - b[0])
        .map(([place, index]) => `${ORDINALS[place] ?? place} ${seat(index)}`);
      return `Game over${event.gekokujo ? " by gekokujō" : ""}. Places: ${order.join(", ")}`;
    }
    case "MatchEnded":
      return "The match is over; every hand and the blind cards are revealed";
    case "TurnTimedOut":
      return `${seat(event.seat)} ran out of time; the service acts for them`;
    case "SeedRevealed":
      return "The dealing seed is revealed: the match can be audited";
    case "MatchSealed":
      return "The match record is sealed with the service's signature";
    default:
      return humanise(event.type ?? "event");
  }
}

/** Events a listener does not need to hear as they happen (the page shows them). */
export const QUIET = new Set(["SeatJoined", "TurnMoved", "SeedRevealed", "ExchangeStarted"]);

/** Events the log leaves out: the table shows whose turn it is. */
export const UNLOGGED = new Set(["TurnMoved"]);

/** What a lock adds to the play that started it: " — suit lock ♠♥". */
export function lockSuffix(event, symbols = true) {
  if (event.type === "ColorLocked") return ` — colour lock ${event.color}`;
  if (event.type === "SuitLocked" && event.partial) {
    return ` — partial lock ${symbols ? event.suits.map(suitSymbol).join("") : event.suits.map(suitName).join(" and ")}`;
  }
  if (event.type === "SuitLocked") {
    return ` — suit lock ${symbols ? event.suits.map(suitSymbol).join("") : event.suits.map(suitName).join(" and ")}`;
  }
  if (event.type === "NumberLocked") return " — number lock";
  return null;
}
