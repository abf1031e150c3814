// Load generator for the server-scale benchmark: N wandering bots in one
// process, each a real protocol client over UDP (its own socket and session; the sockets are read and
// written through native/udp-mmsg where it is built: bench/server/bot-sockets.ts).
// Each bot joins with POST /api/guest, reads State packets to know the tick,
// sends one ActionPacket move intent per movement window (6 per second) for
// the next window in a random direction that changes every 1.5–2.5 s,
// requests the chunks its manifest lists, checks the entity checksum and asks
// for a re-send on a mismatch, and pings once a second like the official
// client; it acknowledges chat messages (join/leave notices) as the official
// client does, so the server does not retransmit them. --idle bots never move
// (the sparse case). --fight bots seek creatures instead (issue 13's load):
// each walks toward the nearest living NPC in its latest entity update and,
// once adjacent, keeps stepping into its tile — which the server turns into an
// attack (bump) — until it dies; with none in view, or stuck on a wall, they
// wander as the others do. Their steps are the same one ActionPacket per window.
// --hall K (the levels suite, issue 15): the first K bots join first, one at a
// time, so they take the first K spawn points — the delve world's walled hall
// (bench/server/world.ts) — and stand there; with --delve they take its stairs
// instead, over and over: each walks to one of the hall's stairs down (another
// than the one it came up by), waits on it while its level is generated, steps
// off the stairs up where it arrives and back onto them, and is back in the hall.
// The hall has more stairs than the server has level slots, so levels keep being
// generated, put into the world and dropped for as long as the delvers run.
// --talk (the content suite, issue 38): bots that talk to the creatures content
// scripts talk for (flagged is_interactable) as a player does — each wanders, and
// when such a creature is in its latest entity update and it has not talked for a
// few seconds (ts/bots/talk.ts: 3–6 s), walks up to it, sends the EntityQuery that
// is "talk to it" from beside it (re-sent like the official client's until its
// detail or a dialog comes), stands while a dialog is read (0.3–1.2 s, DialogAck
// "shown" at once), presses one of its buttons (a DialogReply, re-sent until the
// DialogClose, which it acknowledges), and wanders on. With none in view, or stuck
// on a wall, it wanders as the others do.
// --social N (the social suite, issue 39): the first N bots (a multiple of 4) join
// before the others, so they take the social world's camps (bench/server/world.ts
// `social`; each finds its seat by the spawn point it was placed on), and play together as bench/server/social.ts says: each takes what its
// chest holds, the camp forms a party (/invite, Join), neighbours trade (/trade,
// /offer, Confirm) and every social bot talks at chat's rate limit (public lines,
// /tell, /p). They stand at their camp (a trade needs both within 2 tiles). After
// the window they call off open trades and ask for their own and their chest's
// EntityDetail: the census of every camp's items, against what the chests held.
//
// Why not the shared client core (ts/client/core, which ts/bots drives): this
// process must hold 2000 bots on one core (the harness pins it to core 1) so
// that the server, not the load generator, is what the benchmark measures.
// A GameClient brings a wasm Core per bot (about 0.6 MiB resident and ~10 GiB
// of reserved address space each, docs/bots.md) and its per-update work —
// RTT-led scheduling, prediction replays, A*, name lookups — costs 12–40 % of
// a core for 200 bots there, so 2000 would need 1.2 to 4 cores. It would
// also change the traffic being measured: its steps follow the RTT lead and
// the goal, and every bot queries every other player's name (≈ N² EntityQueries
// when N bots join at once). So the bench keeps this thin client, with one
// fixed, documented traffic pattern per bot, but it writes no packet layout or
// window arithmetic of its own: packets go through the protocol library's
// encoders and decoders (ts/protocol) and windows through ts/window.ts.
//
// usage: node --import tsx bench/server/bots.ts --http http://127.0.0.1:PORT --count N
//        [--warmup S] [--measure S] [--idle | --fight] [--deltas] [--compact] [--seed N] [--wait-go] [--first N]
//        [--hall K [--delve]] [--talk] [--social N] [--udp-backend auto|mmsg|dgram] [--socket-set on|off]
//        [--set-interval-ms N]
// --deltas: each bot asks for entity deltas (P-21) — it acknowledges the lists it verifies
// (EntityAckPacket) and applies each StateDeltaPacket to its baseline. --compact (implies --deltas):
// the compact form (P-25) as the official client asks by default — CompactAckPackets, and
// StateDeltaCompactPackets applied the same way.
// stdout: JSON lines {"event":"joined"|"measure-start"|"measure-end"|"result", ...}
import { type UdpBackend, UDP_BACKENDS } from "../../ts/server/transports/udp-transport.js";
import { type BotSocket, DEFAULT_SET_INTERVAL_MS, botSocketFactory } from "./bot-sockets.js";
import { parseArgs } from "node:util";
import { TICK_HZ } from "../../ts/constants.js";
import {
  ACTION_BYTES,
  ACTION_MAX,
  ACTION_N,
  ACTION_NOOP,
  CHAT_ACK_BYTES,
  type ChatAckPacket,
  type ChunkEntry,
  CLIENT_TYPE_OFFICIAL,
  ENTITY_CHECKSUM_START,
  PACKET_STATE,
  STATE_BYTES,
  type StatePacket,
  checkHeader,
  createStatePacket,
  readPacketType,
  readStateFields,
  MANIFEST_ENTRIES,
  PING_BYTES,
  createActionPacket,
  decodePacket,
  encodeAction,
  encodeChatAck,
  encodePing,
  entityChecksumUpdate,
  ENTITY_ACK_BYTES,
  ENTITY_ENTRY_LAYOUT,
  EntryList,
  type CompactAckPacket,
  type EntityAckPacket,
  type StateDeltaView,
  expandStateDeltaCompact,
  applyEntityDelta,
  emptyEntryList,
  encodeEntityAck,
  readI16,
  readU16,
  readU32,
  DIALOG_ACK_BYTES,
  DIALOG_RETURN_DISMISSED,
  DIALOG_STATE_CLOSED,
  DIALOG_STATE_SHOWN,
  type DialogPacket,
  ENTITY_QUERY_BYTES,
  MAX_DATAGRAM_BYTES,
  decodeTlvs,
  encodeDialogAck,
  encodeDialogReply,
  encodeEntityQuery,
} from "../../ts/protocol/index.js";
import { isFoe } from "../../ts/combat-rules.js";
import { DIALOG_IDS_REMEMBERED, DIALOG_REPLY_MAX_SENDS, DIALOG_REPLY_RESEND_MS } from "../../ts/client/core/dialogs.js";
import { INTERACT_MAX_TRIES, INTERACT_REACH_TILES, INTERACT_RETRANSMIT_MS } from "../../ts/client/core/interaction.js";
import {
  READ_MS,
  TALK_AGAIN_MS,
  TALK_WAIT_MS,
  dialogChoice,
  dialogValues,
  isTalker,
  within,
} from "../../ts/bots/talk.js";
import { actionFromDelta } from "../../ts/protocol/action.js";
import { EntityCursor } from "../../ts/protocol/entity.js";
import { NO_TARGET_TICK, nextWindowAfter, tickOfWindow, windowPeriodMs } from "../../ts/window.js";
import { mulberry32 } from "../lib/data.js";
import { ENTITY_TYPE_CHEST } from "../../ts/item-types.js";
import { HALL_STAIRS, HALL_TILES, HALL_X, HALL_Y, SOCIAL_CAMP, socialCampCorners } from "./world.js";
import { SocialBot, campCensus, zeroSocialCounts } from "./social.js";
import { IP_UDP_OVERHEAD_BYTES } from "./ip-overhead.js";

