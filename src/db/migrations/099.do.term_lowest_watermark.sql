-- term.lowest_reading_watermark: the lowest reading watermark any round of the term read
-- readings with (approval, the run's own approval, each retry-failures). A bill of the term
-- knew of no reading above it, so a reading with a higher id, dated in the term, may be one
-- its bill did not bill up to: the next term's run looks at the subscription's bill before
-- starting from it (src/billRun/meterChain.ts). reading_watermark alone is the last round's:
-- a retry raised it past readings the first round's bills never read.
ALTER TABLE term ADD COLUMN lowest_reading_watermark bigint;
UPDATE term SET lowest_reading_watermark = reading_watermark;
COMMENT ON COLUMN term.lowest_reading_watermark IS
  'the lowest reading_watermark any round of the term read readings with: no bill of the term knew of a reading above it (billRun/meterChain.ts)';
