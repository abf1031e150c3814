// The parts of PathFinding.js (npm "pathfinding" 0.4.18, no bundled types) the benchmark uses.
declare module "pathfinding" {
  interface Node {
    x: number;
    y: number;
  }
  class Grid {
    constructor(width: number, height: number, matrix?: number[][]);
    clone(): Grid;
  }
  interface FinderOptions {
    diagonalMovement?: number;
    heuristic?: (dx: number, dy: number) => number;
    weight?: number;
  }
  interface Finder {
    findPath(startX: number, startY: number, endX: number, endY: number, grid: Grid): number[][];
  }
  const PF: {
    Grid: typeof Grid;
    AStarFinder: new (options?: FinderOptions) => Finder;
    JumpPointFinder: new (options?: FinderOptions) => Finder;
    DiagonalMovement: { Always: number; Never: number; IfAtMostOneObstacle: number; OnlyWhenNoObstacles: number };
    Heuristic: Record<"manhattan" | "euclidean" | "octile" | "chebyshev", (dx: number, dy: number) => number>;
  };
  export default PF;
  export type { Node };
}
