// The features layered on the movement core (docs/client.md § Chat, dialogs and
// custom messages): chat, dialogs, custom messages, the interaction trigger,
// the combat feed and items.
// Each has its own module; this one routes the packets of types 9, 10, 13, 16,
// 18, 19 (combat), 22 (item results) and 23 (the world clock) to them, runs their re-send timers from GameClient.update,
// and starts them over when a reconnect begins a new session (their numbers and
// ids are per session). Everything they send goes through the ChannelLink, i.e.
// GameClient.sendDatagram.
import type { PacketView } from "../../protocol/packet.js";
import type { ChannelLink } from "./channel-link.js";
import { ChatDelivery } from "./chat.js";
import { CombatFeed } from "./combat.js";
import { CustomRegistry } from "./custom.js";
import { DialogState } from "./dialogs.js";
import { InteractionQueries } from "./interaction.js";
import { WorldClockView } from "./world-clock.js";
import { type ItemSight, ItemState } from "./items.js";
import { ProgressView } from "./progress.js";
import { QuestLog } from "./quests.js";
import { PartyView } from "./party.js";

export class ClientFeatures {
  readonly chat: ChatDelivery;
  readonly dialogs: DialogState;
  readonly custom: CustomRegistry;
  readonly interaction: InteractionQueries;
  readonly combat = new CombatFeed();
  readonly worldClock = new WorldClockView();
  readonly items: ItemState;
  readonly quests = new QuestLog();
  readonly party = new PartyView();
  /** The player's level and experience (progress.ts): its own entries and its own detail. */
  readonly progress = new ProgressView();

  constructor(link: ChannelLink, sight: ItemSight, onHandlerError?: (error: unknown, subtype: number) => void) {
    this.chat = new ChatDelivery(link);
    this.dialogs = new DialogState(link);
    this.custom = new CustomRegistry(link, onHandlerError);
    this.interaction = new InteractionQueries(link);
    this.items = new ItemState(link, sight);
  }

  /** Handles a server packet of a layered feature; false for anything else (and custom subtypes nobody handles). */
  receive(packet: PacketView, nowMs: number): boolean {
    switch (packet.type) {
      case "chat":
        this.chat.receiveLine(packet);
        return true;
      case "chat_post_ack":
        this.chat.receivePostAck(packet, nowMs);
        return true;
      case "dialog":
        this.interaction.dialogArrived();
        this.dialogs.receiveDialog(packet, nowMs);
        return true;
      case "dialog_close":
        this.dialogs.receiveClose(packet);
        return true;
      case "custom_to_client":
        return this.custom.dispatch(packet);
      case "combat":
        this.combat.receive(packet, nowMs);
        return true;
      case "world_clock":
        this.worldClock.receive(packet);
        return true;
      case "item_result":
        this.items.receiveResult(packet);
        return true;
      default:
        return false;
    }
  }

  update(nowMs: number): void {
    this.chat.update(nowMs);
    this.dialogs.update(nowMs);
    this.interaction.update(nowMs);
    // The own entries show a level the own detail does not: its push was lost, so it is asked for again.
    if (this.progress.takeStale()) this.items.refresh(nowMs);
    this.items.update(nowMs);
  }

  /** A new session began (reconnect). */
  reset(): void {
    this.chat.reset();
    this.dialogs.reset();
    this.interaction.reset();
    this.worldClock.reset();
    this.items.reset();
    this.quests.reset();
    this.party.reset();
    this.progress.reset();
  }
}
