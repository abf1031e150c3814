// The join card: play as a guest (a nick), log in (account name and password) or
// register (account name, password and nick). It remembers the last nick and
// account name on this browser — never the password, which goes only into the
// HTTP(S) request — stays disabled until the game has loaded, and shows why a
// join failed in the words explainJoinError chose. The player picks a look (the
// tunics of ts/appearance.ts, shown as their sprites once the art has loaded),
// remembered here too; a guest and a new account always say it, a login only
// when it was changed on the card, so a new browser does not repaint an account.
import { PLAYER_LOOKS, isPlayerLook } from "../../appearance.js";
import type { AccountRequest } from "../core/account-api.js";

export type JoinMode = "guest" | "login" | "register";
export type JoinRequest =
  { readonly kind: "guest"; readonly nick: string; readonly appearance?: number } | AccountRequest;

const NICK_STORAGE_KEY = "forgotten-caves.nick";
const LOOK_STORAGE_KEY = "forgotten-caves.look";
const ACCOUNT_STORAGE_KEY = "forgotten-caves.account";
const MODES: readonly JoinMode[] = ["guest", "login", "register"];
const SUBMIT_LABELS: Readonly<Record<JoinMode, string>> = { guest: "Play", login: "Log in", register: "Register" };

/** What the fields say, as a request (trimmed), or why it cannot be sent yet. */
export function joinRequestOf(
  mode: JoinMode,
  fields: { nick: string; name: string; password: string; appearance?: number; lookChanged?: boolean },
): JoinRequest | string {
  const nick = fields.nick.trim();
  const name = fields.name.trim();
  const appearance = fields.appearance;
  if (mode === "guest") return { kind: "guest", nick, appearance };
  if (name === "") return "Enter your account name.";
  if (fields.password === "") return "Enter your password.";
  if (mode === "login") {
    const login = { kind: "login", name, password: fields.password } as const;
    return fields.lookChanged === true ? { ...login, appearance } : login;
  }
  if (nick === "") return "Choose the name others will see in the caves.";
  return { kind: "register", name, password: fields.password, nick, appearance };
}

export class JoinScreen {
  private readonly form: HTMLFormElement;
  private readonly nick: HTMLInputElement;
  private readonly accountName: HTMLInputElement;
  private readonly password: HTMLInputElement;
  private readonly play: HTMLButtonElement;
  private readonly error: HTMLElement;
  private readonly modeButtons: Map<JoinMode, HTMLButtonElement>;
  private readonly lookButtons: HTMLButtonElement[] = [];
  private look: number;
  private lookChanged = false;
  private mode: JoinMode = "guest";
  private ready = false;
  private busy = false;

  constructor(doc: Document, onJoin: (request: JoinRequest) => void) {
    this.form = doc.getElementById("join") as HTMLFormElement;
    this.nick = doc.getElementById("nick") as HTMLInputElement;
    this.accountName = doc.getElementById("account-name") as HTMLInputElement;
    this.password = doc.getElementById("password") as HTMLInputElement;
    this.play = doc.getElementById("play") as HTMLButtonElement;
    this.error = doc.getElementById("join-error") as HTMLElement;
    this.modeButtons = new Map(MODES.map((mode) => [mode, doc.getElementById(`mode-${mode}`) as HTMLButtonElement]));
    this.nick.value = readStored(NICK_STORAGE_KEY);
    this.accountName.value = readStored(ACCOUNT_STORAGE_KEY);
    const storedLook = Number.parseInt(readStored(LOOK_STORAGE_KEY), 10);
    this.look = isPlayerLook(storedLook) ? storedLook : 0;
    const looks = doc.getElementById("looks");
    PLAYER_LOOKS.forEach((name, index) => {
      const button = doc.createElement("button");
      button.type = "button";
      button.className = "join-look";
      button.dataset.testid = `look-${name}`;
      button.setAttribute("role", "radio");
      button.setAttribute("aria-label", name);
      button.title = name;
      button.textContent = name;
      button.addEventListener("click", () => this.chooseLook(index));
      looks?.append(button);
      this.lookButtons.push(button);
    });
    this.chooseLook(this.look, false);
    for (const [mode, button] of this.modeButtons) button.addEventListener("click", () => this.setMode(mode));
    this.setMode("guest", false);
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      if (!this.ready || this.busy) return;
      const request = joinRequestOf(this.mode, {
        nick: this.nick.value,
        name: this.accountName.value,
        password: this.password.value,
        appearance: this.look,
        lookChanged: this.lookChanged,
      });
      if (typeof request === "string") return this.showError(request);
      store(LOOK_STORAGE_KEY, String(this.look));
      if (request.kind !== "login") store(NICK_STORAGE_KEY, request.nick);
      if (request.kind !== "guest") store(ACCOUNT_STORAGE_KEY, request.name);
      onJoin(request);
    });
  }

  /** Picks look `index` (a click on its button); `byPlayer` false for the remembered one at start. */
  chooseLook(index: number, byPlayer = true): void {
    this.look = index;
    if (byPlayer) this.lookChanged = true;
    this.lookButtons.forEach((button, each) => button.setAttribute("aria-checked", String(each === index)));
  }

  /** Shows each look as its sprite (`cells[i]` for look i) once the art has loaded; the names stay as labels. */
  setLookImages(cells: readonly HTMLCanvasElement[]): void {
    this.lookButtons.forEach((button, index) => {
      const image = cells[index];
      if (image) button.replaceChildren(image);
    });
  }

  /** Guest, login or register: shows that mode's fields. */
  setMode(mode: JoinMode, focus = true): void {
    this.mode = mode;
    this.form.dataset.mode = mode;
    for (const [each, button] of this.modeButtons) button.setAttribute("aria-selected", String(each === mode));
    for (const field of this.form.querySelectorAll<HTMLElement>("[data-modes]")) {
      field.hidden = !field.dataset.modes!.split(" ").includes(mode);
    }
    this.password.autocomplete = mode === "register" ? "new-password" : "current-password";
    this.showError("");
    this.refresh();
    if (focus) this.firstField().focus();
  }

  /** The game has loaded (or failed to: then `ready` stays false and the error says why). */
  setReady(ready: boolean): void {
    this.ready = ready;
    this.refresh();
    if (ready) this.firstField().focus();
  }

  /** A join is under way: the button waits. */
  setBusy(busy: boolean): void {
    this.busy = busy;
    this.refresh();
  }

  showError(message: string): void {
    this.error.textContent = message;
  }

  show(): void {
    this.form.hidden = false;
    this.firstField().focus();
  }

  hide(): void {
    this.form.hidden = true;
    this.error.textContent = "";
    this.password.value = "";
  }

  private firstField(): HTMLInputElement {
    return this.mode === "guest" ? this.nick : this.accountName;
  }

  private refresh(): void {
    this.play.disabled = !this.ready || this.busy;
    this.play.textContent = this.busy ? "Joining…" : SUBMIT_LABELS[this.mode];
    for (const input of [this.nick, this.accountName, this.password]) input.disabled = this.busy;
    for (const button of this.modeButtons.values()) button.disabled = this.busy;
    for (const button of this.lookButtons) button.disabled = this.busy;
  }
}

function readStored(key: string): string {
  try {
    return localStorage.getItem(key) ?? "";
  } catch {
    return ""; // storage can be off (privacy settings); the field just starts empty
  }
}

function store(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // not remembered; nothing else depends on it
  }
}
