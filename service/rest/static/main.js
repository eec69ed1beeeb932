// The page's entry point: a tiny hash router that opens one view at a time.
//   #/                         the lobby (tables anyone can join) and the matches
//   #/new                      the new-table form
//   #/invite/<id>/<secret>     take an invited seat (the secret never leaves the fragment
//                              but in a POST body, and leaves the address bar at once)
//   #/seat/<id>/<token>        this seat's link: back to a seat from any tab or device
//                              (the token leaves the address bar at once, as a secret does)
//   #/match/<id>               watch or play a match; its results once over
//   #/match/<id>/replay/<seq>  a finished match's replay at a step
//   #/audit, #/rankings, #/ratings, #/player/<pool>/<id>, #/account (sign up, play rated)
// Tokens never enter a URL sent anywhere: they live in sessionStorage, and in
// the fragment of a seat's link only when its player copies it.

import { announce, clearAnnouncements, initAnnouncer } from "./announce.js";
import { api } from "./api.js";
import { AuditPage, showVerdict } from "./audit.js";
import { $ } from "./dom.js";
import { HostPanel, hostKey } from "./host.js";
import { acceptInvite } from "./invite.js";
import { Lobby, rememberSeat } from "./lobby.js";
import { MatchList } from "./matches.js";
import { NewTable } from "./newtable.js";
import { SeatPlay, bringIntoView } from "./play.js";
import { AccountPage } from "./account.js";
import { RankingsPage } from "./rankings.js";
import { RatingsPage, showPlayer } from "./ratings.js";
import { Replay } from "./replay.js";
import { keepReceipts } from "./receipts.js";
import { SeatKeeper, tokenFromInput } from "./seatlink.js";
import { Results } from "./results.js";
import { Watcher } from "./watch.js";

export const tokenKey = (id) => `daifugo:seat:${id}`;
const VIEWS = ["list-view", "new-view", "invite-view", "rankings-view", "ratings-view", "player-view", "account-view", "audit-view", "match-view"];
let current = null; // {watcher, replay, seat, host, results}
let list = null;
let lobby = null;
let newTable = null;
let auditPage = null;
let rankingsPage = null;
let ratingsPage = null;
let accountPage = null;
let keeper = null;

function stopCurrent() {
  if (!current) return;
  current.watcher?.stop();
  current.replay?.stop();
  current.seat?.stop();
  current.host?.stop();
  current.results?.stop();
  current = null;
}

