// One entry point per direction over all packet types: decodePacket checks
// the header and dispatches on packet_type; encodePacket dispatches on `type`.
import { ACTION_LAYOUT, type ActionPacket, decodeActionBody, encodeAction } from "./action.js";
import { CHAT_ACK_LAYOUT, type ChatAckPacket, decodeChatAckBody, encodeChatAck } from "./chat-ack.js";
import {
  CHAT_POST_ACK_LAYOUT,
  type ChatPostAckPacket,
  decodeChatPostAckBody,
  encodeChatPostAck,
} from "./chat-post-ack.js";
import { CHAT_POST_LAYOUT, type ChatPostPacket, decodeChatPostBody, encodeChatPost } from "./chat-post.js";
import { CHAT_LAYOUT, type ChatPacket, decodeChatBody, encodeChat } from "./chat.js";
import {
  CHUNK_LAYOUT,
  type ChunkPacket,
  type ChunkView,
  chunkViewToPacket,
  decodeChunkBody,
  encodeChunk,
} from "./chunk.js";
import {
  CHUNK_WIDE_LAYOUT,
  type ChunkWidePacket,
  type ChunkWideView,
  chunkWideViewToPacket,
  decodeChunkWideBody,
  encodeChunkWide,
} from "./chunk-wide.js";
import {
  CUSTOM_TO_CLIENT_LAYOUT,
  CUSTOM_TO_SERVER_LAYOUT,
  type CustomToClientPacket,
  type CustomToServerPacket,
  decodeCustomToClientBody,
  decodeCustomToServerBody,
  encodeCustomToClient,
  encodeCustomToServer,
} from "./custom.js";
import { DIALOG_ACK_LAYOUT, type DialogAckPacket, decodeDialogAckBody, encodeDialogAck } from "./dialog-ack.js";
import {
  DIALOG_CLOSE_LAYOUT,
  type DialogClosePacket,
  decodeDialogCloseBody,
  encodeDialogClose,
} from "./dialog-close.js";
import {
  DIALOG_REPLY_LAYOUT,
  type DialogReplyPacket,
  decodeDialogReplyBody,
  encodeDialogReply,
} from "./dialog-reply.js";
import { DIALOG_LAYOUT, type DialogPacket, decodeDialogBody, encodeDialog } from "./dialog.js";
import {
  ENTITY_DETAIL_LAYOUT,
  type EntityDetailPacket,
  type EntityDetailView,
  decodeEntityDetailBody,
  encodeEntityDetail,
  entityDetailViewToPacket,
} from "./entity-detail.js";
import {
  ENTITY_QUERY_LAYOUT,
  type EntityQueryPacket,
  decodeEntityQueryBody,
  encodeEntityQuery,
} from "./entity-query.js";
import {
  ENTITY_LAYOUT,
  type EntityPacket,
  type EntityView,
  decodeEntityBody,
  encodeEntity,
  entityViewToPacket,
} from "./entity.js";
import { COMBAT_LAYOUT, type CombatPacket, decodeCombatBody, encodeCombat } from "./combat.js";
import {
  ITEM_REQUEST_LAYOUT,
  type ItemRequestPacket,
  decodeItemRequestBody,
  encodeItemRequest,
} from "./item-request.js";
import { ITEM_RESULT_LAYOUT, type ItemResultPacket, decodeItemResultBody, encodeItemResult } from "./item-result.js";
import { WORLD_CLOCK_LAYOUT, type WorldClockPacket, decodeWorldClockBody, encodeWorldClock } from "./world-clock.js";
import {
  COMPACT_ACK_LAYOUT,
  ENTITY_ACK_LAYOUT,
  type CompactAckPacket,
  type EntityAckPacket,
  decodeEntityAckBody,
  encodeEntityAck,
} from "./entity-ack.js";
import {
  STATE_DELTA_COMPACT_LAYOUT,
  type StateDeltaCompactPacket,
  type StateDeltaCompactView,
  decodeStateDeltaCompactBody,
  encodeStateDeltaCompact,
} from "./state-delta-compact.js";
import { LEAVE_LAYOUT, type LeavePacket, decodeLeaveBody, encodeLeave } from "./leave.js";
import { CAMERA_LAYOUT, type CameraPacket, decodeCameraBody, encodeCamera } from "./camera.js";
import {
  STATE_DELTA_LAYOUT,
  type StateDeltaPacket,
  type StateDeltaView,
  decodeStateDeltaBody,
  encodeStateDelta,
} from "./state-delta.js";
import { type DecodeResult, EncodeError } from "./errors.js";
import {
  MAX_DATAGRAM_BYTES,
  PACKET_ACTION,
  PACKET_CHAT,
  PACKET_CHAT_ACK,
  PACKET_CHAT_POST,
  PACKET_CHAT_POST_ACK,
  PACKET_CHUNK,
  PACKET_CUSTOM_TO_CLIENT,
  PACKET_CHUNK_WIDE,
  PACKET_CUSTOM_TO_SERVER,
  PACKET_DIALOG,
  PACKET_DIALOG_ACK,
  PACKET_DIALOG_CLOSE,
  PACKET_DIALOG_REPLY,
  PACKET_ENTITY,
  PACKET_ENTITY_DETAIL,
  PACKET_ENTITY_QUERY,
  PACKET_ITEM_REQUEST,
  PACKET_ITEM_RESULT,
  PACKET_WORLD_CLOCK,
  PACKET_ENTITY_ACK,
  PACKET_STATE_DELTA,
  PACKET_COMPACT_ACK,
  PACKET_STATE_DELTA_COMPACT,
  PACKET_LEAVE,
  PACKET_CAMERA,
  PACKET_PING,
  PACKET_PONG,
  PACKET_STATE,
  PACKET_TILE_UPDATE,
  PACKET_TYPE_NAMES,
  checkHeader,
  readPacketType,
} from "./header.js";
import type { Layout } from "./layout.js";
import { PING_LAYOUT, type PingPacket, decodePingBody, encodePing } from "./ping.js";
import { STATE_LAYOUT, type StatePacket, decodeStateBody, encodeState } from "./state.js";
import { TILE_UPDATE_LAYOUT, type TileUpdatePacket, decodeTileUpdateBody, encodeTileUpdate } from "./tile-update.js";