const HELP = `usage: node --import tsx bench/server/bots.ts --http http://127.0.0.1:PORT [options]

The server-scale benchmark's load generator (npm run bench runs it; docs/benchmarks.md): N wandering bots
in one process, each a real protocol client over UDP with its own socket and session.

  --http URL     the server's HTTP address (required)
  --count N      bots in this process (default 100)
  --warmup S     seconds after all have joined before the measurement window (default 5)
  --measure S    the window's length in seconds (default 20)
  --idle         bots that never move (the sparse case)
  --fight        bots that seek creatures and attack them
  --talk         bots that talk to the creatures content scripts talk for (is_interactable), as a player does:
                 walk up to one in view, use it every 3-6 s, read the dialog it opens and press a button
  --deltas       ask for entity deltas (P-21); --compact for the compact form (P-25)
  --seed N       the bots' random stream (default 1)
  --udp-backend B  how the bots' sockets are read and written: auto (native/udp-mmsg where it is built, else
                 node:dgram; the default), mmsg (insist on the addon) or dgram (bench/server/bot-sockets.ts)
  --socket-set on|off  with the addon, read every bot's socket through one epoll set (on, the default) or
                 each socket on its own (off)
  --set-interval-ms N  read the epoll set at most once per N ms (default ${DEFAULT_SET_INTERVAL_MS}; 0: at once)
  --first N      the first bot's number (nicks are bot<N>): several processes on one server (default 0)
  --wait-go      after joining, wait for "go" on stdin before the warm-up (several processes in step)
  --hall K       the first K bots take the delve world's hall; --delve: they take its stairs over and over
  --social N     the first N bots (a multiple of 4) take the social world's camps and play together: a party of
                 four, trades with a neighbour, chat at its rate limit (bench/server/social.ts)
  -h, --help     this text

stdout: JSON lines {"event":"joined"|"measure-start"|"measure-end"|"result", ...}
`;

function parseOptions() {
  try {
    return parseArgs({ options: OPTIONS });
  } catch (error) {
    // An unknown option or a missing value: one line and the usage, not a stack.
    process.stderr.write(`bots: ${(error as Error).message}\n\n${HELP}`);
    process.exit(2);
  }
}
const OPTIONS = {
  help: { type: "boolean", short: "h", default: false },
  http: { type: "string" },
  count: { type: "string", default: "100" },
  warmup: { type: "string", default: "5" },
  measure: { type: "string", default: "20" },
  idle: { type: "boolean", default: false },
  fight: { type: "boolean", default: false },
  talk: { type: "boolean", default: false },
  deltas: { type: "boolean", default: false },
  compact: { type: "boolean", default: false },
  seed: { type: "string", default: "1" },
  "udp-backend": { type: "string", default: "auto" },
  "socket-set": { type: "string", default: "on" },
  "set-interval-ms": { type: "string", default: String(DEFAULT_SET_INTERVAL_MS) },
  "wait-go": { type: "boolean", default: false },
  // The first bot's number (nicks are bot<N>): several bot processes on one server need distinct nicks.
  first: { type: "string", default: "0" },
  hall: { type: "string", default: "0" },
  delve: { type: "boolean", default: false },
  social: { type: "string", default: "0" },
} as const;
const { values } = parseOptions();
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (values.http === undefined) {
  process.stderr.write(`bots: --http is required\n\n${HELP}`);
  process.exit(2);
}
const httpBase = values.http;
/** A whole number ≥ 0 (or any number ≥ 0 with `fraction`), else a clear exit naming the option. */
function option(name: "count" | "first" | "warmup" | "measure" | "hall" | "seed" | "social", fraction = false): number {
  const value = Number(values[name]);
  if (!(value >= 0) || (!fraction && !Number.isInteger(value))) {
    process.stderr.write(`bots: --${name} must be a ${fraction ? "" : "whole "}number ≥ 0, got ${values[name]}\n`);
    process.exit(2);
  }
  return value;
}
const count = option("count");
const firstBot = option("first");
const warmupMs = option("warmup", true) * 1000;
const measureMs = option("measure", true) * 1000;
const idle = values.idle!;
const fight = values.fight!;
const talk = values.talk!;
if (talk && (fight || values.idle)) {
  process.stderr.write("bots: --talk walks and talks: it goes with neither --fight nor --idle\n");
  process.exit(2);
}
const compact = values.compact!;
const deltas = values.deltas! || compact;
const hallBots = option("hall");
const udpBackend = values["udp-backend"] as UdpBackend;
if (!UDP_BACKENDS.includes(udpBackend)) {
  process.stderr.write(`bots: --udp-backend must be one of ${UDP_BACKENDS.join(", ")}, got ${udpBackend}\n`);
  process.exit(2);
}
const socketSet = values["socket-set"];
const setIntervalMs = Number(values["set-interval-ms"]);
if ((socketSet !== "on" && socketSet !== "off") || !Number.isInteger(setIntervalMs) || !(setIntervalMs >= 0)) {
  process.stderr.write(
    `bots: --socket-set is on or off and --set-interval-ms a whole number ≥ 0; got ${socketSet}, ${values["set-interval-ms"]}\n`,
  );
  process.exit(2);
}
const sockets = (() => {
  try {
    return botSocketFactory(udpBackend, STATE_BYTES, { enabled: socketSet === "on", intervalMs: setIntervalMs });
  } catch (error) {
    process.stderr.write(`bots: ${(error as Error).message}\n`);
    process.exit(2);
  }
})();
const delve = values.delve!;
const socialBots = option("social");
if (socialBots % 4 !== 0 || socialBots > count || (socialBots > 0 && (hallBots > 0 || talk))) {
  process.stderr.write(
    `bots: --social takes camps of four (a multiple of 4, at most --count), and goes with neither --hall nor --talk; got ${socialBots}\n`,
  );
  process.exit(2);
}
/** Social bots, during the window (bench/server/social.ts SocialCounts). */
const social = zeroSocialCounts();
/** After the window: how long open trades are given to end before the census is asked, and how long it may take. */
const SOCIAL_SETTLE_MS = 2000;
const SOCIAL_CENSUS_MS = 10_000;
/** The camps' seats by spawn point ("x,y" → camp × 4 + member), and the nick seated in each. */
const seats = new Map<string, number>(
  socialCampCorners(socialBots / 4).flatMap((corner, camp) =>
    SOCIAL_CAMP.members.map(
      (member, index) => [`${corner.x + member.x},${corner.y + member.y}`, camp * 4 + index] as const,
    ),
  ),
);
const seatNicks: string[] = [];
/** A delver that stood this long on stairs without going down (every level slot in use) tries other stairs. */
const STAIRS_WAIT_MS = 3000;
/** Windows a delver tries one direction off the stairs up before the next. */
const OFF_TRIES_WINDOWS = 3;
/** Delta bots: verified lists kept as baselines (the server keeps 12), and the gap between acknowledgements. */
const BASELINES_KEPT = 16;
const ENTITY_ACK_INTERVAL_MS = 500;
const ENTRY = ENTITY_ENTRY_LAYOUT.offset;
/** Windows a fighter may step toward its creature without getting nearer before it wanders a while instead. */
const STUCK_WINDOWS = 4;
/** Reused to walk the entries of each EntityPacket (fighters only): no allocation per entry. */
const cursor = new EntityCursor();
const random = mulberry32(option("seed"));
/** One move intent per movement window: 6 per second at the server's 24 Hz. */
const WINDOW_MS = windowPeriodMs(TICK_HZ);
const CHUNK_RETRY_MS = 250;
const HELLO_INTERVAL_MS = 250;
const PING_INTERVAL_MS = 1000;
/** A bot keeps its direction for TURN_AFTER_MIN_MS plus up to TURN_AFTER_SPREAD_MS. */
const TURN_AFTER_MIN_MS = 1500;
const TURN_AFTER_SPREAD_MS = 1000;
/** Chunk versions remembered before those outside the current manifest are forgotten. */
const HELD_CHUNKS_MAX = 32;

