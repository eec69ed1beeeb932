// The host's panel on a table not yet started: the invite links to pass on
// (each a field with a Copy button), who has sat down, and Start once every seat is taken.

import { api, requestId } from "./api.js";
import { $ } from "./dom.js";
import { keepReceipts } from "./receipts.js";
import { copyButton } from "./seatlink.js";

export const hostKey = (id) => `daifugo:host:${id}`;

export class HostPanel {
  constructor(id, hosted, match) {
    this.id = id;
    this.hosted = hosted;
    this.onStart = () => this.start();
    this.onBot = () => this.seatBot();
    $("host-start").addEventListener("click", this.onStart);
    $("host-bot").addEventListener("click", this.onBot);
    $("host-error").textContent = "";
    this.render(match.names ?? [], match.state);
  }

  stop() {
    $("host-start").removeEventListener("click", this.onStart);
    $("host-bot").removeEventListener("click", this.onBot);
    $("host-panel").hidden = true;
  }

  /** A fresh spectator view or seat view: re-draw who is still missing. */
  update(data) {
    if (data.names) this.render(data.names, data.state);
  }

  render(names, state) {
    // drawn again only when it shows something new: a fresh list would take the
    // focus from a Copy button, and its "Copied." with it, at every view that arrives
    const shown = JSON.stringify([state, this.hosted.invites.map((invite) => names[invite.seat] ?? null)]);
    if (shown === this.shown) return;
    this.shown = shown;
    const panel = $("host-panel");
    if (state && state !== "open") {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    const open = this.hosted.invites.filter((invite) => !names[invite.seat]);
    const list = $("host-invites");
    list.replaceChildren(
      ...this.hosted.invites.map((invite) => {
        const item = document.createElement("li");
        const taken = Boolean(names[invite.seat]);
        item.dataset.seat = invite.seat;
        item.dataset.taken = String(taken);
        const label = document.createElement("label");
        const field = document.createElement("input");
        field.id = `invite-link-${invite.seat}`;
        label.htmlFor = field.id;
        label.textContent = taken ? `Seat ${invite.seat}: taken by ${names[invite.seat]}` : `Invite link for seat ${invite.seat}`;
        field.readOnly = true;
        field.value = new URL(invite.link, location.origin).href;
        field.className = "invite-link";
        field.hidden = taken;
        field.addEventListener("focus", () => field.select());
        const copy = document.createElement("button");
        copy.type = "button";
        copy.id = `invite-copy-${invite.seat}`;
        copy.textContent = "Copy";
        copy.setAttribute("aria-label", `Copy the invite link for seat ${invite.seat}`);
        copy.hidden = taken;
        const status = document.createElement("span");
        status.className = "hint";
        status.setAttribute("role", "status");
        copyButton(copy, field, status);
        const row = document.createElement("div");
        row.className = "inline copy-row";
        row.append(field, copy, status);
        item.append(label, row);
        return item;
      }),
    );
    const autoStart = this.hosted.body?.auto_start;
    $("host-status").textContent = open.length
      ? `Waiting for ${open.length} ${open.length === 1 ? "player" : "players"}. Send each an invite link: it seats whoever opens it first.${autoStart ? " The match starts once every seat is taken." : ""}`
      : "Every seat is taken.";
    $("host-start").hidden = open.length > 0 || autoStart;
    $("host-bot-row").hidden = open.length === 0;
  }

  async seatBot() {
    $("host-error").textContent = "";
    try {
      const kind = $("host-bot-kind").value;
      const seated = await api.seatBot(this.id, this.hosted.hostToken, kind, requestId());
      keepReceipts(this.id, seated.receipts);
    } catch (failure) {
      keepReceipts(this.id, [failure.receipt]);
      $("host-error").textContent = `Could not seat a bot (${failure.code}): ${failure.detail}`;
    }
  }

  async start() {
    $("host-error").textContent = "";
    try {
      const started = await api.start(this.id, this.hosted.hostToken);
      keepReceipts(this.id, [started.receipt]);
    } catch (failure) {
      keepReceipts(this.id, [failure.receipt]);
      $("host-error").textContent = `Could not start (${failure.code}): ${failure.detail}`;
    }
  }
}
