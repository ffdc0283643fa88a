-- The account search (get-accounts `search` and `name`) ignores accents as it ignores case:
-- "cafe" finds "Café Amélie", "muller" finds "Müller" (an officer's walk: a customer's
-- name typed without its accents found nothing). unaccent is a trusted extension like
-- pg_trgm, in the same schema. fold_name is what both sides of the comparison go through:
-- IMMUTABLE (the dictionary named, not looked up by search_path) so the trigram index can
-- be built on it; the index on the bare name it replaces served only the search.
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA ext;
CREATE FUNCTION ext.fold_name(text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN lower(ext.unaccent('ext.unaccent'::regdictionary, $1));
CREATE INDEX account_name_folded_trgm_idx ON account USING gin (ext.fold_name(name) ext.gin_trgm_ops);
DROP INDEX account_name_trgm_idx;
