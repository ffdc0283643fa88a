// A list's WHERE from optional filters. Each value becomes the next numbered parameter,
// never text in the SQL; the first condition (the caller's app) always holds.
export type Filters = {
  readonly where: string[];
  readonly params: unknown[];
  /** Adds a condition; `sql` places the value's parameter, e.g. (p) => `x.code = ${p}`. */
  add(sql: (p: string) => string, value: unknown): void;
  /** The ANDed conditions. */
  sql(): string;
  /** LIMIT and OFFSET as the next two parameters, and every parameter. */
  page(limit: number, offset: number): { sql: string; params: unknown[] };
};

export function filters(first: string, appCode: number): Filters {
  const where = [first];
  const params: unknown[] = [appCode];
  return {
    where,
    params,
    add(sql, value) {
      params.push(value);
      where.push(sql(`$${params.length}`));
    },
    sql: () => where.join(' AND '),
    page: (limit, offset) => ({ sql: `LIMIT $${params.length + 1} OFFSET $${params.length + 2}`, params: [...params, limit, offset] }),
  };
}