/** A random one of the eight step directions, ACTION_N .. ACTION_MAX. */
function randomDirection(): number {
  return ACTION_N + Math.floor(random() * (ACTION_MAX - ACTION_N + 1));
}

function emit(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ event, timeMs: performance.now(), ...fields }) + "\n");
}

interface Counters {
  datagramsIn: number;
  bytesIn: number;
  state: number;
  entity: number;
  chunk: number;
  other: number;
  datagramsOut: number;
  bytesOut: number;
  checksumMismatches: number;
}
const zero = (): Counters => ({
  datagramsIn: 0,
  bytesIn: 0,
  state: 0,
  entity: 0,
  chunk: 0,
  other: 0,
  datagramsOut: 0,
  bytesOut: 0,
  checksumMismatches: 0,
});
let measuring = false;
const totals = zero();
/** Delvers, during the window: arrivals in a level, returns to the hall, stairs given up (no level slot). */
const delves = { descents: 0, returns: 0, gaveUp: 0 };
/**
 * Talkers, during the window: talks begun, EntityQueries sent (re-sends included) and their details received,
 * dialogs shown, buttons pressed (first DialogReplies) and replies re-sent, DialogCloses received for them.
 */
const talks = { talks: 0, queries: 0, details: 0, dialogs: 0, replies: 0, replyResends: 0, closes: 0 };
/** A DialogReply is encoded here, then copied to its bot (it is re-sent until the DialogClose). */
const replyScratch = new Uint8Array(MAX_DATAGRAM_BYTES);

/** Talkers: one conversation at a time — the query that starts it, then the dialog it opens. */
class Conversation {
  /** The creature asked while its query is unanswered (0: none), when the query last went, and how often. */
  queryId = 0;
  querySentMs = 0;
  queryTries = 0;
  /** The dialog being read or answered (0: none) and when its button is pressed. */
  dialogId = 0;
  replyAtMs = 0;
  /** The button chosen and the text inputs' values; the reply's bytes once pressed, and how often sent. */
  returnCode = 0;
  values: string[] = [];
  reply: Uint8Array | null = null;
  replySends = 0;
  lastReplyMs = 0;
  /** Dialogs closed lately: a late copy of one is answered "closed", as the official client does. */
  readonly closed: number[] = [];
}

/** Whether (x, y) lies inside the delve world's hall (on the map; a level lies outside it). */
function inHallInterior(x: number, y: number): boolean {
  return x >= HALL_X && y >= HALL_Y && x < HALL_X + HALL_TILES && y < HALL_Y + HALL_TILES;
}

/** The hall's stairs nearest (x, y). */
function nearestStairs(x: number, y: number): number {
  let best = 0;
  HALL_STAIRS.forEach((stairs, index) => {
    const far = (at: { x: number; y: number }) => Math.max(Math.abs(at.x - x), Math.abs(at.y - y));
    if (far(stairs) < far(HALL_STAIRS[best])) best = index;
  });
  return best;
}
/** Every bot's States are read into this one packet (Bot.receive), each handled before the next is read. */
const stateScratch = createStatePacket();
/** Datagrams received per packet type name ("undecodable" for any that fail to decode), during the window. */
const byType = new Map<string, number>();

