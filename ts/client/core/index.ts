// The client's networking core (docs/netcode.md): DOM-free and Node-free, shared
// by the browser client and the headless bots. Start at GameClient.
export { GameClient, connectGuest, DEFAULT_GAME_CLIENT_OPTIONS } from "./game-client.js";
export type {
  GameClientConfig,
  GameClientOptions,
  GuestConnection,
  MakeTransport,
  ReconnectFn,
  SetGoalOptions,
  AttackRefusal,
} from "./game-client.js";
export type { CombatFeed, CombatNotice } from "./combat.js";
export type { Transport, TransportName, DatagramHandler } from "./transport.js";
export {
  fetchWorld,
  fetchMapArt,
  gatewayBaseUrl,
  joinGuest,
  parseToken,
  SessionError,
  tileFlagsTable,
  type FetchFn,
  type GuestSession,
  type MapArtInfo,
  type WorldInfo,
  type WorldTile,
} from "./session-api.js";
export { signedTransport } from "./signed-transport.js";
export type { ConnectionState } from "./connection.js";
export type { ClientStats } from "./stats.js";
export type { EntityInfo } from "./entity-table.js";
export type { CachedChunk, ChunkCache } from "./chunk-cache.js";
export type { GoalResult } from "./planner.js";
export type { PendingStep, TilePoint } from "./prediction.js";
export { impairTransport } from "./impaired-transport.js";
export { connectAccount, joinAccount, type AccountRequest } from "./account-api.js";
export { chatTextProblem, CHAT_OUTBOX_MAX, CHAT_RESEND_MS, type ChatEvent, type PostResult } from "./chat.js";
export type { ChatDelivery } from "./chat.js";
export {
  dialogInputs,
  dialogValueProblem,
  DIALOG_REPLY_RESEND_MS,
  type DialogEvent,
  type DialogState,
  type ShownDialog,
} from "./dialogs.js";
export type { CustomMessageHandler } from "./custom.js";
export {
  itemName,
  itemNumbers,
  itemsById,
  parseItems,
  stackText,
  ITEM_KINDS,
  type ItemDef,
  type ItemKind,
} from "./item-catalogue.js";
export {
  isEquipmentSlot,
  stackIn,
  ITEM_GIVE_UP_MS,
  ITEM_RESEND_MS,
  SLOT_ARMOR,
  SLOT_WEAPON,
  type Container,
  type ItemEvent,
  type ItemOp,
  type ItemRequestInfo,
  type ItemStack,
  type ItemState,
  type ItemStatus,
} from "./items.js";
export { chebyshev, isInteractable, INTERACT_REACH_TILES, type InteractRefusal } from "./interaction.js";
export { connectSpectator, joinSpectator, type SpectateRequest, type SpectatorSession } from "./spectate-api.js";
export { CameraFeed, CAMERA_REPEAT_MS, CAMERA_SEND_MIN_MS, type CameraLink } from "./camera-feed.js";
