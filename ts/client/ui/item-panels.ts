// The item windows in the page (docs/client.md § Items): the bag (I key or the
// Bag button) with its 20 slots and the weapon and armor slots, and the window
// of the chest the player opened, listing its stacks with Take and Take all.
// HTML over the canvas, like the dialogs, because slots must be buttons the
// keyboard reaches (Tab, Enter) and a finger can tap on a 390-px-wide phone,
// and tooltips are the browser's own.
//
// A slot pressed is selected: the line under the grid says what it is, with
// its numbers, and offers its actions (Equip, Unequip, Use, Drop, Put in chest,
// Move; Move then takes the next slot pressed as the target). A mouse can also
// drag a stack onto another slot (move), onto the chest (put) or a chest row
// onto the bag (take). Nothing changes on the client until the server's detail
// says so: a refusal is said in words in the message log.
//
// Keys while the game or an item window has the focus: I opens and closes the
// bag, T takes everything from the open chest, Escape closes the windows.
import type { GameClient } from "../core/game-client.js";
import { itemName, type ItemDef } from "../core/item-catalogue.js";
import { type Container, type ItemEvent, SLOT_ARMOR, SLOT_WEAPON, stackIn } from "../core/items.js";
import { KEY_BINDINGS } from "../input.js";
import { itemSpriteCell } from "../render/item-sprites.js";
import {
  ACTION_LABELS,
  bagActions,
  gaveUpText,
  itemStatusText,
  type SlotAction,
  slotLabel,
  stackTooltip,
} from "./item-words.js";
import type { TileImages } from "./tile-images.js";

export interface ItemPanelParts {
  client: GameClient;
  /** Where the windows and the Bag button go (a layer over the page). */
  layer: HTMLElement;
  /** The sprite sheet as pictures (item icons). */
  sprites: TileImages;
  /** Where focus goes back to when a window closes (the canvas). */
  home: HTMLElement;
  /** Adds a line to the message log. */
  note(text: string, bad: boolean): void;
}

/** The drag payload: a bag slot or a chest slot. */
type Dragged = { from: "bag"; slot: number } | { from: "chest"; slot: number };

export class ItemPanels {
  private readonly client: GameClient;
  private readonly doc: Document;
  private readonly catalogue: ReadonlyMap<number, ItemDef>;
  private readonly button: HTMLButtonElement;
  private readonly bag: HTMLElement;
  private readonly bagBody: HTMLElement;
  private readonly chestWindow: HTMLElement;
  private readonly chestBody: HTMLElement;
  private readonly chestTitle: HTMLElement;
  private selected: number | null = null;
  /** A Move was pressed: the next slot pressed is where the selected stack goes. */
  private moving = false;
  private dragged: Dragged | null = null;
  private readonly detach: (() => void)[] = [];

  constructor(private readonly parts: ItemPanelParts) {
    this.client = parts.client;
    this.doc = parts.layer.ownerDocument;
    this.catalogue = parts.client.itemCatalogue;
    this.button = this.element("button", "bag-button", "Bag");
    this.button.type = "button";
    this.button.dataset.testid = "bag-button";
    this.button.title = "Your bag (I)";
    this.button.setAttribute("aria-expanded", "false");
    this.button.addEventListener("click", () => this.toggleBag());
    this.bag = this.window("bag", "Bag", () => this.closeBag());
    this.bagBody = this.element("div", "items-body");
    this.bag.append(this.bagBody);
    this.chestWindow = this.window("chest", "Chest", () => this.client.items.closeChest());
    this.chestTitle = this.chestWindow.querySelector(".items-title")!;
    this.chestBody = this.element("div", "items-body");
    this.chestWindow.append(this.chestBody);
    this.chestBody.addEventListener("dragover", (event) => this.dragged?.from === "bag" && event.preventDefault());
    this.chestBody.addEventListener("drop", (event) => {
      event.preventDefault();
      const chest = this.client.items.chest;
      if (this.dragged?.from === "bag" && chest) this.send(this.client.put(chest.entityId, this.dragged.slot));
      this.dragged = null;
    });
    parts.layer.append(this.button, this.bag, this.chestWindow);
    this.detach.push(this.client.items.listen((event) => this.onEvent(event)));
    const onKey = (event: Event): void => this.key(event as KeyboardEvent);
    this.doc.defaultView!.addEventListener("keydown", onKey);
    this.detach.push(() => this.doc.defaultView!.removeEventListener("keydown", onKey));
    this.renderBag();
  }