class Bot {
  /** Set once its socket is open (start()); nothing is sent before. */
  socket!: BotSocket;
  /** Its place in `bots` and `dueMs`. */
  index = -1;
  readonly action = createActionPacket();
  readonly out = new Uint8Array(ACTION_BYTES);
  /** The Ping never changes (timestamp 0: the bots do not measure RTT), so it is encoded once. */
  readonly pingOut = new Uint8Array(PING_BYTES);
  tick = 0;
  /** The newest State's manifest (chunk id and version per entry; version 0: no chunk there). */
  readonly manifestIds = new Uint32Array(MANIFEST_ENTRIES);
  readonly manifestVersions = new Uint32Array(MANIFEST_ENTRIES);
  /** Whether every chunk that manifest lists was held when last looked: unchanged, it is not looked at again. */
  manifestComplete = false;
  readonly held = new Map<number, number>();
  direction = randomDirection();
  nextTurnMs = 0;
  nextMoveMs = 0;
  nextPingMs = 0;
  lastChunkRequestMs = -Infinity;
  lastHelloMs = -Infinity;
  stateChecksum = ENTITY_CHECKSUM_START;
  heldChecksum = ENTITY_CHECKSUM_START;
  entityTick = -1;
  entityHash = ENTITY_CHECKSUM_START;
  sawState = false;
  /** Fighters: the own entity as of the latest entity update, and the nearest living creature in it. */
  x = 0;
  y = 0;
  foeX = 0;
  foeY = 0;
  foeDistance = Infinity;
  /** The entity tick the foe was found in: a foe from an older update is forgotten. */
  foeTick = -1;
  stuckWindows = 0;
  lastDistance = Infinity;
  /** Whether an entity update has placed the own entity yet (fighters and delvers). */
  placed = false;
  /** Delvers: the hall's stairs walked to (-1: none chosen) and the last one come up by. */
  delveTarget = -1;
  lastStairs = -1;
  /** When it came to stand on its stairs (0: not standing on them). */
  stairsSinceMs = 0;
  /** In a level: where it arrived (the stairs up), and its tries at stepping off them. */
  inLevel = false;
  entryX = 0;
  entryY = 0;
  offWindows = 0;
  offDirection = ACTION_N;
  /** Until then a stuck fighter wanders instead of heading for its foe. */
  wanderUntilMs = 0;
  /** Talkers: the nearest creature to talk to in the latest entity update (distance Infinity: none), and where. */
  talkerId = 0;
  talkerX = 0;
  talkerY = 0;
  talkerDistance = Infinity;
  /** When it talks next; until when it stands (waiting for a dialog, reading one). */
  nextTalkMs = 0;
  standUntilMs = 0;
  readonly conversation = new Conversation();
  /** A social bot's play (role social), else null. */
  readonly social: SocialBot | null;
  readonly queryOut = new Uint8Array(ENTITY_QUERY_BYTES);
  readonly dialogAckOut = new Uint8Array(DIALOG_ACK_BYTES);
  /** The ChatAck sent back, like the official client's: seq is the highest chat message received in order. */
  readonly chatAck: ChatAckPacket;
  readonly chatAckOut = new Uint8Array(CHAT_ACK_BYTES);
  /** Delta bots: the EntityAck sent back, the lists held by tick (oldest first), and the last tick acknowledged. */
  readonly entityAck: EntityAckPacket | CompactAckPacket;
  readonly entityAckOut = new Uint8Array(ENTITY_ACK_BYTES);
  baselines: EntryList[] = [];
  /** The list the next delta is written into (applyEntityDelta's `into`): the one last let go of. */
  spareList = new EntryList();
  ackedTick = -1;
  lastEntityAckMs = -Infinity;

  constructor(
    token: bigint,
    readonly port: number,
    readonly entityId: number,
    nowMs: number,
    /**
     * wander (or fight, or idle, by the flags); stand: a hall bot without --delve; delve: a hall bot with it;
     * social: a social bot (--social), standing at its camp.
     */
    readonly role: "wander" | "stand" | "delve" | "social" = "wander",
    /** A social bot's nick (role social). */
    nick = "",
  ) {
    this.action.authToken = token;
    this.chatAck = { type: "chat_ack", clientType: CLIENT_TYPE_OFFICIAL, authToken: token, seq: 0 };
    this.entityAck = {
      type: compact ? "compact_ack" : "entity_ack",
      clientType: CLIENT_TYPE_OFFICIAL,
      authToken: token,
      tick: 0,
    };
    encodePing({ type: "ping", clientType: CLIENT_TYPE_OFFICIAL, timestampMs: 0n }, this.pingOut, 0);
    this.nextMoveMs = nowMs + random() * WINDOW_MS;
    this.nextPingMs = nowMs + random() * PING_INTERVAL_MS;
    this.nextTurnMs = nowMs + TURN_AFTER_MIN_MS + random() * TURN_AFTER_SPREAD_MS;
    this.social =
      role === "social"
        ? new SocialBot(
            entityId,
            {
              link: { send: (bytes) => this.send(bytes), token: () => token, clientType: CLIENT_TYPE_OFFICIAL },
              nickOf: (index) => seatNicks[index],
              seatAt: (x, y) => seats.get(`${x},${y}`) ?? -1,
              seated: (index) => (seatNicks[index] = nick),
              socialBots,
              random,
              counts: () => (measuring ? social : null),
            },
            nowMs,
          )
        : null;
  }

  send(bytes: Uint8Array): void {
    this.socket.send(bytes);
    if (measuring) {
      totals.datagramsOut++;
      totals.bytesOut += bytes.length + IP_UDP_OVERHEAD_BYTES;
    }
  }

  sendAction(targetTick: number, action: number): void {
    this.action.targetTick = targetTick;
    this.action.action = action;
    const cache = this.action.cache;
    for (let i = 0; i < MANIFEST_ENTRIES; i++) {
      const chunkId = this.manifestIds[i];
      const version = this.held.get(chunkId);
      cache[i].chunkId = chunkId;
      cache[i].version = version !== undefined && version === this.manifestVersions[i] ? version : 0;
    }
    encodeAction(this.action, this.out, 0);
    this.send(this.out);
  }

  /** target_tick 0, NOOP: binds the link, acks the chunk cache (the server sends what is missing). */
  sendCacheAck(): void {
    this.sendAction(NO_TARGET_TICK, ACTION_NOOP);
  }

