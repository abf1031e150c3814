// The join card: a nick field and a Play button. It remembers the last nick
// on this browser, stays disabled until the game has loaded, and shows why a
// join failed in the words explainJoinError chose.
const NICK_STORAGE_KEY = "forgotten-caves.nick";

export class JoinScreen {
  private readonly form: HTMLFormElement;
  private readonly nick: HTMLInputElement;
  private readonly play: HTMLButtonElement;
  private readonly error: HTMLElement;
  private ready = false;
  private busy = false;

  constructor(doc: Document, onPlay: (nick: string) => void) {
    this.form = doc.getElementById("join") as HTMLFormElement;
    this.nick = doc.getElementById("nick") as HTMLInputElement;
    this.play = doc.getElementById("play") as HTMLButtonElement;
    this.error = doc.getElementById("join-error") as HTMLElement;
    this.nick.value = readStoredNick();
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!this.ready || this.busy) return;
      const nick = this.nick.value.trim();
      storeNick(nick);
      onPlay(nick);
    });
  }

  /** The game has loaded (or failed to: then `ready` stays false and the error says why). */
  setReady(ready: boolean): void {
    this.ready = ready;
    this.refresh();
    if (ready) this.nick.focus();
  }

  /** A join is under way: the button waits. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.play.textContent = busy ? "Joining…" : "Play";
    this.refresh();
  }

  showError(message: string): void {
    this.error.textContent = message;
  }

  show(): void {
    this.form.hidden = false;
    this.nick.focus();
  }

  hide(): void {
    this.form.hidden = true;
    this.error.textContent = "";
  }

  private refresh(): void {
    this.play.disabled = !this.ready || this.busy;
    this.nick.disabled = this.busy;
  }
}

function readStoredNick(): string {
  try {
    return localStorage.getItem(NICK_STORAGE_KEY) ?? "";
  } catch {
    return ""; // storage can be off (privacy settings); the field just starts empty
  }
}

function storeNick(nick: string): void {
  try {
    localStorage.setItem(NICK_STORAGE_KEY, nick);
  } catch {
    // not remembered; nothing else depends on it
  }
}
