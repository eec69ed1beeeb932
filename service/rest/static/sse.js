// Server-Sent Events over fetch(), so a seat's stream can carry its token in
// an Authorization header (EventSource cannot send headers). Reconnects with
// Last-Event-ID after a drop, so no event is missed or repeated.

import { authHeaders } from "./api.js";

/**
 * Follow `url` until `stop()` is called. `onEvent({id, type, data})` gets each
 * event; `onState("open" | "retrying" | "closed")` reports the connection.
 */
export function followEvents(url, { token, lastId = null, onEvent, onState = () => {} }) {
  const controller = new AbortController();
  let stopped = false;
  let retryMs = 1000;

  async function connectOnce() {
    const headers = { Accept: "text/event-stream", ...authHeaders(token) };
    if (lastId !== null) headers["Last-Event-ID"] = String(lastId);
    const response = await fetch(url, { headers, signal: controller.signal, cache: "no-store" });
    if (!response.ok || !response.body) {
      const error = new Error(`stream answered ${response.status}`);
      error.status = response.status;
      throw error;
    }
    onState("open");
    retryMs = 1000;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        dispatch(block);
      }
    }
  }

  function dispatch(block) {
    let id = null;
    let type = "message";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue; // comments keep the connection alive
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "id") id = value;
      else if (field === "event") type = value;
      else if (field === "data") data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) retryMs = Number(value);
    }
    if (id !== null) lastId = id;
    if (!data.length) return;
    let parsed;
    try {
      parsed = JSON.parse(data.join("\n"));
    } catch {
      parsed = data.join("\n");
    }
    onEvent({ id, type, data: parsed });
  }

  (async () => {
    while (!stopped) {
      try {
        await connectOnce();
      } catch (error) {
        if (stopped || error.name === "AbortError") break;
        if (error.status && error.status >= 400 && error.status < 500) {
          onState("closed", error);
          return; // a wrong token or match will not get better by retrying
        }
      }
      if (stopped) break;
      onState("retrying");
      await new Promise((resolve) => setTimeout(resolve, retryMs));
      retryMs = Math.min(retryMs * 2, 15000);
    }
    onState("closed");
  })();

  return {
    stop() {
      stopped = true;
      controller.abort();
    },
    get lastId() {
      return lastId;
    },
  };
}