  /** One datagram from the server (a view its socket may reuse once this returns). */
  receive(bytes: Uint8Array): void {
    if (measuring) {
      totals.datagramsIn++;
      totals.bytesIn += bytes.length + IP_UDP_OVERHEAD_BYTES;
    }
    // States are most of what arrives (12 a second each): read in place by the protocol's own reader, with the
    // checks decodePacket makes, into one packet all bots reuse (decodePacket allocates a packet and its
    // manifest per State). Anything else, or a State that fails a check, goes through decodePacket.
    if (
      bytes.length === STATE_BYTES &&
      checkHeader(bytes) === null &&
      readPacketType(bytes) === PACKET_STATE &&
      readStateFields(bytes, stateScratch) === null
    ) {
      if (measuring) byType.set("state", (byType.get("state") ?? 0) + 1);
      this.onState(stateScratch);
      return;
    }
    const result = decodePacket(bytes);
    if (measuring) {
      const kind = result.ok ? result.packet.type : "undecodable";
      byType.set(kind, (byType.get(kind) ?? 0) + 1);
    }
    if (!result.ok) {
      if (measuring) totals.other++;
      return;
    }
    const packet = result.packet;
    switch (packet.type) {
      case "state_delta":
        if (measuring) totals.state++;
        this.observe(packet);
        this.applyDelta(packet);
        return;
      case "state_delta_compact": {
        if (measuring) totals.state++;
        const delta = expandStateDeltaCompact(packet);
        this.observe(delta);
        this.applyDelta(delta);
        return;
      }
      case "state":
        return this.onState(packet);
      case "entity":
        if (measuring) totals.entity++;
        if (packet.tick !== this.entityTick) {
          this.entityTick = packet.tick;
          this.entityHash = ENTITY_CHECKSUM_START;
        }
        this.entityHash = entityChecksumUpdate(this.entityHash, bytes);
        if (!packet.more) this.heldChecksum = this.entityHash;
        if (fight || talk || this.role === "delve" || this.social) this.findFoe(packet);
        return;
      case "chunk":
        if (measuring) totals.chunk++;
        this.held.set(packet.chunkId, packet.version);
        if (this.held.size > HELD_CHUNKS_MAX) {
          const keep = new Set(this.manifestIds);
          for (const id of this.held.keys()) if (!keep.has(id)) this.held.delete(id);
        }
        return;
      case "dialog":
        if (measuring) totals.other++;
        if (talk) this.onDialog(packet, performance.now());
        this.social?.receiveDialog(packet, performance.now());
        return;
      case "dialog_close":
        if (measuring) totals.other++;
        if (talk) this.onDialogClose(packet.dialogId);
        this.social?.receiveDialogClose(packet);
        return;
      case "chat_post_ack":
        if (measuring) totals.other++;
        this.social?.receivePostAck(packet, performance.now());
        return;
      case "item_result":
        if (measuring) totals.other++;
        this.social?.receiveItemResult(packet);
        return;
      case "entity_detail":
        if (measuring) totals.other++;
        this.social?.receiveDetail(packet.entityId, decodeTlvs(packet.bytes, packet.metaStart, packet.metaEnd));
        if (talk && packet.entityId === this.conversation.queryId) {
          this.conversation.queryId = 0;
          if (measuring) talks.details++;
        }
        return;
      case "chat": {
        // A social bot's lines are shown and acknowledged by its ChatDelivery, as the client's.
        if (this.social) return this.social.receiveChat(packet);
        // Messages below oldestSeq were dropped by the server and will never come: skip past them.
        const ack = this.chatAck;
        ack.seq = Math.max(ack.seq, packet.oldestSeq - 1);
        if (packet.seq === ack.seq + 1) ack.seq = packet.seq;
        encodeChatAck(ack, this.chatAckOut, 0);
        this.send(this.chatAckOut);
        return;
      }
      default:
        if (measuring) totals.other++;
    }
  }

  onState(packet: Omit<StatePacket, "type">): void {
    if (measuring) totals.state++;
    // A delta bot asks for deltas at once: tick 0 names the empty list, so the first delta is the whole view.
    if (deltas && this.ackedTick < 0) this.sendEntityAck(0);
    // The previous broadcast's entities have arrived by now (they follow their State); compare its checksum.
    if (this.sawState && this.stateChecksum !== this.heldChecksum) {
      if (measuring) totals.checksumMismatches++;
      this.sendCacheAck();
    }
    this.observe(packet);
    this.stateChecksum = packet.entityChecksum;
  }

  /**
   * What a State (or a StateDelta's State part) says: the tick, the manifest, and whether chunks are missing.
   * `packet` may be reused once this returns: the manifest is copied.
   */
  observe(packet: { tick: number; chunks: readonly ChunkEntry[] }): void {
    if (!this.sawState) {
      this.sawState = true;
      dueMs[this.index] = 0; // its moves start now
    }
    this.tick = packet.tick;
    const chunks = packet.chunks;
    for (let i = 0; i < MANIFEST_ENTRIES; i++) {
      const entry = chunks[i];
      if (entry.chunkId !== this.manifestIds[i] || entry.version !== this.manifestVersions[i]) {
        this.manifestIds[i] = entry.chunkId;
        this.manifestVersions[i] = entry.version;
        this.manifestComplete = false;
      }
    }
    // Mostly the same manifest as the State before, all of it held: nothing to look up.
    if (this.manifestComplete) return;
    let missing = false;
    for (let i = 0; i < MANIFEST_ENTRIES; i++) {
      const version = this.manifestVersions[i];
      if (version !== 0 && this.held.get(this.manifestIds[i]) !== version) missing = true;
    }
    this.manifestComplete = !missing;
    const now = performance.now();
    if (missing && now - this.lastChunkRequestMs >= CHUNK_RETRY_MS) {
      this.lastChunkRequestMs = now;
      this.sendCacheAck();
    }
  }

  sendEntityAck(tick: number): void {
    this.entityAck.tick = tick;
    encodeEntityAck(this.entityAck, this.entityAckOut, 0);
    this.send(this.entityAckOut);
    this.ackedTick = tick;
    this.lastEntityAckMs = performance.now();
  }

  /** Delta bots: the StateDelta applied to its baseline and checked; the newest verified list acknowledged. */
  applyDelta(packet: StateDeltaView): void {
    const held = this.baselines;
    const base = packet.baselineTick === 0 ? emptyEntryList() : held.find((list) => list.tick === packet.baselineTick);
    const delta = packet.delta;
    // Written into the list let go of last time, none allocated per delta: at 2500 delta bots the lists and
    // their collection cost 17 % of this process (the collector's share fell from 12.8 % to 4.2 %).
    const into = this.spareList;
    const list = base
      ? applyEntityDelta(base, delta, 0, delta.length, packet.removedCount, packet.changedCount, into)
      : null;
    if (list === null || list.checksum !== packet.entityChecksum) {
      if (measuring) totals.checksumMismatches++;
      // Say at once what is held, so the next delta is written against it.
      const newest = held.length > 0 ? held[held.length - 1].tick : 0;
      this.sendEntityAck(newest);
      return;
    }
    list.tick = packet.tick;
    held.push(list);
    this.spareList = held.length > BASELINES_KEPT ? held.shift()! : new EntryList();
    if (performance.now() - this.lastEntityAckMs >= ENTITY_ACK_INTERVAL_MS) this.sendEntityAck(list.tick);
    if (fight || talk || this.social) this.findFoeIn(list);
  }

