/**
 * Branches under their parents in the Rollouts view: a file holding one branch (a rollout with a
 * `parent` link, written by Branch from Here… or `trajectory-inspector branch`) moves from where the
 * tree put it to under its parent — the parent's file, or the parent's rollout in a multi-rollout
 * file — in a `branches` node per fork step, which counts the branches' outcomes like a GRPO group.
 * A branch whose parent is not in the tree (another folder, filtered out, not read yet) stays where
 * it was. Nothing here imports `vscode`.
 */
import { stepNumber } from '../core/naming';
import { statsOf, type BranchesNode, type FileLeaf, type TreeNode, type TreeRollout } from './rolloutTreeModel';

/** The one rollout of a file leaf that is a branch, or null. */
function branchOf(n: TreeNode): TreeRollout | null {
  if (n.kind !== 'file' || n.state.kind !== 'loaded' || n.state.rollouts.length !== 1) return null;
  return n.state.rollouts[0].parent ? n.state.rollouts[0] : null;
}

/** Where a branch goes: the parent's file leaf (one rollout) or the parent's rollout leaf, and the rollout's index. */
function parentNode(files: ReadonlyMap<string, FileLeaf>, b: TreeRollout): { node: TreeNode; index: number } | null {
  const up = b.parent!;
  const f = files.get(up.path);
  if (!f || f.state.kind !== 'loaded') return null;
  const rs = f.state.rollouts;
  const at = up.rolloutId === null ? 0 : rs.findIndex((r) => r.id === up.rolloutId);
  if (at < 0) return null;
  if (rs.length === 1) return { node: f, index: rs[0].index };
  // A multi-rollout file: the rollout's leaf, wherever the file's children put it (in a group or not).
  const find = (n: TreeNode): TreeNode | null => (n.kind === 'rollout' && n.rollout.index === rs[at].index ? n : n.children.map(find).find((x) => x) ?? null);
  const leaf = find(f);
  return leaf ? { node: leaf, index: rs[at].index } : null;
}

/** The label of a branches node: `branches from step #3`. */
export function branchesLabel(n: Pick<BranchesNode, 'stepIndex'>): string {
  return n.stepIndex === null ? 'branches' : `branches from step ${stepNumber(n.stepIndex)}`;
}

/** The description of a branches node: how many, their outcomes, how they ended (`3 · 1 passed · submitted ×2, max-steps`). */
export function branchesDescription(n: Pick<BranchesNode, 'stats' | 'stops'>): string {
  const s = n.stats;
  const outcome = [s.passed ? `${s.passed} passed` : '', s.failed ? `${s.failed} failed` : '', s.unknown ? `${s.unknown} no reward` : ''].filter(Boolean).join(', ');
  const counts = new Map<string, number>();
  for (const x of n.stops) counts.set(x, (counts.get(x) ?? 0) + 1);
  const ended = [...counts].map(([k, c]) => (c > 1 ? `${k} ×${c}` : k)).join(', ');
  return [`${s.total} ${s.total === 1 ? 'branch' : 'branches'}`, outcome, ended].filter(Boolean).join(' · ');
}

/**
 * Moves every branch file of `roots` under its parent (module docs); returns the new roots. The
 * nodes moved keep their ids; each branches node's id names the parent's file, rollout and step.
 */
export function nestBranches(roots: TreeNode[]): TreeNode[] {
  const files = new Map<string, FileLeaf>();
  const branches: FileLeaf[] = [];
  const walk = (n: TreeNode): void => {
    if (n.kind === 'file') {
      files.set(n.path, n);
      if (branchOf(n)) branches.push(n);
    }
    n.children.forEach(walk);
  };
  roots.forEach(walk);
  if (!branches.length) return roots;
  // Where each branch goes, by parent node and fork step.
  const moves = new Map<TreeNode, Map<string, { index: number; step: number | null; leaves: FileLeaf[] }>>();
  const moved = new Set<TreeNode>();
  for (const leaf of branches) {
    const b = branchOf(leaf)!;
    const at = parentNode(files, b);
    // Never under itself, nor under one of its own branches (a parent link pointing back).
    if (!at || at.node === leaf || branchOf(at.node)?.parent?.path === leaf.path) continue;
    const steps = moves.get(at.node) ?? new Map();
    moves.set(at.node, steps);
    const key = String(b.parent!.stepIndex);
    const g = steps.get(key) ?? { index: at.index, step: b.parent!.stepIndex, leaves: [] };
    steps.set(key, g);
    g.leaves.push(leaf);
    moved.add(leaf);
  }
  const rebuild = (n: TreeNode): TreeNode => {
    const children = n.children.filter((c) => !moved.has(c)).map(rebuild);
    const groups = [...(moves.get(n)?.values() ?? [])].sort((a, b) => (a.step ?? -1) - (b.step ?? -1));
    for (const g of groups) {
      const leaves = g.leaves.sort((a, b) => a.path.localeCompare(b.path)).map((l) => rebuild(l) as FileLeaf);
      const rs = leaves.map((l) => branchOf(l)!);
      const path = n.kind === 'file' || n.kind === 'rollout' ? n.path : '';
      children.push({
        kind: 'branches',
        id: `b:${path}#${g.index}@${g.step ?? '-'}`,
        path,
        parentIndex: g.index,
        stepIndex: g.step,
        stats: statsOf(rs.map((r) => ({ state: 'loaded', rollouts: [r] }))),
        stops: rs.map((r) => r.parent!.stop ?? 'running'),
        children: leaves,
      });
    }
    return children.length === n.children.length && children.every((c, i) => c === n.children[i]) ? n : ({ ...n, children } as TreeNode);
  };
  return roots.filter((r) => !moved.has(r)).map(rebuild);
}
