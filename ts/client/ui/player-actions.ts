// What a player can do with another (issue 39): tell, invite to a party, trade — each a chat command
// (docs/social.md), offered beside each nick in the who-is-online list and in the menu a click on a
// player on the map opens. One set of buttons for both, so they say and do the same.

/** Each action is a chat command. */
export interface PlayerActions {
  /** Sends a finished command ("/invite Ada"). */
  post(line: string): void;
  /** Opens the chat box with a command to finish ("/tell Ada "). */
  draft(line: string): void;
}

/** How a nick is written in a command: in quotes when it holds a space (docs/social.md). */
export function commandNick(nick: string): string {
  return nick.includes(" ") ? `"${nick}"` : nick;
}

/**
 * The Tell, Invite and Trade buttons for `nick`; `done` runs after any of them acted (a menu closes).
 * Each has the class `className` and the test id `<prefix>-tell` (-invite, -trade).
 */
export function playerActionButtons(
  doc: Document,
  nick: string,
  actions: PlayerActions,
  options: { className: string; testIdPrefix: string; done?: () => void },
): HTMLButtonElement[] {
  const named = commandNick(nick);
  const button = (label: string, act: () => void) => {
    const pressed = doc.createElement("button");
    pressed.type = "button";
    pressed.className = options.className;
    pressed.textContent = label;
    pressed.dataset.testid = `${options.testIdPrefix}-${label.toLowerCase()}`;
    pressed.setAttribute("aria-label", `${label} ${nick}`);
    pressed.addEventListener("click", () => {
      act();
      options.done?.();
    });
    return pressed;
  };
  return [
    button("Tell", () => actions.draft(`/tell ${named} `)),
    button("Invite", () => actions.post(`/invite ${named}`)),
    button("Trade", () => actions.post(`/trade ${named}`)),
  ];
}