  /** Fighters with deltas: findFoe over a list's entries. */
  findFoeIn(list: EntryList): void {
    this.foeTick = list.tick;
    this.foeDistance = Infinity;
    this.talkerDistance = Infinity;
    const bytes = list.bytes;
    for (let index = 0; index < list.count; index++) {
      const at = list.starts[index];
      const id = readU32(bytes, at + ENTRY.id);
      const x = readI16(bytes, at + ENTRY.pos_x);
      const y = readI16(bytes, at + ENTRY.pos_y);
      this.consider(
        id,
        readU16(bytes, at + ENTRY.type_id),
        x,
        y,
        readU16(bytes, at + ENTRY.hp),
        bytes[at + ENTRY.entity_flags],
      );
    }
  }

  /** One entry of an update: the own position, or a creature nearer than the foe (talkers: the talker) so far. */
  consider(id: number, typeId: number, x: number, y: number, hp: number, flags: number): void {
    if (id === this.entityId) {
      this.x = x;
      this.y = y;
      this.placed = true;
      return;
    }
    if (this.social) {
      if (typeId === ENTITY_TYPE_CHEST) this.social.sawChest(id, x, y);
      return;
    }
    if (talk) {
      if (!isTalker(typeId, hp, flags)) return;
      const distance = Math.max(Math.abs(x - this.x), Math.abs(y - this.y));
      if (distance < this.talkerDistance) {
        this.talkerDistance = distance;
        this.talkerId = id;
        this.talkerX = x;
        this.talkerY = y;
      }
      return;
    }
    if (!isFoe(typeId, hp, flags, false)) return;
    const distance = Math.max(Math.abs(x - this.x), Math.abs(y - this.y));
    if (distance < this.foeDistance) {
      this.foeDistance = distance;
      this.foeX = x;
      this.foeY = y;
    }
  }

  /** Fighters: the own position and the nearest living creature in this entity update. */
  findFoe(packet: Parameters<EntityCursor["reset"]>[0]): void {
    if (packet.tick !== this.foeTick) {
      this.foeTick = packet.tick;
      this.foeDistance = Infinity;
      this.talkerDistance = Infinity;
    }
    cursor.reset(packet);
    // The own entry may come after a creature's: distances are from the position of the last update.
    while (cursor.next()) this.consider(cursor.id, cursor.typeId, cursor.x, cursor.y, cursor.hp, cursor.flags);
  }

  /** Fighters: the step toward the foe (into its tile when adjacent: the attack), or 0 to wander. */
  fightStep(now: number): number {
    if (this.foeDistance === Infinity) return ACTION_NOOP;
    return this.approach(now, this.foeX, this.foeY, this.foeDistance);
  }

  /** Talkers: the step toward the creature to talk to when a talk is due and it is out of reach, or 0 to wander. */
  talkStep(now: number): number {
    if (now < this.nextTalkMs || this.talkerDistance === Infinity || this.talkerDistance <= INTERACT_REACH_TILES)
      return ACTION_NOOP;
    return this.approach(now, this.talkerX, this.talkerY, this.talkerDistance);
  }

  /** The straight step toward (x, y), `distance` away; 0 (wander) while a stuck walk toward something rests. */
  approach(now: number, x: number, y: number, distance: number): number {
    if (now < this.wanderUntilMs) return ACTION_NOOP;
    if (distance > 1) {
      // Not getting nearer (a wall in the straight line): wander a while, then try again.
      this.stuckWindows = distance >= this.lastDistance ? this.stuckWindows + 1 : 0;
      this.lastDistance = distance;
      if (this.stuckWindows >= STUCK_WINDOWS) {
        this.stuckWindows = 0;
        this.wanderUntilMs = now + TURN_AFTER_MIN_MS;
        this.direction = randomDirection();
        return ACTION_NOOP;
      }
    }
    return actionFromDelta(Math.sign(x - this.x), Math.sign(y - this.y));
  }

  /**
   * Talkers, every round: the query re-sent until answered, the button pressed once the dialog is read (and the
   * reply re-sent until its DialogClose), and a new talk when one is due and a creature to talk to is beside it.
   */
  converse(now: number): void {
    const conversation = this.conversation;
    if (conversation.dialogId !== 0) {
      if (conversation.reply === null) {
        if (now >= conversation.replyAtMs) this.pressButton(now);
      } else if (now - conversation.lastReplyMs >= DIALOG_REPLY_RESEND_MS) {
        if (conversation.replySends >= DIALOG_REPLY_MAX_SENDS) this.endDialog();
        else {
          this.send(conversation.reply);
          conversation.replySends++;
          conversation.lastReplyMs = now;
          if (measuring) talks.replyResends++;
        }
      }
    }
    if (conversation.queryId !== 0 && now - conversation.querySentMs >= INTERACT_RETRANSMIT_MS) {
      if (conversation.queryTries >= INTERACT_MAX_TRIES) conversation.queryId = 0;
      else this.sendQuery(conversation.queryId, now);
    }
    if (now < this.nextTalkMs || conversation.dialogId !== 0 || conversation.queryId !== 0) return;
    if (this.talkerDistance > INTERACT_REACH_TILES) return;
    if (measuring) talks.talks++;
    conversation.queryTries = 0;
    this.sendQuery(this.talkerId, now);
    this.nextTalkMs = now + within(TALK_AGAIN_MS, random());
    this.standUntilMs = now + TALK_WAIT_MS;
  }

  /** The EntityQuery that, from beside a creature a script talks for, is talking to it. */
  sendQuery(entityId: number, now: number): void {
    const conversation = this.conversation;
    encodeEntityQuery(
      { type: "entity_query", clientType: CLIENT_TYPE_OFFICIAL, authToken: this.action.authToken, entityId },
      this.queryOut,
    );
    this.send(this.queryOut);
    conversation.queryId = entityId;
    conversation.querySentMs = now;
    conversation.queryTries++;
    if (measuring) talks.queries++;
  }

  sendDialogAck(dialogId: number, state: number): void {
    encodeDialogAck(
      { type: "dialog_ack", clientType: CLIENT_TYPE_OFFICIAL, authToken: this.action.authToken, dialogId, state },
      this.dialogAckOut,
    );
    this.send(this.dialogAckOut);
  }

  /** A Dialog: a new one is shown ("shown" at once) and read a while; a copy is answered as the protocol says. */
  onDialog(packet: DialogPacket, now: number): void {
    const conversation = this.conversation;
    const id = packet.dialogId;
    if (id === conversation.dialogId) {
      // A copy of the one being read ("shown" was lost) or answered (the reply was lost: send it again).
      if (conversation.reply !== null) this.send(conversation.reply);
      else this.sendDialogAck(id, DIALOG_STATE_SHOWN);
      return;
    }
    if (conversation.closed.includes(id)) return this.sendDialogAck(id, DIALOG_STATE_CLOSED);
    // One at a time: a dialog that comes while another is read takes its place (the server re-sends the other).
    conversation.queryId = 0;
    conversation.dialogId = id;
    conversation.returnCode = dialogChoice(packet.elements, random());
    conversation.values = conversation.returnCode === DIALOG_RETURN_DISMISSED ? [] : dialogValues(packet.elements);
    conversation.reply = null;
    conversation.replySends = 0;
    conversation.replyAtMs = now + within(READ_MS, random());
    this.standUntilMs = conversation.replyAtMs;
    this.sendDialogAck(id, DIALOG_STATE_SHOWN);
    if (measuring) talks.dialogs++;
  }

