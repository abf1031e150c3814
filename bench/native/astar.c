/*
 * The project's A* (assembly/pathfind/bucket.ts) ported to C, for the
 * "within 1.6x of C" comparison: 8-connected, unit steps, Chebyshev
 * heuristic, no corner cutting, three rotating LIFO buckets keyed by f,
 * generation stamps instead of clearing, goal accepted when generated,
 * successors diagonals first. Built with gcc -O3 by bench/suites/pathfind.ts.
 *
 *   astar GRID.bin ROUNDS
 *
 * GRID.bin (little-endian i32s): width, height, width*height free flags (one
 * byte each, padded to 4), pair count, then sx sy gx gy per pair. Prints one
 * JSON line: per-round CPU milliseconds for a sweep over all pairs, and the
 * path length of every pair (for checking against BFS).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int W, H, PW; /* grid and padded width (one blocked cell of border all round) */
static uint8_t* freeCell;
static uint32_t* stamp;
static uint32_t* g;
static uint8_t* info; /* bit 4 closed, bits 0..3 action that reached the cell */
static uint32_t* bucket[3];
static int bucketSize[3];
static uint32_t generation;
static uint8_t path[1 << 16];

static const int DX[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const int DY[9] = {0, -1, 0, 1, 0, -1, 1, 1, -1};
static const int ORDER[8] = {5, 6, 7, 8, 1, 2, 3, 4};

static inline int cheb(int a, int b) {
  int ax = a % PW, ay = a / PW, bx = b % PW, by = b / PW;
  int dx = ax > bx ? ax - bx : bx - ax, dy = ay > by ? ay - by : by - ay;
  return dx > dy ? dx : dy;
}

static inline unsigned allowed(int c) {
  const uint8_t* f = freeCell;
  unsigned n = f[c - PW], e = f[c + 1], s = f[c + PW], w = f[c - 1];
  unsigned mask = n << 1 | e << 2 | s << 3 | w << 4;
  mask |= (unsigned)(f[c - PW + 1] & n & e) << 5;
  mask |= (unsigned)(f[c + PW + 1] & s & e) << 6;
  mask |= (unsigned)(f[c + PW - 1] & s & w) << 7;
  mask |= (unsigned)(f[c - PW - 1] & n & w) << 8;
  return mask;
}

/* Path length, or -1 when there is none. */
static int astar(int sx, int sy, int gx, int gy) {
  int start = (sy + 1) * PW + sx + 1, goal = (gy + 1) * PW + gx + 1;
  if (start == goal) return 0;
  generation++;
  bucketSize[0] = bucketSize[1] = bucketSize[2] = 0;
  int f = cheb(start, goal);
  stamp[start] = generation;
  g[start] = 0;
  info[start] = 0;
  bucket[f % 3][bucketSize[f % 3]++] = (uint32_t)start;
  int open = 1;
  int delta[9];
  for (int a = 1; a <= 8; a++) delta[a] = DY[a] * PW + DX[a];
  while (open > 0) {
    while (bucketSize[f % 3] == 0) f++;
    int n = (int)bucket[f % 3][--bucketSize[f % 3]];
    open--;
    if (info[n] & 16) continue;
    info[n] |= 16;
    unsigned mask = allowed(n);
    uint32_t ng = g[n] + 1;
    for (int k = 0; k < 8; k++) {
      int a = ORDER[k];
      if (!(mask >> a & 1)) continue;
      int m = n + delta[a];
      if (stamp[m] == generation && ((info[m] & 16) || g[m] <= ng)) continue;
      stamp[m] = generation;
      g[m] = ng;
      info[m] = (uint8_t)a;
      if (m == goal) {
        int length = (int)ng, at = m;
        for (int i = length - 1; i >= 0; i--) {
          int act = info[at] & 15;
          path[i] = (uint8_t)act;
          at -= delta[act];
        }
        return length;
      }
      int fm = (int)ng + cheb(m, goal);
      bucket[fm % 3][bucketSize[fm % 3]++] = (uint32_t)m;
      open++;
    }
  }
  return -1;
}

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: astar GRID.bin ROUNDS\n"); return 2; }
  FILE* file = fopen(argv[1], "rb");
  if (!file) { fprintf(stderr, "cannot open %s\n", argv[1]); return 2; }
  int32_t head[2];
  if (fread(head, 4, 2, file) != 2) return 2;
  W = head[0];
  H = head[1];
  PW = W + 2;
  size_t cells = (size_t)PW * (H + 2);
  freeCell = calloc(cells, 1);
  stamp = calloc(cells, 4);
  g = calloc(cells, 4);
  info = calloc(cells, 1);
  for (int b = 0; b < 3; b++) bucket[b] = malloc(cells * 8 * 4);
  uint8_t* row = malloc((size_t)W * H + 4);
  size_t padded = ((size_t)W * H + 3) & ~(size_t)3;
  if (fread(row, 1, padded, file) != padded) return 2;
  for (int y = 0; y < H; y++) memcpy(freeCell + (size_t)(y + 1) * PW + 1, row + (size_t)y * W, (size_t)W);
  int32_t count;
  if (fread(&count, 4, 1, file) != 1) return 2;
  int32_t* pairs = malloc((size_t)count * 16);
  if (fread(pairs, 16, (size_t)count, file) != (size_t)count) return 2;
  fclose(file);
  int rounds = atoi(argv[2]);
  int* lengths = malloc((size_t)count * sizeof(int));
  printf("{\"roundsMs\":[");
  for (int r = 0; r < rounds + 1; r++) { /* round 0 warms caches and is not reported */
    double t0 = cpu_ms();
    for (int p = 0; p < count; p++) lengths[p] = astar(pairs[4 * p], pairs[4 * p + 1], pairs[4 * p + 2], pairs[4 * p + 3]);
    double t1 = cpu_ms();
    if (r > 0) printf("%s%.4f", r > 1 ? "," : "", t1 - t0);
  }
  printf("],\"lengths\":[");
  for (int p = 0; p < count; p++) printf("%s%d", p ? "," : "", lengths[p]);
  printf("]}\n");
  return 0;
}
