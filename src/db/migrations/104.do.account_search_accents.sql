-- The account search (get-accounts `search` and `name`) ignores accents as it ignores case,
-- and apostrophes and full stops: "cafe" finds "Café Amélie", "muller" finds "Müller",
-- "oconnell" finds "O'Connell", "st marys" finds "St. Mary's" (an officer's walk: a
-- customer's name typed without them found nothing). unaccent is a trusted extension like
-- pg_trgm, in the same schema. fold_name is what both sides of the comparison go through:
-- IMMUTABLE (the dictionary named, not looked up by search_path) so the trigram index can
-- be built on it; the index on the bare name it replaces served only the search.
CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA ext;
CREATE FUNCTION ext.fold_name(text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN lower(regexp_replace(ext.unaccent('ext.unaccent'::regdictionary, $1), '[''’.]', '', 'g'));
CREATE INDEX account_name_folded_trgm_idx ON account USING gin (ext.fold_name(name) ext.gin_trgm_ops);
DROP INDEX account_name_trgm_idx;