  /** The dialog read: its button pressed — a DialogReply, kept to be re-sent until the DialogClose. */
  pressButton(now: number): void {
    const conversation = this.conversation;
    const size = encodeDialogReply(
      {
        type: "dialog_reply",
        clientType: CLIENT_TYPE_OFFICIAL,
        authToken: this.action.authToken,
        dialogId: conversation.dialogId,
        returnCode: conversation.returnCode,
        values: conversation.values,
      },
      replyScratch,
    );
    conversation.reply = replyScratch.slice(0, size);
    this.send(conversation.reply);
    conversation.replySends = 1;
    conversation.lastReplyMs = now;
    if (measuring) talks.replies++;
  }

  /** A DialogClose: the dialog ends here if it is the one answered; always acknowledged "closed". */
  onDialogClose(dialogId: number): void {
    if (dialogId === this.conversation.dialogId) {
      this.endDialog();
      if (measuring) talks.closes++;
    }
    this.sendDialogAck(dialogId, DIALOG_STATE_CLOSED);
  }

  endDialog(): void {
    const conversation = this.conversation;
    conversation.closed.push(conversation.dialogId);
    if (conversation.closed.length > DIALOG_IDS_REMEMBERED) conversation.closed.shift();
    conversation.dialogId = 0;
    conversation.reply = null;
  }

  /**
   * Delvers: this window's step. In the hall, toward the chosen stairs (standing on them while the level is
   * made; other stairs after STAIRS_WAIT_MS); in a level, off the stairs up where it arrived and back onto them.
   * Positions come from the latest entity update, a window or so old: a step may be sent twice, which the
   * walk back (toward the stairs' tile, not by retracing) absorbs.
   */
  delveStep(now: number): number {
    if (!inHallInterior(this.x, this.y)) {
      if (!this.inLevel) {
        this.inLevel = true;
        this.entryX = this.x;
        this.entryY = this.y;
        this.offWindows = 0;
        if (measuring) delves.descents++;
      }
      if (this.x === this.entryX && this.y === this.entryY) {
        // Still on the stairs up: one of the eight directions, the next after a few windows without a move.
        if (this.offWindows++ % OFF_TRIES_WINDOWS === 0) this.offDirection = randomDirection();
        return this.offDirection;
      }
      return actionFromDelta(Math.sign(this.entryX - this.x), Math.sign(this.entryY - this.y));
    }
    if (this.inLevel) {
      this.inLevel = false;
      this.lastStairs = nearestStairs(this.x, this.y);
      this.delveTarget = -1;
      if (measuring) delves.returns++;
    }
    if (this.delveTarget < 0) {
      do this.delveTarget = Math.floor(random() * HALL_STAIRS.length);
      while (this.delveTarget === this.lastStairs);
      this.stairsSinceMs = 0;
    }
    const target = HALL_STAIRS[this.delveTarget];
    if (this.x === target.x && this.y === target.y) {
      if (this.stairsSinceMs === 0) this.stairsSinceMs = now;
      if (now - this.stairsSinceMs < STAIRS_WAIT_MS) return ACTION_NOOP;
      // Refused (every level slot holds a level someone is in): other stairs.
      this.lastStairs = this.delveTarget;
      this.delveTarget = -1;
      if (measuring) delves.gaveUp++;
      return ACTION_NOOP;
    }
    return actionFromDelta(Math.sign(target.x - this.x), Math.sign(target.y - this.y));
  }

  /**
   * When step next has something to do, as of `now`: the timer skips the bot until then. Every round while it
   * says hello (until the first State) and for a talker (its conversation's timers); else its next ping or move.
   */
  nextDueMs(now: number): number {
    // Talkers and social bots keep their own clocks (a dialog to read, a line a second to say): every round.
    if (talk || this.social || !this.sawState) return now;
    return idle || this.role === "stand" ? this.nextPingMs : Math.min(this.nextPingMs, this.nextMoveMs);
  }

  step(now: number): void {
    // Until the first State arrives the link may not be bound (a lost first datagram, a server still warming
    // up): repeat the binding ActionPacket like the official client's hello.
    if (!this.sawState && now - this.lastHelloMs >= HELLO_INTERVAL_MS) {
      this.lastHelloMs = now;
      this.sendCacheAck();
    }
    if (now >= this.nextPingMs) {
      this.nextPingMs += PING_INTERVAL_MS;
      this.send(this.pingOut);
    }
    if (talk && this.sawState) this.converse(now);
    if (this.social && this.sawState) {
      if (this.placed) this.social.placedAt(this.x, this.y);
      this.social.step(now);
    }
    if (idle || this.role === "stand" || this.role === "social" || !this.sawState || now < this.nextMoveMs) return;
    this.nextMoveMs += WINDOW_MS;
    // A talker stands while it waits for a dialog and while it reads one.
    if (talk && now < this.standUntilMs) return;
    if (this.role === "delve") {
      const step = this.placed ? this.delveStep(now) : ACTION_NOOP;
      if (step !== ACTION_NOOP) this.sendAction(tickOfWindow(nextWindowAfter(this.tick)), step);
      return;
    }
    if (now >= this.nextTurnMs) {
      this.direction = randomDirection();
      this.nextTurnMs = now + TURN_AFTER_MIN_MS + random() * TURN_AFTER_SPREAD_MS;
    }
    const toward = fight ? this.fightStep(now) : talk ? this.talkStep(now) : ACTION_NOOP;
    // Aimed at the first window the server has not executed as of the newest State seen.
    this.sendAction(tickOfWindow(nextWindowAfter(this.tick)), toward !== ACTION_NOOP ? toward : this.direction);
  }
}

