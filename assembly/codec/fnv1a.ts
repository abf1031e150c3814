// FNV-1a 32-bit (Fowler/Noll/Vo, draft-eastlake-fnv): for each byte,
// hash = (hash ^ byte) * 16777619 mod 2^32, starting from the offset basis.
// Used for StatePacket.entity_checksum (protocol-decisions.md 9).

/** FNV-1a 32-bit offset basis (the hash of no bytes). An i32 global: hosts read it as `>>> 0`. */
export const FNV_OFFSET: u32 = 0x811c9dc5;
const FNV_PRIME: u32 = 0x01000193;

/**
 * fnv1a: FNV-1a over `len` bytes at `ptr`, continuing from `hash` (pass
 * FNV_OFFSET to start), so a host can hash several datagrams as one stream.
 * Each byte depends on the previous hash, so this is a scalar chain; loading
 * 4 bytes at a time only saves loads. len <= 0 returns hash unchanged.
 */
export function fnv1a(ptr: usize, len: i32, hash: u32): u32 {
  let p = ptr;
  const end = ptr + <usize>max(len, 0);
  const wordEnd = end - ((<usize>max(len, 0)) & 3);
  while (p < wordEnd) {
    const word = load<u32>(p);
    hash = (hash ^ (word & 0xff)) * FNV_PRIME;
    hash = (hash ^ ((word >>> 8) & 0xff)) * FNV_PRIME;
    hash = (hash ^ ((word >>> 16) & 0xff)) * FNV_PRIME;
    hash = (hash ^ (word >>> 24)) * FNV_PRIME;
    p += 4;
  }
  while (p < end) {
    hash = (hash ^ (<u32>load<u8>(p))) * FNV_PRIME;
    p++;
  }
  return hash;
}
