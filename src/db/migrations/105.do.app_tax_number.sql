-- The supplier's tax registration number (a VAT number), printed on its bills and credit
-- notes: a VAT invoice must carry it, and a new user found no place for it. NULL: none.
ALTER TABLE app ADD COLUMN tax_number text;
