// A bench's numeric flags: `--name N` or `--name=N`.
export const arg = (name: string, fallback: number): number => {
  const eq = process.argv.find((a) => a.startsWith(`${name}=`));
  if (eq) return Number(eq.slice(name.length + 1));
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
