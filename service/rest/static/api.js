// The REST API in one place: every request the page makes, and its errors as
// {code, message} so the page can show the rules' reason code.

export class ApiError extends Error {
  constructor(status, code, message, receipt = null, retryAfter = null) {
    super(`${code}: ${message}`);
    this.status = status;
    this.code = code;
    this.detail = message;
    this.receipt = receipt; // a refusal judged on the match: its signed refusal receipt
    this.retryAfter = retryAfter; // seconds, when the service said when to come back
  }
}

// a read refused for the caller's read rate (429 rate_limited) waits as long as the
// service says, at most this often, before the page shows the refusal
const RATE_RETRIES = 3;
const RATE_WAIT_MAX_S = 10;

function authHeaders(token) {
  // the token travels only in a header, never in a URL
  return token ? { Authorization: `Bearer ${token}` } : {};
}

function pause(seconds, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, seconds * 1000);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

async function request(path, options = {}) {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await requestOnce(path, options);
    } catch (error) {
      const read = (options.method ?? "GET") === "GET";
      const limited = error instanceof ApiError && error.code === "rate_limited";
      if (!read || !limited || attempt >= RATE_RETRIES) throw error;
      await pause(Math.min(error.retryAfter ?? 1, RATE_WAIT_MAX_S), options.signal);
    }
  }
}

async function requestOnce(path, { token, method = "GET", body, raw, signal } = {}) {
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
    const retryAfter = Number(response.headers.get("Retry-After")) || null;
    throw new ApiError(response.status, code, String(message), data?.receipt ?? null, retryAfter);
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