async function join(index: number): Promise<{ token: bigint; port: number; entityId: number }> {
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(`${httpBase}/api/guest`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ nick: `bot${index}` }),
      });
    } catch (error) {
      // A kept-alive connection the server closed as it was reused ("other side closed", seen on a loaded
      // machine): a network failure, not a refusal, so it is tried again like a 5xx.
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
      continue;
    }
    if (response.ok) {
      const body = (await response.json()) as { token: string; udpPort: number; entityId: number };
      return { token: BigInt(`0x${body.token}`), port: body.udpPort, entityId: body.entityId };
    }
    if (attempt >= 5) throw new Error(`join ${index}: HTTP ${response.status} ${await response.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const bots: Bot[] = [];
/** When each bot (by index) is next due for a step (Bot.nextDueMs); 0: at the next round. */
const dueMs = new Float64Array(count);
const JOIN_CONCURRENCY = 16;
let next = 0;

/** Joins bot `index` (of this process) in `role`, binds its socket and sends its hello. */
async function start(index: number, role: Bot["role"]): Promise<void> {
  const { token, port, entityId } = await join(firstBot + index);
  const bot = new Bot(token, port, entityId, performance.now(), role, `bot${firstBot + index}`);
  bot.socket = await sockets.open(port, (bytes) => bot.receive(bytes));
  bot.lastHelloMs = performance.now();
  bot.index = bots.length;
  bot.sendCacheAck(); // binds the session to this socket
  bots.push(bot); // played by the timer from now on
}

// Each bot plays from its join on — while the others join and while the harness has not said "go": a
// session silent for the server's session timeout (10 s) is ended, and 2000 joins through a cluster take
// longer than that.
// One timer for all: each round steps only the bots whose step has something to do (dueMs), so a round
// reads one array instead of every bot (at 2000 bots, 100 rounds a second over every bot cost ~8 % of the
// process: docs/benchmarks.md § The bots' own cost).
const timer = setInterval(() => {
  const now = performance.now();
  for (let index = 0; index < bots.length; index++) {
    if (now < dueMs[index]) continue;
    const bot = bots[index];
    bot.step(now);
    dueMs[index] = bot.nextDueMs(now);
  }
}, 10);

// The hall bots first, one at a time: the server hands guests the map's spawn points in order, and the
// delve world's first ones are in its hall.
for (; next < Math.min(hallBots, count); next++) await start(next, delve ? "delve" : "stand");
// The social bots next, all of them before any wanderer, so they take the camps' spawn points (in whatever
// order the server answers the joins: each finds its seat by where it was placed).
for (const [until, role] of [
  [socialBots, "social"],
  [count, "wander"],
] as const) {
  await Promise.all(
    Array.from({ length: JOIN_CONCURRENCY }, async () => {
      while (next < until) await start(next++, role);
    }),
  );
}
emit("joined", { bots: bots.length });
// --wait-go: the harness runs several bot processes and says "go" on stdin once all have joined, so their
// warm-ups and windows line up.
if (values["wait-go"]) {
  await new Promise<void>((resolve) => {
    process.stdin.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("go")) resolve();
    });
  });
}

/**
 * After the window: the social bots call off open trades, wait SOCIAL_SETTLE_MS, then ask for their own and
 * their chest's details; the census sums them over the camps (item id → count) beside what the chests held.
 */
async function socialCensus(): Promise<{
  census: Record<string, number>;
  expected: Record<string, number>;
  answered: number;
  bots: number;
}> {
  const socials = bots.flatMap((bot) => (bot.social ? [bot.social] : []));
  for (const bot of socials) bot.finish(performance.now());
  await new Promise((resolve) => setTimeout(resolve, SOCIAL_SETTLE_MS));
  for (const bot of socials) bot.census(performance.now());
  const deadline = performance.now() + SOCIAL_CENSUS_MS;
  while (performance.now() < deadline && socials.some((bot) => !bot.censusDone))
    await new Promise((resolve) => setTimeout(resolve, 100));
  const census = new Map<number, number>();
  for (const bot of socials)
    for (const held of [bot.bag, bot.chest]) for (const [id, n] of held) census.set(id, (census.get(id) ?? 0) + n);
  const record = (map: ReadonlyMap<number, number>) =>
    Object.fromEntries([...map].sort(([a], [b]) => a - b).map(([id, n]) => [String(id), n]));
  return {
    census: record(census),
    expected: record(campCensus(socials.length / 4)),
    answered: socials.filter((bot) => bot.censusDone).length,
    bots: socials.length,
  };
}

const cpuStart = { value: process.cpuUsage() };
let measureStartMs = 0;
setTimeout(() => {
  measuring = true;
  measureStartMs = performance.now();
  cpuStart.value = process.cpuUsage();
  emit("measure-start");
  setTimeout(() => void endWindow(), measureMs);
}, warmupMs);

/** The window's end: its figures (and, with social bots, the census after it), then the process ends. */
async function endWindow(): Promise<void> {
  measuring = false;
  const seconds = (performance.now() - measureStartMs) / 1000;
  const cpu = process.cpuUsage(cpuStart.value);
  emit("measure-end");
  const socialEnd = socialBots > 0 ? await socialCensus() : undefined;
  clearInterval(timer);
  const perBotPerSecond = (value: number) => value / bots.length / seconds;
  emit("result", {
    bots: bots.length,
    udpBackend: sockets.backend,
    socketSet: sockets.socketSet,
    sendFailures: sockets.sendFailures(),
    chunksHeldPerBot: bots.reduce((sum, bot) => sum + bot.held.size, 0) / bots.length,
    idle,
    seconds,
    botProcessCpuPercent: (cpu.user + cpu.system) / 1e4 / seconds,
    // Split as /proc splits it: the bots' own code, and the kernel working for them (on loopback their
    // sends' delivery into the server's socket is charged here).
    botProcessUserPercent: cpu.user / 1e4 / seconds,
    botProcessSystemPercent: cpu.system / 1e4 / seconds,
    perBot: {
      datagramsInPerSecond: perBotPerSecond(totals.datagramsIn),
      ipBytesInPerSecond: perBotPerSecond(totals.bytesIn),
      statePerSecond: perBotPerSecond(totals.state),
      entityPerSecond: perBotPerSecond(totals.entity),
      chunkPerSecond: perBotPerSecond(totals.chunk),
      datagramsOutPerSecond: perBotPerSecond(totals.datagramsOut),
      ipBytesOutPerSecond: perBotPerSecond(totals.bytesOut),
    },
    checksumMismatches: totals.checksumMismatches,
    delves: hallBots > 0 ? delves : undefined,
    talks: talk ? talks : undefined,
    social: socialEnd ? { ...social, ...socialEnd } : undefined,
    datagramsInPerBotSecondByType: Object.fromEntries(
      [...byType].sort(([a], [b]) => a.localeCompare(b)).map(([type, n]) => [type, perBotPerSecond(n)]),
    ),
  });
  for (const bot of bots) bot.socket.close();
  setTimeout(() => process.exit(0), 100);
}