  stop(): void {
    for (const undo of this.detach.splice(0)) undo();
    this.button.remove();
    this.bag.remove();
    this.chestWindow.remove();
  }

  get bagOpen(): boolean {
    return !this.bag.hidden;
  }

  toggleBag(): void {
    if (this.bagOpen) this.closeBag();
    else this.openBag();
  }

  openBag(): void {
    this.bag.hidden = false;
    this.button.setAttribute("aria-expanded", "true");
    this.renderBag();
    // Keyboard play: the first slot takes the focus, so Tab and Enter reach everything from here.
    this.bagBody.querySelector<HTMLElement>(".item-slot")?.focus();
  }

  closeBag(): void {
    if (this.bag.hidden) return;
    const hadFocus = this.bag.contains(this.doc.activeElement);
    this.bag.hidden = true;
    this.button.setAttribute("aria-expanded", "false");
    this.selected = null;
    this.moving = false;
    if (hadFocus) this.parts.home.focus();
  }

  private onEvent(event: ItemEvent): void {
    switch (event.kind) {
      case "inventory":
        return this.renderBag();
      case "chest-opened":
        this.chestWindow.hidden = false;
        this.renderChest(event.chest);
        // A chest opened is worked from the bag too (put), and from the keyboard (Take all has the focus).
        if (!this.bagOpen) {
          this.bag.hidden = false;
          this.button.setAttribute("aria-expanded", "true");
        }
        this.renderBag();
        this.chestBody.querySelector<HTMLElement>("[data-testid='chest-take-all']")?.focus();
        return;
      case "chest-changed":
        return this.renderChest(event.chest);
      case "chest-closed": {
        const hadFocus = this.chestWindow.contains(this.doc.activeElement);
        this.chestWindow.hidden = true;
        this.chestBody.replaceChildren();
        this.renderBag();
        if (hadFocus) (this.bagOpen ? this.bagBody.querySelector<HTMLElement>(".item-slot") : this.parts.home)?.focus();
        if (event.by === "walked-away") this.parts.note("You walk away from the chest.", false);
        return;
      }
      case "result": {
        const text = itemStatusText(event.request.op, event.status);
        if (text) this.parts.note(text, true);
        return;
      }
      case "gave-up":
        return this.parts.note(gaveUpText(event.request, event.by), true);
    }
  }

  /** Keys for the game view and the item windows; in a text field every key is the field's. */
  private key(event: KeyboardEvent): void {
    if (event.ctrlKey || event.metaKey || event.altKey || event.repeat || !this.keysAreOurs()) return;
    const binding = KEY_BINDINGS[event.code];
    if (binding?.kind !== "command") return;
    if (binding.command === "inventory") {
      event.preventDefault();
      this.toggleBag();
    } else if (binding.command === "take-all") {
      const chest = this.client.items.chest;
      if (!chest) return;
      event.preventDefault();
      this.send(this.client.takeAll(chest.entityId));
    } else if (binding.command === "cancel" && (this.bagOpen || this.client.items.chest)) {
      if (this.moving) {
        this.moving = false;
        return this.renderBag();
      }
      this.client.items.closeChest();
      this.closeBag();
    }
  }

  private keysAreOurs(): boolean {
    const active = this.doc.activeElement;
    if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return false;
    return (
      active === null ||
      active === this.doc.body ||
      active === this.parts.home ||
      this.bag.contains(active) ||
      this.chestWindow.contains(active) ||
      active === this.button
    );
  }

  /** A request was refused before it went out (too many in flight). */
  private send(requestId: number | null): void {
    if (requestId === null) this.parts.note("Wait a moment: the server has not answered yet.", true);
  }

  // ── the bag ────────────────────────────────────────────────────────────────

