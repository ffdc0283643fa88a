// Summarises a V8 CPU profile (.cpuprofile, from `node --cpu-prof` or a bench's --cpu-prof):
// self time by function and by file, the largest first. `node bench/profile.ts FILE [--top=N]`.
import fs from 'node:fs';
import path from 'node:path';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node bench/profile.ts FILE.cpuprofile [--top=N]\n');
  process.exit(2);
}
const top = Number(process.argv.find((a) => a.startsWith('--top='))?.slice(6) ?? 30);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) selfUs.set(profile.samples[i]!, (selfUs.get(profile.samples[i]!) ?? 0) + (profile.timeDeltas[i] ?? 0));

const total = profile.endTime - profile.startTime;
const fn = new Map<string, number>();
const fileTime = new Map<string, number>();
for (const [id, us] of selfUs) {
  const f = byId.get(id)!.callFrame;
  const where = f.url ? path.relative(process.cwd(), f.url.replace(/^file:\/\//, '')) : '(native)';
  const key = `${f.functionName || '(anonymous)'}  ${where}:${f.lineNumber + 1}`;
  fn.set(key, (fn.get(key) ?? 0) + us);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(where)?.[1];
  fileTime.set(pkg ? `node_modules/${pkg}` : where, (fileTime.get(pkg ? `node_modules/${pkg}` : where) ?? 0) + us);
}
const show = (title: string, m: Map<string, number>) => {
  process.stdout.write(`${title}\n`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`  ${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}\n`);
  }
};
// Inclusive time: each sample counted once for every distinct function on its stack.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n: Node) => `${n.callFrame.functionName || '(anonymous)'}  ${n.callFrame.url ? path.relative(process.cwd(), n.callFrame.url.replace(/^file:\/\//, '')) : '(native)'}:${n.callFrame.lineNumber + 1}`;
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const k = keyOf(byId.get(at)!);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
}
process.stdout.write(`profile: ${(total / 1e6).toFixed(2)} s\n`);
show('self time by function:', fn);
show('self time by file or package:', fileTime);
show('inclusive time by function (src/ only):', new Map([...inclusive].filter(([k]) => k.includes(' src/'))));