/**
 * The layout of every packet type, indexed by wire id (Ping and Pong share
 * one): what the packet tool and tests walk to name fields without
 * restating them.
 */
export const PACKET_LAYOUTS: readonly Layout[] = [
  STATE_LAYOUT,
  ACTION_LAYOUT,
  CHUNK_LAYOUT,
  ENTITY_LAYOUT,
  ENTITY_QUERY_LAYOUT,
  ENTITY_DETAIL_LAYOUT,
  PING_LAYOUT,
  PING_LAYOUT,
  CHAT_POST_LAYOUT,
  CHAT_POST_ACK_LAYOUT,
  CHAT_LAYOUT,
  CHAT_ACK_LAYOUT,
  TILE_UPDATE_LAYOUT,
  DIALOG_LAYOUT,
  DIALOG_ACK_LAYOUT,
  DIALOG_REPLY_LAYOUT,
  DIALOG_CLOSE_LAYOUT,
  CUSTOM_TO_SERVER_LAYOUT,
  CUSTOM_TO_CLIENT_LAYOUT,
  COMBAT_LAYOUT,
  CHUNK_WIDE_LAYOUT,
  ITEM_REQUEST_LAYOUT,
  ITEM_RESULT_LAYOUT,
  WORLD_CLOCK_LAYOUT,
  ENTITY_ACK_LAYOUT,
  STATE_DELTA_LAYOUT,
  COMPACT_ACK_LAYOUT,
  STATE_DELTA_COMPACT_LAYOUT,
  LEAVE_LAYOUT,
  CAMERA_LAYOUT,
];
if (PACKET_LAYOUTS.length !== PACKET_TYPE_NAMES.length) {
  throw new Error(`PACKET_LAYOUTS has ${PACKET_LAYOUTS.length} layouts for ${PACKET_TYPE_NAMES.length} packet types`);
}

