// The player's account in this browser: sign up (the key is shown once and kept in
// localStorage, never in a URL), sign out (forget the key), rotate the key, and
// "Play rated": queue in the arena until seated, then play the seat as any other.

import { api } from "./api.js";
import { $ } from "./dom.js";

export const PLAYER_KEY = "daifugo:player-key";

export class AccountPage {
  constructor(onSeated) {
    this.onSeated = onSeated; // (match id, seat token)
    this.queueing = null; // an AbortController while queued
    $("signup-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.signUp();
    });
    $("sign-out").addEventListener("click", () => this.signOut());
    $("rotate-key").addEventListener("click", () => this.rotate());
    $("play-rated").addEventListener("click", () => this.playRated());
    $("leave-queue").addEventListener("click", () => this.leaveQueue());
  }

  key() {
    return localStorage.getItem(PLAYER_KEY);
  }

  async open() {
    $("account-error").textContent = "";
    $("new-key").hidden = true;
    await this.show();
  }

  async show() {
    const key = this.key();
    $("signup-form").hidden = Boolean(key);
    // shown once the key's name is known: never "signed in as" nobody, or as the last player
    $("signed-in").hidden = true;
    $("signed-in-name").textContent = "";
    if (!key) return;
    try {
      const me = await api.me(key);
      $("signed-in-name").textContent = me.name;
      $("signed-in").hidden = false;
    } catch (error) {
      if (error.code === "unauthenticated") {
        localStorage.removeItem(PLAYER_KEY); // rotated elsewhere, or never valid
        $("account-error").textContent = "This browser's player key is no longer valid: sign up again, or paste a key.";
        await this.show();
      } else {
        $("account-error").textContent = `Could not check the key: ${error.message}`;
        $("signed-in").hidden = false; // the key may still be good: it can be used or dropped
      }
    }
  }

  async signUp() {
    const name = $("signup-name").value.trim();
    const error = $("account-error");
    error.textContent = "";
    try {
      const made = await api.signUp(name);
      this.keep(made.key);
    } catch (failure) {
      error.textContent = `Not registered (${failure.code}): ${failure.detail ?? failure.message}`;
      $("signup-name").focus();
      return;
    }
    $("signup-name").value = "";
    await this.show();
  }

  keep(key) {
    localStorage.setItem(PLAYER_KEY, key);
    $("new-key-value").textContent = key;
    $("new-key").hidden = false;
    $("new-key-title").focus();
  }

  async rotate() {
    try {
      const made = await api.rotateKey(this.key());
      this.keep(made.key);
    } catch (failure) {
      $("account-error").textContent = `No new key (${failure.code}): ${failure.detail ?? failure.message}`;
    }
  }

  signOut() {
    this.leaveQueue();
    localStorage.removeItem(PLAYER_KEY);
    $("new-key").hidden = true;
    $("new-key-value").textContent = "";
    this.show();
    $("signup-name").focus();
  }

  async playRated() {
    const key = this.key();
    if (!key || this.queueing) return;
    const pool = $("rated-pool").value;
    const status = $("queue-status");
    this.queueing = new AbortController();
    $("play-rated").hidden = true;
    $("leave-queue").hidden = false;
    status.textContent = `Waiting for a rated table in ${pool}…`;
    try {
      for (;;) {
        const seated = await api.queue(key, pool, this.queueing.signal);
        if (seated && seated.match_id) {
          status.textContent = `Seated at seat ${seated.seat + 1}.`;
          this.stopQueue();
          this.onSeated(seated.match_id, seated.token);
          return;
        }
      }
    } catch (failure) {
      if (failure.name !== "AbortError") status.textContent = `Not queued (${failure.code}): ${failure.detail ?? failure.message}`;
      this.stopQueue();
    }
  }

  leaveQueue() {
    if (!this.queueing) return;
    this.queueing.abort();
    $("queue-status").textContent = "You left the queue.";
  }

  stopQueue() {
    this.queueing = null;
    $("play-rated").hidden = false;
    $("leave-queue").hidden = true;
  }
}
