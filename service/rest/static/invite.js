// Taking an invited seat: the secret came in the link's fragment; it goes to
// the service once, in a POST body, and comes back as this tab's seat token.

import { api, requestId } from "./api.js";
import { $ } from "./dom.js";
import { keepReceipts } from "./receipts.js";

let pending = null; // the form's one listener, replaced per invite

export function acceptInvite(id, secret, onSeated) {
  const form = $("invite-form");
  const error = $("invite-error");
  error.textContent = "";
  if (pending) form.removeEventListener("submit", pending);
  pending = null;
  if (!id || !secret) {
    $("invite-about").textContent = "This invite link has been used in this tab, or is incomplete. Ask for a new one.";
    form.hidden = true;
    return;
  }
  form.hidden = false;
  $("invite-about").textContent = `A seat at table ${id} is waiting for you.`;
  // one id for every try of this exchange: a lost reply retried gets the same seat
  const retry = requestId();
  pending = async (event) => {
    event.preventDefault();
    error.textContent = "";
    $("invite-take").setAttribute("aria-disabled", "true");
    try {
      const taken = await api.takeSeat(id, secret, $("invite-name").value.trim(), retry);
      form.removeEventListener("submit", pending);
      pending = null;
      keepReceipts(id, taken.receipts);
      onSeated(taken.seat_token, taken.seat);
    } catch (failure) {
      keepReceipts(id, [failure.receipt]);
      const reason = {
        seat_taken: "Someone has already taken this seat with this link.",
        permission_denied: "This link is not a valid invite to this table.",
        already_started: "The match has started without this seat.",
      }[failure.code] ?? failure.detail ?? failure.message;
      error.textContent = `Could not take the seat (${failure.code}): ${reason}`;
    } finally {
      $("invite-take").setAttribute("aria-disabled", "false");
    }
  };
  form.addEventListener("submit", pending);
  $("invite-name").focus();
}