/** Packets decoded to plain objects by decodePacket as well (no views: they are small and rare). */
export type GamePacket =
  | ChatPostPacket
  | ChatPostAckPacket
  | ChatPacket
  | ChatAckPacket
  | TileUpdatePacket
  | DialogPacket
  | DialogAckPacket
  | DialogReplyPacket
  | DialogClosePacket
  | CustomToServerPacket
  | CustomToClientPacket
  | CombatPacket
  | ItemRequestPacket
  | ItemResultPacket
  | WorldClockPacket
  | EntityAckPacket
  | CompactAckPacket
  | LeavePacket
  | CameraPacket;

/** Plain packets: what encodePacket takes and decodePacketPlain returns. */
export type Packet =
  | StatePacket
  | ActionPacket
  | ChunkPacket
  | ChunkWidePacket
  | EntityPacket
  | EntityQueryPacket
  | EntityDetailPacket
  | PingPacket
  | StateDeltaPacket
  | StateDeltaCompactPacket
  | GamePacket;

/**
 * Decoded packets; chunk, entity and entity_detail hold views into the
 * datagram, and a custom packet's payload is a subarray of it.
 */
export type PacketView =
  | StatePacket
  | ActionPacket
  | ChunkView
  | ChunkWideView
  | EntityView
  | EntityQueryPacket
  | EntityDetailView
  | PingPacket
  | StateDeltaView
  | StateDeltaCompactView
  | GamePacket;

/**
 * Decodes one datagram. Never throws and never reads outside `bytes` (which
 * may be a subarray of a larger buffer). Views in the result alias `bytes`:
 * copy what you keep before the buffer is reused.
 */
export function decodePacket(bytes: Uint8Array): DecodeResult<PacketView> {
  const error = checkHeader(bytes);
  if (error !== null) return { ok: false, error };
  switch (readPacketType(bytes)) {
    case PACKET_STATE:
      return decodeStateBody(bytes);
    case PACKET_ACTION:
      return decodeActionBody(bytes);
    case PACKET_CHUNK:
      return decodeChunkBody(bytes);
    case PACKET_ENTITY:
      return decodeEntityBody(bytes);
    case PACKET_ENTITY_QUERY:
      return decodeEntityQueryBody(bytes);
    case PACKET_ENTITY_DETAIL:
      return decodeEntityDetailBody(bytes);
    case PACKET_PING:
    case PACKET_PONG:
      return decodePingBody(bytes);
    case PACKET_CHAT_POST:
      return decodeChatPostBody(bytes);
    case PACKET_CHAT_POST_ACK:
      return decodeChatPostAckBody(bytes);
    case PACKET_CHAT:
      return decodeChatBody(bytes);
    case PACKET_CHAT_ACK:
      return decodeChatAckBody(bytes);
    case PACKET_TILE_UPDATE:
      return decodeTileUpdateBody(bytes);
    case PACKET_DIALOG:
      return decodeDialogBody(bytes);
    case PACKET_DIALOG_ACK:
      return decodeDialogAckBody(bytes);
    case PACKET_DIALOG_REPLY:
      return decodeDialogReplyBody(bytes);
    case PACKET_DIALOG_CLOSE:
      return decodeDialogCloseBody(bytes);
    case PACKET_CUSTOM_TO_SERVER:
      return decodeCustomToServerBody(bytes);
    case PACKET_CUSTOM_TO_CLIENT:
      return decodeCustomToClientBody(bytes);
    case PACKET_CHUNK_WIDE:
      return decodeChunkWideBody(bytes);
    case PACKET_ITEM_REQUEST:
      return decodeItemRequestBody(bytes);
    case PACKET_ITEM_RESULT:
      return decodeItemResultBody(bytes);
    case PACKET_WORLD_CLOCK:
      return decodeWorldClockBody(bytes);
    case PACKET_ENTITY_ACK:
    case PACKET_COMPACT_ACK:
      return decodeEntityAckBody(bytes);
    case PACKET_STATE_DELTA:
      return decodeStateDeltaBody(bytes);
    case PACKET_STATE_DELTA_COMPACT:
      return decodeStateDeltaCompactBody(bytes);
    case PACKET_LEAVE:
      return decodeLeaveBody(bytes);
    case PACKET_CAMERA:
      return decodeCameraBody(bytes);
    default: // checkHeader admitted only PACKET_COMBAT beyond this point
      return decodeCombatBody(bytes);
  }
}

