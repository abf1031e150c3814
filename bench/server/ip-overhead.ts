// Bytes the benchmark adds to every UDP payload to count traffic at the IP
// level, as a link does: the 20-byte IPv4 header (no options) and the 8-byte
// UDP header. Both sides of the server benchmark (the bots' own counters and
// the harness reading the server's) use this one figure.

/** IPv4 + UDP header bytes per datagram. */
export const IP_UDP_OVERHEAD_BYTES = 28;
