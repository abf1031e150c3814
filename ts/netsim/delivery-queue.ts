// Datagrams in flight, ordered by delivery time: a binary min-heap, so a link holding thousands of delayed
// datagrams needs O(log n) per datagram and a single timer for the earliest one.

/** One datagram waiting to be delivered. */
export interface PendingDelivery {
  /** Clock time at which it is due. */
  readonly dueMs: number;
  /** Arrival order at the link; breaks ties so equal due times keep the order they were sent in. */
  readonly sequence: number;
  /** The link's own copy of the bytes. */
  readonly datagram: Uint8Array;
}

function isEarlier(a: PendingDelivery, b: PendingDelivery): boolean {
  return a.dueMs < b.dueMs || (a.dueMs === b.dueMs && a.sequence < b.sequence);
}

export class DeliveryQueue {
  private readonly heap: PendingDelivery[] = [];

  get size(): number {
    return this.heap.length;
  }

  /** The earliest delivery without removing it. */
  peek(): PendingDelivery | undefined {
    return this.heap[0];
  }

  push(item: PendingDelivery): void {
    const heap = this.heap;
    let index = heap.length;
    heap.push(item);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!isEarlier(item, heap[parent])) break;
      heap[index] = heap[parent];
      index = parent;
    }
    heap[index] = item;
  }

  /** Removes and returns the earliest delivery. */
  pop(): PendingDelivery | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let index = 0;
    const count = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= count) break;
      const right = left + 1;
      const child = right < count && isEarlier(heap[right], heap[left]) ? right : left;
      if (!isEarlier(heap[child], last)) break;
      heap[index] = heap[child];
      index = child;
    }
    heap[index] = last;
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }
}