  private renderBag(): void {
    if (this.bag.hidden) return;
    const inventory = this.client.items.inventory;
    const body = this.bagBody;
    // Keyboard play: a re-drawn bag keeps the focus on the slot (or the action's slot) it was on.
    const focused = body.contains(this.doc.activeElement) ? this.doc.activeElement : null;
    const focusSlot = focused
      ? (focused.closest<HTMLElement>("[data-slot]")?.dataset.slot ?? String(this.selected ?? 0))
      : null;
    body.replaceChildren();
    if (!inventory) {
      body.append(this.element("p", "items-empty", "Looking in your bag…"));
      return;
    }
    if (this.selected !== null && !stackIn(inventory, this.selected)) {
      this.selected = null;
      this.moving = false;
    }
    const equipment = this.element("div", "items-equipment");
    equipment.append(this.slot(inventory, SLOT_WEAPON, "Weapon"), this.slot(inventory, SLOT_ARMOR, "Armor"));
    const grid = this.element("div", "items-grid");
    for (let slot = 0; slot < inventory.capacity; slot++) grid.append(this.slot(inventory, slot, null));
    body.append(equipment, grid, this.details(inventory));
    if (focusSlot !== null) body.querySelector<HTMLElement>(`[data-slot="${focusSlot}"]`)?.focus();
  }

  private slot(inventory: Container, slot: number, caption: string | null): HTMLElement {
    const stack = stackIn(inventory, slot);
    const button = this.element("button", "item-slot");
    button.type = "button";
    button.dataset.testid =
      slot === SLOT_WEAPON ? "bag-weapon" : slot === SLOT_ARMOR ? "bag-armor" : `bag-slot-${slot}`;
    button.dataset.slot = String(slot);
    if (stack) {
      button.dataset.itemId = String(stack.itemId);
      button.title = stackTooltip(this.catalogue, stack);
      button.append(this.icon(stack.itemId));
      if (stack.count > 1) button.append(this.element("span", "item-count", String(stack.count)));
      button.draggable = true;
      button.addEventListener("dragstart", () => (this.dragged = { from: "bag", slot }));
    } else button.title = caption ?? "empty";
    if (caption) button.append(this.element("span", "item-caption", caption));
    button.setAttribute("aria-label", `${slotLabel(slot)}: ${stack ? stackTooltip(this.catalogue, stack) : "empty"}`);
    button.setAttribute("aria-pressed", String(this.selected === slot));
    if (this.moving && this.selected !== null) button.classList.add("item-target");
    button.addEventListener("click", () => this.press(slot));
    button.addEventListener("dragover", (event) => this.dragged && event.preventDefault());
    button.addEventListener("drop", (event) => {
      event.preventDefault();
      const dragged = this.dragged;
      this.dragged = null;
      if (dragged?.from === "bag" && dragged.slot !== slot) this.send(this.client.move(dragged.slot, slot));
      const chest = this.client.items.chest;
      if (dragged?.from === "chest" && chest) this.send(this.client.take(chest.entityId, dragged.slot));
    });
    return button;
  }

  /** A slot was pressed: the target of a Move, or the stack to work with. */
  private press(slot: number): void {
    if (this.moving && this.selected !== null) {
      const from = this.selected;
      this.moving = false;
      this.selected = null;
      if (from !== slot) this.send(this.client.move(from, slot));
      return this.renderBag();
    }
    const has = stackIn(this.client.items.inventory, slot) !== undefined;
    this.selected = has && this.selected !== slot ? slot : null;
    this.renderBag();
    this.bagBody.querySelector<HTMLElement>(`[data-slot="${slot}"]`)?.focus();
  }

  /** The line under the grid: what the selected stack is, and what it can do. */
  private details(inventory: Container): HTMLElement {
    const box = this.element("div", "items-details");
    box.dataset.testid = "bag-details";
    const stack = this.selected === null ? undefined : stackIn(inventory, this.selected);
    if (!stack) {
      const used = inventory.stacks.filter((candidate) => candidate.slot < inventory.capacity).length;
      box.append(this.element("p", "items-hint", `${used} of ${inventory.capacity} slots used. Press a slot.`));
      return box;
    }
    if (this.moving) {
      box.append(this.element("p", "items-hint", `Move ${itemName(this.catalogue, stack.itemId)} to which slot?`));
      return box;
    }
    box.append(this.element("p", "items-what", stackTooltip(this.catalogue, stack)));
    const actions = this.element("div", "items-actions");
    for (const action of bagActions(stack.slot, this.catalogue.get(stack.itemId), this.client.items.chest !== null)) {
      const button = this.element("button", "item-action", ACTION_LABELS[action]);
      button.type = "button";
      button.dataset.testid = `item-action-${action}`;
      button.addEventListener("click", () => this.act(action, stack.slot));
      actions.append(button);
    }
    box.append(actions);
    return box;
  }

