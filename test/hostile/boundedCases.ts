// Cases for bounded.test.ts (run inside the watchdog's worker).
export function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
export function spin(): void {
  for (;;) {
    /* never yields */
  }
}
export function hog(): number {
  const keep: number[][] = [];
  for (;;) keep.push(new Array(1 << 16).fill(Math.random()));
}
export function fail(): never {
  throw new Error('case failed on purpose');
}
