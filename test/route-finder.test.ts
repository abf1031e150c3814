// The bounds on a gateway's directory questions (ts/cluster/route-finder.ts), which a browser's WebRTC
// signalling now asks through as well as a datagram: one question per token at a time, shared by whoever
// asks while it is out; a token the directory did not know not asked about again for 2 s; a few questions a
// second per source address. (The directory itself is real in test/cluster-gateway-lost.test.ts and
// test/e2e/browser-cluster.test.ts.)
import { describe, expect, it } from "vitest";
import { RouteFinder } from "../ts/cluster/route-finder.js";

/** A directory that answers when told to, counting the questions. */
function directory(regions: Record<string, number>) {
  const waiting: (() => void)[] = [];
  const asked: string[] = [];
  const regionOf = (tokenHex: string) =>
    new Promise<number | null>((resolve) => {
      asked.push(tokenHex);
      waiting.push(() => resolve(regions[tokenHex] ?? null));
    });
  const answerAll = async () => {
    for (const answer of waiting.splice(0)) answer();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { regionOf, asked, answerAll };
}

describe("the route finder", () => {
  it("asks once for a token however many ask while the question is out, and tells each of them", async () => {
    const store = directory({ aaaa: 1 });
    const finder = new RouteFinder(store.regionOf);
    const first = finder.region("aaaa", "10.0.0.1", 0);
    const second = finder.region("aaaa", "10.0.0.2", 1);
    let datagramFound = -1;
    finder.find("aaaa", "10.0.0.3", 2, (region) => (datagramFound = region));
    await store.answerAll();
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(store.asked).toEqual(["aaaa"]);
    // A datagram arriving while its token's question is out is dropped, not answered twice.
    expect(datagramFound).toBe(-1);
    expect(finder.stats).toMatchObject({ asked: 1, found: 1 });
  });

  it("does not ask again about a token the directory did not know for 2 s, and bounds each source", async () => {
    const store = directory({});
    const finder = new RouteFinder(store.regionOf);
    const unknown = finder.region("bbbb", "10.0.0.1", 0);
    await store.answerAll();
    expect(await unknown).toBeNull();
    expect(await finder.region("bbbb", "10.0.0.1", 1_000)).toBeNull();
    expect(store.asked).toEqual(["bbbb"]);
    const later = finder.region("bbbb", "10.0.0.1", 2_500);
    await store.answerAll();
    expect(await later).toBeNull();
    expect(store.asked).toEqual(["bbbb", "bbbb"]);
    // One source making up tokens: a burst of 8 questions, then 4 a second; another source is not held up.
    const made = Array.from({ length: 20 }, (_, index) => finder.region(`c${index}`, "10.9.9.9", 5_000));
    await store.answerAll();
    expect((await Promise.all(made)).every((region) => region === null)).toBe(true);
    expect(store.asked.filter((token) => token.startsWith("c"))).toHaveLength(8);
    expect(finder.stats.limited).toBe(12);
    const other = finder.region("dddd", "10.0.0.7", 5_000);
    await store.answerAll();
    await other;
    expect(store.asked.at(-1)).toBe("dddd");
  });
});