  private act(action: SlotAction, slot: number): void {
    const client = this.client;
    const chest = client.items.chest;
    switch (action) {
      case "equip":
        return this.send(client.equip(slot));
      case "unequip":
        return this.send(client.unequip(slot));
      case "use":
        return this.send(client.use(slot));
      case "drop":
        return this.send(client.drop(slot));
      case "put":
        return chest ? this.send(client.put(chest.entityId, slot)) : undefined;
      case "move":
        this.moving = true;
        this.renderBag();
        this.bagBody.querySelector<HTMLElement>(".item-slot")?.focus();
        return;
      case "take":
        return;
    }
  }

  // ── the chest ──────────────────────────────────────────────────────────────

  private renderChest(chest: Container): void {
    this.chestTitle.textContent = this.client.names.get(chest.entityId) ?? "Chest";
    const body = this.chestBody;
    const hadFocus = body.contains(this.doc.activeElement);
    body.replaceChildren();
    const list = this.element("ul", "chest-list");
    for (const stack of chest.stacks) {
      const row = this.element("li", "chest-row");
      row.dataset.testid = `chest-row-${stack.slot}`;
      row.dataset.itemId = String(stack.itemId);
      row.title = stackTooltip(this.catalogue, stack);
      row.draggable = true;
      row.addEventListener("dragstart", () => (this.dragged = { from: "chest", slot: stack.slot }));
      const take = this.element("button", "item-action", "Take");
      take.type = "button";
      take.dataset.testid = `chest-take-${stack.slot}`;
      take.setAttribute("aria-label", `Take ${stackTooltip(this.catalogue, stack)}`);
      take.addEventListener("click", () => this.send(this.client.take(chest.entityId, stack.slot)));
      row.append(
        this.icon(stack.itemId),
        this.element("span", "chest-what", stackTooltip(this.catalogue, stack)),
        take,
      );
      list.append(row);
    }
    if (chest.stacks.length === 0) body.append(this.element("p", "items-empty", "It is empty."));
    else body.append(list);
    const takeAll = this.element("button", "item-action", "Take all (T)");
    takeAll.type = "button";
    takeAll.dataset.testid = "chest-take-all";
    takeAll.disabled = chest.stacks.length === 0;
    takeAll.addEventListener("click", () => this.send(this.client.takeAll(chest.entityId)));
    body.append(takeAll);
    // A Take pressed from the keyboard re-draws the list: the focus stays in the window, on the first Take.
    if (hadFocus) (body.querySelector<HTMLElement>(".chest-row .item-action") ?? takeAll).focus();
  }

  // ── building blocks ────────────────────────────────────────────────────────

  private window(id: string, title: string, close: () => void): HTMLElement {
    const root = this.element("section", "items-window");
    root.dataset.testid = id;
    root.hidden = true;
    root.setAttribute("aria-label", title);
    const head = this.element("div", "items-head");
    const heading = this.element("h2", "items-title", title);
    const closer = this.element("button", "items-close", "×");
    closer.type = "button";
    closer.dataset.testid = `${id}-close`;
    closer.setAttribute("aria-label", `Close the ${title.toLowerCase()}`);
    closer.addEventListener("click", close);
    head.append(heading, closer);
    root.append(head);
    return root;
  }

  private icon(itemId: number): HTMLCanvasElement {
    const canvas = this.parts.sprites.cell(this.doc, itemSpriteCell(this.catalogue.get(itemId)?.sprite ?? ""));
    canvas.className = "item-icon";
    return canvas;
  }

  private element<K extends keyof HTMLElementTagNameMap>(
    tag: K,
    className: string,
    text?: string,
  ): HTMLElementTagNameMap[K] {
    const element = this.doc.createElement(tag);
    element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  }
}
