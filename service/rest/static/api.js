// The REST API in one place: every request the page makes, and its errors as
// {code, message} so the page can show the rules' reason code.

export class ApiError extends Error {
  constructor(status, code, message, receipt = null) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.detail = message;
    this.receipt = receipt; // a refusal judged on the match: its signed refusal receipt
  }
}

function authHeaders(token) {
  // the token travels only in a header, never in a URL
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function request(path, { token, method = "GET", body, raw, signal } = {}) {
  const headers = { Accept: "application/json", ...authHeaders(token) };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (raw !== undefined) headers["Content-Type"] = "application/x-ndjson";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
      signal,
      cache: "no-store",
    });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, "unavailable", "the service does not answer");
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const code = data?.code ?? `http_${response.status}`;
    const message = data?.message ?? data?.detail ?? (text || response.statusText);
    throw new ApiError(response.status, code, String(message), data?.receipt ?? null);
  }
  return data;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

const enc = encodeURIComponent;

export const api = {
  matches: (filter, options) => request(`/matches${query(filter)}`, options),
  match: (id, options) => request(`/matches/${enc(id)}`, options),
  events: (id, from, limit, options) =>
    request(`/matches/${enc(id)}/events${query({ from, limit })}`, options),
  state: (id, seq, options) => request(`/matches/${enc(id)}/state${query({ seq })}`, options),
  seat: (id, token, options) => request(`/matches/${enc(id)}/seat`, { ...options, token }),
  act: (id, token, action) =>
    request(`/matches/${enc(id)}/actions`, { method: "POST", token, body: action }),
  presets: () => request("/presets"),
  create: (table) => request("/matches", { method: "POST", body: table }),
  // the invite's secret goes in the body only, never a URL
  takeSeat: (id, secret, name, requestId) =>
    request(`/matches/${enc(id)}/seats`, {
      method: "POST",
      body: { secret, name, request_id: requestId },
    }),
  // a table listed in the lobby: its next free seat, no invite
  join: (id, name, requestId) =>
    request(`/matches/${enc(id)}/join`, { method: "POST", body: { name, request_id: requestId } }),
  start: (id, hostToken) => request(`/matches/${enc(id)}/start`, { method: "POST", token: hostToken }),
  seatBot: (id, hostToken, kind, requestId) =>
    request(`/matches/${enc(id)}/bots`, {
      method: "POST",
      token: hostToken,
      body: { kind, request_id: requestId },
    }),
  // a finished match's one rematch: the seat's same seat there (opened by the first to ask)
  rematch: (id, token) => request(`/matches/${enc(id)}/rematch`, { method: "POST", token }),
  rematchOpened: (id, token, options) => request(`/matches/${enc(id)}/rematch`, { ...options, token }),
  audit: (id, options) => request(`/matches/${enc(id)}/audit`, options),
  // the expert's analysis of one game of a finished match: asked for, then followed
  analysis: (id, game) => request(`/matches/${enc(id)}/analysis${query({ game })}`),
  analyse: (id, game) => request(`/matches/${enc(id)}/analysis${query({ game })}`, { method: "POST" }),
  auditLog: (text) => request("/audit", { method: "POST", raw: text }),
  rankings: (offset, limit) => request(`/rankings${query({ offset, limit })}`),
  // registered players: the key travels in a header only
  signUp: (name) => request("/players", { method: "POST", body: { name } }),
  me: (key) => request("/players/me", { token: key }),
  rotateKey: (key) => request("/players/me/key", { method: "POST", token: key }),
  ratings: (pool, offset, limit) => request(`/ratings${query({ pool, offset, limit })}`),
  playerRatings: (pool, id) => request(`/ratings/${enc(pool)}/players/${enc(id)}`),
  queue: (key, pool, signal) =>
    request("/arena/queue", { method: "POST", token: key, body: { pool }, signal }),
};

export function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Every event of a match, page by page. */
export async function allEvents(id, options) {
  const events = [];
  let from = 0;
  for (;;) {
    const page = await api.events(id, from, 500, options);
    events.push(...page.events);
    if (page.next === null || page.next === undefined || page.events.length === 0) return events;
    from = page.next;
  }
}

export { authHeaders };
