-- Compact bills (issues 12 and 15): bill.lines and bill.source are stored as a diff against a
-- prototype, a whole earlier value of the same structure kept once here (src/billLines/storedLines.ts
-- owns the format and is the only code that reads or writes it). A packed bill.lines is
--   [digest, amount of each line..., skip, value, skip, value, ...]
-- a packed bill.source [digest, skip, value, ...]; the old forms (an array of line objects, a
-- source object) stay as they are and are read as they are.
CREATE TABLE bill_line_prototype (
  digest text PRIMARY KEY,
  value json NOT NULL,
  heads json NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE bill_line_prototype IS
  'Prototypes of the packed bill.lines / bill.source (src/billLines/storedLines.ts): written in the transaction of the bills that name them, never changed or deleted (content-addressed: digest is 16 base64url characters of the SHA-256 of value''s JSON text).';
COMMENT ON COLUMN bill_line_prototype.value IS 'The whole prototype value (a bill''s lines array, or a source object): its structure, key order and unchanged leaves are those of every bill that names it.';
COMMENT ON COLUMN bill_line_prototype.heads IS 'Per line of a lines prototype, [componentCode, category] (the same on every bill naming it); [] for a source prototype. bill_line_heads reads them.';
COMMENT ON COLUMN bill.lines IS
  'The bill''s lines, in the template''s component order: either a JSON array of line objects (the old form) or the packed form [prototype digest, amount of each line..., diff tokens...] of src/billLines/storedLines.ts. Read through decodeStored (JavaScript) or bill_line_heads (SQL), never by path.';
COMMENT ON COLUMN bill.source IS
  'What the run rated the bill from (migration 028), as a JSON object (the old form) or packed against a prototype (src/billLines/storedLines.ts). Read through decodeStored.';

-- Each line's number (from 1), componentCode, category and amount, from either form: what the
-- ledger, settlement, payments and the journal read of a bill in SQL. Inlined by the planner.
CREATE FUNCTION bill_line_heads(lines json)
RETURNS TABLE (line_no integer, component_code text, category text, amount numeric)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT e.n::integer, e.l->>'componentCode', e.l->>'category', (e.l->>'amount')::numeric
    FROM json_array_elements(CASE WHEN json_typeof(lines->0) = 'object' THEN lines END) WITH ORDINALITY AS e(l, n)
  UNION ALL
  SELECT h.n::integer, h.h->>0, h.h->>1, (lines->>(h.n::integer))::numeric
    FROM bill_line_prototype p CROSS JOIN LATERAL json_array_elements(p.heads) WITH ORDINALITY AS h(h, n)
   WHERE json_typeof(lines->0) = 'string' AND p.digest = lines->>0
$$;
COMMENT ON FUNCTION bill_line_heads(json) IS 'Each line of a stored bill.lines (either form): line_no from 1, component_code, category, amount. The SQL view of src/billLines/storedLines.ts.';
