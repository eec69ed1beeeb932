// Every local rule's Japanese name and a one-line meaning (docs/RULES.md §2, §3, §5),
// for the new-table toggles and the "rules in play" tooltips.

export const RULES = {
  revolution: ["革命", "Revolution", "Four or more of a rank reverse the strength order until the game ends."],
  stairs: ["階段", "Stairs", "Three or more consecutive ranks of one suit are a meld."],
  eight_cut: ["8切り", "Eight-cut", "A play with an 8 flushes the field; its player leads again."],
  spade3_return: ["スペ3返し", "Spade-3 return", "A single ♠3 beats a single joker and flushes the field."],
  forbidden_finish: ["反則上がり", "Forbidden finish", "Going out on a 2, a joker, an 8 or ♠3 puts you last."],
  suit_lock: ["縛り", "Suit lock", "Two plays in a row of the same suits lock those suits until the flush."],
  number_lock: ["数字しばり", "Number lock", "Plays one rank apart lock: each play must be exactly one rank stronger."],
  miyako_ochi: ["都落ち", "Miyako-ochi", "From game 2, a 大富豪 who does not finish first falls to the bottom."],
  gekokujo: ["下剋上", "Gekokujō", "If the last game's 大貧民 finishes first, every place is reversed."],
  eleven_back: ["11バック", "Eleven-back", "A play with a J reverses strength (or turn order) until the flush."],
  queen_bomber: ["12ボンバー", "Queen bomber", "A play with Qs names ranks every player must discard."],
  sandstorm: ["砂嵐", "Sandstorm", "Three 3s may be played on anything and flush the field."],
  ambulance: ["救急車", "Ambulance", "A pair of 9s flushes the field."],
  rokurokubi: ["ろくろ首", "Rokurokubi", "A pair of 6s flushes the field."],
  four_stop: ["4止め", "Four-stop", "A pair of 4s answers a single 8 and stops its eight-cut."],
  five_skip: ["5スキップ", "Five-skip", "Each 5 played skips the next player."],
  seven_pass: ["7渡し", "Seven-pass", "Each 7 played gives a card of your choice to the next player."],
  ten_discard: ["10捨て", "Ten-discard", "Each 10 played discards a card of your choice."],
  nine_reverse: ["9リバース", "Nine-reverse", "A play with a 9 reverses the turn order."],
  emperor: ["エンペラー", "Emperor", "Four consecutive ranks in four suits revolt and flush the field."],
  coup: ["クーデター", "Coup", "Three 9s revolt."],
  great_revolution: ["大革命", "Great revolution", "Four 2s revolt and their player finishes at once."],
  omen: ["オーメン", "Omen", "Three 6s revolt and end every other special effect for the game."],
  down_number: ["ダウンナンバー", "Down number", "On a single, the same suit one rank weaker may be played."],
  lucky_seven: ["ラッキーセブン", "Lucky seven", "Three 7s still on the field at the flush finish their player."],
  tenpenchi: ["天変地異", "Tenpenchi", "A poor hand of only 3–10 swaps with the 大富豪's from game 2."],
  five_cut: ["5切り", "Five-cut", "In revolution a 5 flushes the field like an eight-cut."],
  six_cut: ["6切り", "Six-cut", "In revolution a 6 flushes the field like an eight-cut."],
  seven_cut: ["7切り", "Seven-cut", "In revolution a 7 flushes the field like an eight-cut."],
  spade2_return: ["スペ2返し", "Spade-2 return", "In reversed order a single ♠2 beats a single joker."],
  triple_three_return: ["33返し", "Triple-three return", "Three 3s beat a single joker and flush the field."],
  joker_return: ["ジョーカー返し", "Joker return", "A joker may be played on a joker."],
  assassination: ["暗殺", "Assassination", "The weakest single beats the strongest one and flushes the field."],
  eight_cut_return: ["8切り返し", "Eight-cut return", "Real 8s may answer an eight-cut before its flush."],
  finish_flush: ["上がり流し", "Finish flush", "The field flushes when a player finishes."],
  nanasan_revolution: ["ナナサン革命", "Nanasan revolution", "Three real 7s revolt."],
  joker_revolution: ["ジョーカー革命", "Joker revolution", "The two jokers together revolt."],
  color_lock: ["色縛り", "Colour lock", "Two plays of one colour lock that colour until the flush."],
  partial_lock: ["片縛り", "Partial lock", "Plays sharing a suit lock the shared suits."],
  queen_release: ["Q解き", "Queen release", "A Q ends every lock in force."],
  strong_eleven_back: ["強化11バック", "Strong eleven-back", "Three Js make eleven-back last one more trick."],
  six_return: ["6戻し", "Six return", "A 6 ends eleven-back."],
  two_back: ["2バック", "Two-back", "A 2 reverses strength until the flush."],
  six_reverse: ["6リバース", "Six-reverse", "A play with a 6 reverses the turn order."],
  queen_reverse: ["Qリバース", "Queen-reverse", "A play with a Q reverses the turn order."],
  king_reverse: ["Kリバース", "King-reverse", "A play with a K reverses the turn order."],
  king_skip: ["Kスキップ", "King-skip", "Each K played skips the next player."],
  ten_skip: ["10飛び", "Ten-skip", "Each 10 played skips the next player."],
  salvage: ["サルベージ", "Salvage", "A 3 on the field at the flush lets its player take a discard."],
  kings_march: ["キングの行進", "King's march", "Each K played lets its player take a discard."],
  zombie: ["ゾンビ", "Zombie", "Three 3s give a discard to the next player."],
  king_pastor: ["キング牧師", "King pastor", "A K makes everyone pass one card on."],
  kyo_ochi: ["京落ち", "Kyō-ochi", "With 4 or 5, the 富豪 falls when the 大富豪 stays first."],
  daifugo_leisure: ["大富豪の余裕", "Daifugō's leisure", "The 大富豪 must pass on their first turn."],
  d3_start: ["ダイヤ3スタート", "Diamond-3 start", "The first play of a set must hold ♢3."],
};

/** [japanese, english, meaning] of a rule option, or a plain fallback. */
export function ruleInfo(name) {
  return RULES[name] ?? ["", String(name).replaceAll("_", " "), ""];
}

/** The rules a view's options switch on (eleven_back is "" or a reading). */
export function activeRules(options = {}) {
  return Object.keys(RULES).filter((name) => {
    const value = options[name];
    return value === true || (typeof value === "string" && value !== "");
  });
}
