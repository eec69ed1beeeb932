// Getting a seat back: "this seat's link" carries the seat token in the URL
// fragment (never sent to the server, as invite links do), shown only when the
// player opens it, so it can be kept and opened in any tab or on any device.
// Leaving the seat asks first: the token is then gone from this tab.

import { $ } from "./dom.js";

/** The link that seats whoever opens it: #/seat/<match id>/<token>. */
export function seatLink(id, token) {
  return new URL(`#/seat/${encodeURIComponent(id)}/${encodeURIComponent(token)}`, location.href).href;
}

/** A seat token typed in the token box, or a whole seat link pasted there. */
export function tokenFromInput(text) {
  const found = text.match(/#\/seat\/[^/?#]+\/([^/?#]+)$/);
  return found ? decodeURIComponent(found[1]) : text;
}

/** Copy a field's text: the clipboard API where allowed, else the selection. */
async function copyField(field, status) {
  try {
    await navigator.clipboard.writeText(field.value);
    status.textContent = "Copied.";
  } catch {
    field.focus();
    field.select();
    status.textContent = document.execCommand?.("copy") ? "Copied." : "Selected: copy it with Ctrl+C.";
  }
}

/** Wire a read-only field and its Copy button once (invites and the seat's link). */
export function copyButton(button, field, status) {
  button.addEventListener("click", () => copyField(field, status));
}

export class SeatKeeper {
  /** `leave()` is called once the player has said yes. */
  constructor({ token, id, leave }) {
    this.token = () => token();
    this.id = id;
    this.leave = leave;
    const box = $("seat-link-box");
    box.addEventListener("toggle", () => this.toggled());
    copyButton($("seat-link-copy"), $("seat-link"), $("seat-link-status"));
    $("leave-seat").addEventListener("click", () => this.ask());
    $("leave-no").addEventListener("click", () => this.cancel());
    $("leave-yes").addEventListener("click", () => {
      this.reset();
      this.leave();
    });
  }

  /** The link's text is in the page only while its box is open. */
  toggled() {
    const box = $("seat-link-box");
    const token = this.token();
    const id = this.id();
    $("seat-link").value = box.open && token && id ? seatLink(id, token) : "";
    $("seat-link-status").textContent = "";
  }

  ask() {
    $("leave-confirm").hidden = false;
    $("leave-seat").setAttribute("aria-expanded", "true");
    $("leave-no").focus();
  }

  cancel() {
    $("leave-confirm").hidden = true;
    $("leave-seat").setAttribute("aria-expanded", "false");
    $("leave-seat").focus();
  }

  /** A new seat or none: the box closed, the question put away. */
  reset() {
    $("seat-link-box").open = false;
    $("seat-link").value = "";
    $("seat-link-status").textContent = "";
    $("leave-confirm").hidden = true;
    $("leave-seat").setAttribute("aria-expanded", "false");
  }
}
