// The wire protocol (docs/protocol.md): one module per packet or concept.
export * from "./bytes.js";
export * from "./errors.js";
// The layout builders stay internal to the packet modules; users read the built layouts.
export { type FieldKind, type Layout, type LayoutField, STRING_LENGTH_BYTES } from "./layout.js";
export * from "./header.js";
export * from "./chunk-id.js";
export * from "./state.js";
export * from "./action.js";
export * from "./chunk.js";
export * from "./chunk-wide.js";
export * from "./tlv.js";
export * from "./entity.js";
export * from "./entity-checksum.js";
export * from "./entity-query.js";
export * from "./entity-detail.js";
export * from "./ping.js";
export * from "./text.js";
export * from "./chat-post.js";
export * from "./chat-post-ack.js";
export * from "./chat.js";
export * from "./chat-ack.js";
export * from "./tile-update.js";
export * from "./dialog.js";
export * from "./dialog-ack.js";
export * from "./dialog-reply.js";
export * from "./dialog-close.js";
export * from "./custom.js";
export * from "./packet.js";
