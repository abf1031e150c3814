// The chat input: a one-line field over the bottom of the game view. Enter (with
// the game focused) opens it, Enter sends and closes, Escape closes and keeps the
// draft; clicking elsewhere closes it too. While it has focus every key belongs to
// it (the play session's keyboard stands aside for a focused text field), so
// typing never moves the player, and while it is closed it takes no key at all.
// A line over 200 bytes of UTF-8 is refused here with the count shown; the line
// goes to GameClient.postChat, which re-sends it until the server acknowledges it.
import type { PostResult } from "../core/chat.js";
import { chatTextProblem } from "../core/chat.js";
import { CHAT_TEXT_MAX_BYTES } from "../../protocol/chat-post.js";
import { utf8ByteLength } from "../../protocol/text.js";
import { chatInputProblem } from "./chat-log.js";

export class ChatBox {
  constructor(
    private readonly form: HTMLFormElement,
    private readonly input: HTMLInputElement,
    private readonly note: HTMLElement,
    private readonly send: (text: string) => PostResult,
    /** Where focus returns when the box closes (the canvas). */
    private readonly home: HTMLElement,
  ) {
    form.hidden = true;
    form.addEventListener("submit", (event) => event.preventDefault());
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === "Escape") {
        // Handled here: the page's own Enter (open the chat) and Escape (drop the route) must not see it.
        event.preventDefault();
        event.stopPropagation();
        if (event.key === "Enter" && !event.isComposing) this.submit();
        else if (event.key === "Escape") this.close();
      }
    });
    input.addEventListener("input", () => this.showCount());
    input.addEventListener("blur", () => this.close(false));
  }

  get isOpen(): boolean {
    return !this.form.hidden;
  }

  open(): void {
    this.form.hidden = false;
    this.showCount();
    this.input.focus();
  }

  /** Opens the box with `draft` in it, the caret after it ("/tell Ada " from the who-is-online list). */
  openWith(draft: string): void {
    this.input.value = draft;
    this.open();
    this.input.setSelectionRange(draft.length, draft.length);
  }

  /** Hides the box, keeping the draft; `refocus` gives the keys back to the game. */
  close(refocus = true): void {
    if (this.form.hidden) return;
    this.form.hidden = true;
    if (refocus) this.home.focus();
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (text === "") return this.close();
    const problem = chatTextProblem(text);
    const result = problem ?? this.send(text);
    if (result === "sent") {
      this.input.value = "";
      this.close();
      return;
    }
    this.showNote(chatInputProblem(result, utf8ByteLength(text)), true);
  }

  private showCount(): void {
    const bytes = utf8ByteLength(this.input.value.trim());
    const over = bytes > CHAT_TEXT_MAX_BYTES;
    this.input.setAttribute("aria-invalid", String(over));
    this.showNote(over ? chatInputProblem("too_long", bytes) : `${Math.max(0, bytes)}/${CHAT_TEXT_MAX_BYTES}`, over);
  }

  private showNote(text: string, bad: boolean): void {
    this.note.textContent = text;
    this.note.dataset.level = bad ? "bad" : "info";
  }
}