/** Plain copy of a decoded packet, independent of the datagram's buffer. */
export function viewToPacket(view: PacketView): Packet {
  switch (view.type) {
    case "chunk":
      return chunkViewToPacket(view);
    case "chunk_wide":
      return chunkWideViewToPacket(view);
    case "entity":
      return entityViewToPacket(view);
    case "entity_detail":
      return entityDetailViewToPacket(view);
    case "custom_to_server":
    case "custom_to_client":
      return { ...view, payload: view.payload.slice() };
    case "state_delta":
      return { ...view, delta: view.delta.slice() };
    case "state_delta_compact":
      return { ...view, versions: [...view.versions], delta: view.delta.slice() };
    default:
      return view;
  }
}

/** decodePacket followed by viewToPacket: for tools and tests. */
export function decodePacketPlain(bytes: Uint8Array): DecodeResult<Packet> {
  const result = decodePacket(bytes);
  return result.ok ? { ok: true, packet: viewToPacket(result.packet) } : result;
}

/** Writes any packet at `offset`; returns bytes written (never more than 1200). Throws EncodeError. */
export function encodePacket(packet: Packet, out: Uint8Array, offset = 0): number {
  switch (packet.type) {
    case "state":
      return encodeState(packet, out, offset);
    case "action":
      return encodeAction(packet, out, offset);
    case "chunk":
      return encodeChunk(packet, out, offset);
    case "chunk_wide":
      return encodeChunkWide(packet, out, offset);
    case "entity":
      return encodeEntity(packet, out, offset);
    case "entity_query":
      return encodeEntityQuery(packet, out, offset);
    case "entity_detail":
      return encodeEntityDetail(packet, out, offset);
    case "ping":
    case "pong":
      return encodePing(packet, out, offset);
    case "chat_post":
      return encodeChatPost(packet, out, offset);
    case "chat_post_ack":
      return encodeChatPostAck(packet, out, offset);
    case "chat":
      return encodeChat(packet, out, offset);
    case "chat_ack":
      return encodeChatAck(packet, out, offset);
    case "tile_update":
      return encodeTileUpdate(packet, out, offset);
    case "dialog":
      return encodeDialog(packet, out, offset);
    case "dialog_ack":
      return encodeDialogAck(packet, out, offset);
    case "dialog_reply":
      return encodeDialogReply(packet, out, offset);
    case "dialog_close":
      return encodeDialogClose(packet, out, offset);
    case "custom_to_server":
      return encodeCustomToServer(packet, out, offset);
    case "custom_to_client":
      return encodeCustomToClient(packet, out, offset);
    case "combat":
      return encodeCombat(packet, out, offset);
    case "item_request":
      return encodeItemRequest(packet, out, offset);
    case "item_result":
      return encodeItemResult(packet, out, offset);
    case "world_clock":
      return encodeWorldClock(packet, out, offset);
    case "entity_ack":
    case "compact_ack":
      return encodeEntityAck(packet, out, offset);
    case "state_delta":
      return encodeStateDelta(packet, out, offset);
    case "state_delta_compact":
      return encodeStateDeltaCompact(packet, out, offset);
    case "leave":
      return encodeLeave(packet, out, offset);
    case "camera":
      return encodeCamera(packet, out, offset);
    default:
      throw new EncodeError("out_of_range", `unknown packet type ${String((packet as { type: unknown }).type)}`);
  }
}

/** encodePacket into a fresh array of exactly the packet's length. */
export function encodePacketToBytes(packet: Packet): Uint8Array {
  const buffer = new Uint8Array(MAX_DATAGRAM_BYTES);
  return buffer.slice(0, encodePacket(packet, buffer, 0));
}
