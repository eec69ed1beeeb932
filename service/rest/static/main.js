// The page's entry point: a tiny hash router (#/ lists matches,
// #/match/<id> opens one) that starts watching, replaying or playing.
// The seat token never enters the URL: it lives in sessionStorage only.

import { clearAnnouncements, initAnnouncer } from "./announce.js";
import { api } from "./api.js";
import { $ } from "./dom.js";
import { MatchList } from "./matches.js";
import { SeatPlay } from "./play.js";
import { Replay } from "./replay.js";
import { Watcher } from "./watch.js";

const tokenKey = (id) => `daifugo:seat:${id}`;
let current = null; // {watcher, replay, seat}
let list = null;

function stopCurrent() {
  if (!current) return;
  current.watcher?.stop();
  current.replay?.stop();
  current.seat?.stop();
  current = null;
}

function showList() {
  const fromMatch = !$("match-view").hidden;
  $("match-view").hidden = true;
  $("list-view").hidden = false;
  document.title = "Matches · Daifugō";
  if (fromMatch) $("list-title").focus(); // say where the reader now is
  list.load(true);
}

async function openMatch(id) {
  $("list-view").hidden = true;
  $("match-view").hidden = false;
  $("replay").hidden = true;
  $("seat-panel").hidden = true;
  $("ended").hidden = true;
  $("connection").hidden = true;
  $("events").hidden = false;
  $("play").hidden = true;
  clearAnnouncements();
  const title = $("match-title");
  title.textContent = `Match ${id}`;
  document.title = `Match ${id} · Daifugō`;
  title.focus();
  const session = {};
  current = session;
  let match;
  try {
    match = await api.match(id);
  } catch (error) {
    $("match-meta").textContent = `Could not open this match: ${error.message}`;
    return;
  }
  if (current !== session) return; // the reader moved on meanwhile
  const view = match.view;
  const over = view.phase === "match_over" || match.state === "finished";
  $("match-meta").textContent = [
    `${view.preset}, ${view.players} players`,
    `${view.games_per_set} ${view.games_per_set === 1 ? "game" : "games"} per set`,
    over ? "finished" : (match.state ?? "live"),
    match.spectator_delay_ms ? `spectators see it ${match.spectator_delay_ms / 1000} s late` : "",
  ]
    .filter(Boolean)
    .join(" · ");
  $("table").dataset.mode = over ? "replay" : "watch";

  if (over) {
    $("events").hidden = true;
    session.replay = new Replay(match);
    await session.replay.start();
    return;
  }

  session.watcher = new Watcher(match, {
    onSeat: (data) => session.seat?.update(data),
    onEnded: () => {
      $("ended").hidden = false;
    },
  });
  session.watcher.start();
  $("seat-panel").hidden = false;
  $("token-form").hidden = false;
  const saved = sessionStorage.getItem(tokenKey(id));
  if (saved) takeSeat(session, id, saved, false);
}

async function takeSeat(session, id, token, moveFocus) {
  const error = $("token-error");
  error.textContent = "";
  try {
    await api.seat(id, token); // check the token before using it
  } catch (failure) {
    error.textContent = `That token does not open a seat here (${failure.code}): ${failure.detail ?? failure.message}`;
    sessionStorage.removeItem(tokenKey(id));
    return;
  }
  if (current !== session) return;
  sessionStorage.setItem(tokenKey(id), token);
  $("token-form").hidden = true;
  session.seat = new SeatPlay(id, token, {
    names: session.watcher.names,
    refresh: () => session.watcher.scheduleRefresh(),
  });
  await session.watcher.useToken(token);
  // focus the hand's heading: the next Tab reaches the first card
  if (moveFocus) $("hand-title").focus();
}

function leaveSeat(session, id) {
  sessionStorage.removeItem(tokenKey(id));
  session.seat?.stop();
  session.seat = null;
  $("token-form").hidden = false;
  session.watcher.useToken(null);
  $("token").focus();
}

function route() {
  stopCurrent();
  const found = location.hash.match(/^#\/match\/([^/?#]+)/);
  if (found) openMatch(decodeURIComponent(found[1]));
  else showList();
}

function init() {
  initAnnouncer($("announcer"), $("log"));
  list = new MatchList();
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("token");
    const token = input.value.trim();
    input.value = ""; // keep it out of the DOM once used
    const id = location.hash.match(/^#\/match\/([^/?#]+)/)?.[1];
    if (token && id && current?.watcher) takeSeat(current, decodeURIComponent(id), token, true);
  });
  $("leave-seat").addEventListener("click", () => {
    const id = location.hash.match(/^#\/match\/([^/?#]+)/)?.[1];
    if (id && current?.watcher) leaveSeat(current, decodeURIComponent(id));
  });
  $("to-replay").addEventListener("click", () => {
    route(); // the match is over now: opening it again starts the replay
  });
  window.addEventListener("hashchange", route);
  route();
}

init();