/** Show one view; its heading takes the focus (say where the reader now is). */
function showView(id, title, { focus = true } = {}) {
  for (const view of VIEWS) $(view).hidden = view !== id;
  document.title = `${title} · Daifugō`;
  const nav = {
    "list-view": "list",
    "new-view": "new",
    "rankings-view": "rankings",
    "ratings-view": "ratings",
    "player-view": "ratings",
    "account-view": "account",
    "audit-view": "audit",
  }[id];
  for (const link of document.querySelectorAll("[data-nav]")) {
    if (link.dataset.nav === nav) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  if (focus) $(id).querySelector("h1")?.focus();
}

function showList(focus) {
  showView("list-view", "Matches", { focus });
  lobby.load();
  list.load(true);
}

// the header's word for where the match is, kept up to date as it goes
const STATE_WORDS = {
  open: "open: not started yet",
  live: "live",
  finished: "finished",
  abandoned: "abandoned",
};

function showMeta(match, state) {
  const view = match.view;
  const meta = $("match-meta");
  meta.dataset.state = state;
  meta.textContent = [
    `${view.preset}, ${view.players} players`,
    `${view.games_per_set} ${view.games_per_set === 1 ? "game" : "games"} per set`,
    match.turn_ms ? `turn limit ${match.turn_ms / 1000} s` : "no turn limit",
    STATE_WORDS[state] ?? state,
    match.spectator_delay_ms ? `spectators see it ${match.spectator_delay_ms / 1000} s late` : "",
  ]
    .filter(Boolean)
    .join(" · ");
}

async function openMatch(id, replaySeq = null) {
  showView("match-view", `Match ${id}`);
  for (const panel of ["replay", "seat-panel", "ended", "connection", "play", "results", "match-audit", "host-panel"]) {
    $(panel).hidden = true;
  }
  $("events").hidden = false;
  clearAnnouncements();
  $("match-title").textContent = `Match ${id}`;
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
  const abandoned = match.state === "abandoned";
  const over = view.phase === "match_over" || match.state === "finished" || abandoned;
  showMeta(match, abandoned ? "abandoned" : over ? "finished" : (match.state ?? "live"));
  $("table").dataset.mode = over ? "replay" : "watch";
  session.results = new Results(id, { token: () => sessionStorage.getItem(tokenKey(id)) });

  if (over) {
    $("events").hidden = true; // the replay tells each event in turn
    showVerdict(id, $("match-audit"));
    session.replay = new Replay(match, { seq: replaySeq });
    await session.replay.start();
    if (current !== session) return;
    for (const event of session.replay.events) session.results.onEvent(event);
    session.results.show(match, { final: true, focus: false });
    return;
  }

  const hosted = sessionStorage.getItem(hostKey(id));
  if (hosted) session.host = new HostPanel(id, JSON.parse(hosted), match);

  session.watcher = new Watcher(match, {
    onSeat: (data) => session.seat?.update(data),
    onView: (data) => {
      session.host?.update(data);
      if (data.state) showMeta(match, data.state);
    },
    onEvent: (event) => session.results.onEvent(event, session.watcher),
    onEnded: () => {
      showMeta(match, session.watcher.state === "abandoned" ? "abandoned" : "finished");
      $("ended").hidden = false;
      showVerdict(id, $("match-audit"));
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
  keeper.reset();
  $("token-form").hidden = true;
  session.seat = new SeatPlay(id, token, {
    names: session.watcher.names,
    refresh: () => session.watcher.scheduleRefresh(),
  });
  await session.watcher.useToken(token);
  // focus the hand's heading: the next Tab reaches the hand
  if (moveFocus) $("hand-title").focus({ preventScroll: true });
  bringIntoView(); // the hand and Play/Pass, not just the heading
}

function leaveSeat(session, id) {
  sessionStorage.removeItem(tokenKey(id));
  announce("You left the seat. This seat's link brings you back to it.", { logged: false });
  session.seat?.stop();
  session.seat = null;
  $("token-form").hidden = false;
  session.watcher.useToken(null);
  $("token").focus();
}

function matchIdInHash() {
  const found = location.hash.match(/^#\/match\/([^/?#]+)/);
  return found ? decodeURIComponent(found[1]) : null;
}

let lastRoute = null;

function route() {
  const hash = location.hash;
  // a replay moving step by step rewrites its own link: not a new route
  const replay = hash.match(/^#\/match\/([^/?#]+)\/replay\/(\d+)$/);
  if (replay && current?.replay && current.replay.id === decodeURIComponent(replay[1])) {
    if (lastRoute?.startsWith(`#/match/${replay[1]}`)) {
      lastRoute = hash;
      current.replay.goFromLink(Number(replay[2]));
      return;
    }
  }
  const fromList = lastRoute !== null;
  lastRoute = hash;
  stopCurrent();
  let found;
  if (replay) openMatch(decodeURIComponent(replay[1]), Number(replay[2]));
  else if ((found = hash.match(/^#\/match\/([^/?#]+)/))) openMatch(decodeURIComponent(found[1]));
  else if ((found = hash.match(/^#\/seat\/([^/?#]+)\/([^/?#]+)$/))) {
    const [id, token] = [decodeURIComponent(found[1]), decodeURIComponent(found[2])];
    // the token leaves the address bar and the history at once; the seat is checked on opening
    sessionStorage.setItem(tokenKey(id), token);
    history.replaceState(null, "", `#/match/${encodeURIComponent(id)}`);
    lastRoute = location.hash;
    openMatch(id);
  }
  else if ((found = hash.match(/^#\/invite\/([^/?#]+)\/([^/?#]+)$/))) {
    const [id, secret] = [decodeURIComponent(found[1]), decodeURIComponent(found[2])];
    // the secret leaves the address bar and the history at once
    history.replaceState(null, "", `#/invite/${encodeURIComponent(id)}`);
    lastRoute = location.hash;
    showView("invite-view", "Invitation");
    acceptInvite(id, secret, (token, seat) => {
      sessionStorage.setItem(tokenKey(id), token);
      rememberSeat(id, seat);
      location.hash = `#/match/${encodeURIComponent(id)}`;
    });
  } else if (hash.startsWith("#/invite/")) {
    showView("invite-view", "Invitation");
    acceptInvite(null, null, () => {});
  } else if (hash === "#/new") {
    showView("new-view", "New table");
    newTable.open();
  } else if (hash === "#/audit") {
    showView("audit-view", "Audit a record");
    auditPage.open();
  } else if (hash === "#/rankings") {
    showView("rankings-view", "Rankings");
    rankingsPage.load(true);
  } else if (hash === "#/ratings") {
    showView("ratings-view", "Ratings");
    ratingsPage.load(true);
  } else if ((found = hash.match(/^#\/player\/([^/?#]+)\/([^/?#]+)$/))) {
    showView("player-view", "Player");
    showPlayer(decodeURIComponent(found[1]), decodeURIComponent(found[2]));
  } else if (hash === "#/account") {
    showView("account-view", "Player");
    accountPage.open();
  } else showList(fromList);
}

/** Seat the creator (or only host) after a create: its tokens stay in this tab. */
export function tableCreated(table, body) {
  const id = table.match_id;
  const { host_token: hostToken, invites, bots, seat } = table;
  sessionStorage.setItem(hostKey(id), JSON.stringify({ hostToken, invites, bots, seat, body }));
  keepReceipts(id, table.receipts); // the create's, the creator's seat's, the start's
  if (table.seat_token) {
    sessionStorage.setItem(tokenKey(id), table.seat_token);
    rememberSeat(id, seat);
  }
  location.hash = `#/match/${encodeURIComponent(id)}`;
}

/** A seat sat at its match's rematch: its new token in this tab, then the new table. */
function rematchSeated(table) {
  keepReceipts(table.match_id, table.receipts);
  sessionStorage.setItem(tokenKey(table.match_id), table.seat_token);
  rememberSeat(table.match_id, table.seat);
  location.hash = `#/match/${encodeURIComponent(table.match_id)}`;
}

function init() {
  initAnnouncer($("announcer"), $("log"));
  list = new MatchList();
  lobby = new Lobby((id, token) => {
    sessionStorage.setItem(tokenKey(id), token);
    location.hash = `#/match/${encodeURIComponent(id)}`;
  });
  newTable = new NewTable(tableCreated);
  auditPage = new AuditPage();
  rankingsPage = new RankingsPage();
  ratingsPage = new RatingsPage();
  accountPage = new AccountPage((id, token) => {
    sessionStorage.setItem(tokenKey(id), token);
    location.hash = `#/match/${encodeURIComponent(id)}`;
  });
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("token");
    const token = tokenFromInput(input.value.trim());
    input.value = ""; // keep it out of the DOM once used
    const id = matchIdInHash();
    if (token && id && current?.watcher) takeSeat(current, id, token, true);
  });
  keeper = new SeatKeeper({
    id: matchIdInHash,
    token: () => {
      const id = matchIdInHash();
      return id ? sessionStorage.getItem(tokenKey(id)) : null;
    },
    leave: () => {
      const id = matchIdInHash();
      if (id && current?.watcher) leaveSeat(current, id);
    },
  });
  $("to-replay").addEventListener("click", () => {
    lastRoute = null;
    route(); // the match is over now: opening it again starts the replay
  });
  $("rematch").addEventListener("click", () => current?.results?.rematch(tableCreated, rematchSeated));
  window.addEventListener("hashchange", route);
  route();
}

init();
