-- The console's account search (get-accounts `search`): an account number starting with
-- the text, or a name containing it in any case. Without these, each keystroke read
-- every account of a million-account app (about half a second).
-- pg_trgm is a trusted extension (PostgreSQL 13+): the database owner may create it. It
-- lives in its own schema so that its functions stay out of the application's.
CREATE SCHEMA IF NOT EXISTS ext;
CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA ext;
-- COLLATE "C": a prefix LIKE is a range of this b-tree, read in number order, whatever the
-- database's collation.
CREATE INDEX account_number_prefix_idx ON account (app_code, (account_number COLLATE "C"));
CREATE INDEX account_name_trgm_idx ON account USING gin (name ext.gin_trgm_ops);
