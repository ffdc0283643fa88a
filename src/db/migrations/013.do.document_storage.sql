-- bill_document.pdf is stored out of line without compression: a PDF's streams are
-- deflated already, so PostgreSQL's own compression of each document (pglz, tried on
-- every value over 2 kB) spent the database's CPU while rendering 100,000 of them and
-- saved nothing (docs/documents.md, "Speed").
ALTER TABLE bill_document ALTER COLUMN pdf SET STORAGE EXTERNAL;
